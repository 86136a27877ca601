package counter

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Title is a page's title as the owner's own feed gives it (never a
// visitor's request, which any stranger could send), for the lists of
// popular pages.
type Title struct {
	Page  string // as PageKey makes it
	Title string
}

// Bounds of a site's titles: as many as a site may have pages, each a
// line's worth of text.
const (
	MaxTitles   = 10_000
	MaxTitleLen = 200 // bytes
)

// CleanTitle makes title one line of plain text: spaces and line ends
// folded into one space, control characters and invalid UTF-8 dropped,
// cut to MaxTitleLen bytes at a character's end with an ellipsis. It is
// "" for a title with nothing left.
func CleanTitle(title string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(title, "") {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == utf8.RuneError || unicode.In(r, unicode.Cf):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if len(s) <= MaxTitleLen {
		return s
	}
	const ellipsis = "…"
	cut := MaxTitleLen - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + ellipsis
}

package counter

import (
	"image/color"
	"strings"
	"unicode/utf8"
)

// MaxErrorText bounds the text of an error image, in characters: it may
// hold a counter name that a visitor typed.
const MaxErrorText = 40

// The colours of an error image: white on a red that reads on a light
// page and on a dark one alike (a contrast of 6.9:1), whatever colours
// the tag asked for, which may be what made the error.
var (
	errorFG = color.NRGBA{0xff, 0xff, 0xff, 0xff}
	errorBG = color.NRGBA{0xb6, 0x23, 0x24, 0xff}
)

// minErrorHeight keeps an error image's letters readable at the smallest
// sizes: at 16 pixels high they are drawn at 8.8 pixels per em.
const minErrorHeight = 16

// NewErrorDrawing lays out text (what is wrong, as "no counter blgo" or
// "bad fg") as a small red badge for a tag asked at size, so that a
// mistake in a tag shows on the page instead of a blank. The badge is
// half as tall again as size, as a counter of that size is, within
// minErrorHeight and MaxSize; one that would pass MaxPixels is drawn
// smaller.
// Its letters are Go Regular's, as a badge's label is: nothing is parsed
// to draw it. text is cut to MaxErrorText characters and each one
// without a glyph becomes '?', so a visitor's input drawn in it is
// bounded and harmless.
func NewErrorDrawing(text string, size int) (*Drawing, error) {
	text = ErrorText(text)
	s := DefaultStyle()
	s.Badge, s.NoLabel = true, true
	s.FG, s.ValueBG = errorFG, errorBG
	s.Size = max(minErrorHeight, min(MaxSize, size*3/2))
	for {
		b, err := newBadge(text, s)
		if err == ErrTooLarge && s.Size > minErrorHeight {
			s.Size = max(minErrorHeight, s.Size*3/4)
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Drawing{text: text, style: s, width: b.width, badge: b}, nil
	}
}

// ErrorText is text as an error image draws it: at most MaxErrorText
// characters, the last three of a longer one "...", and each character
// that Go Regular's Latin-1 set has no glyph for, or that is not
// printable, a '?'.
func ErrorText(text string) string {
	var b strings.Builder
	n := 0
	for i, r := range text {
		if n == MaxErrorText-3 && utf8.RuneCountInString(text[i:]) > 3 {
			b.WriteString("...")
			break
		}
		if labelIndex(r) < 0 || r == 0xa0 || r == 0xad {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return "?"
	}
	return b.String()
}

// QuerySize returns the size= of a query that is refused for some other
// reason, for the error image to take: MinSize to MaxSize, or the
// default size when size is missing, bad or given twice, or the query
// is longer than MaxQueryLen.
func QuerySize(rawQuery string) int {
	size := DefaultStyle().Size
	if len(rawQuery) > MaxQueryLen {
		return size
	}
	found := false
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != "size" {
			continue
		}
		n, ok := parseBounded(v, MinSize, MaxSize)
		if found || !ok {
			return DefaultStyle().Size
		}
		size, found = n, true
	}
	return size
}

package counter

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxPixels bounds every image drawn, whatever the style and count.
const MaxPixels = 1 << 19

// MaxTextLen is the longest text drawn: a uint64 has at most 20 digits.
const MaxTextLen = 20

// MaxSetText is the longest text a digit set draws: a prefix= and a
// count of MaxTextLen digits with a comma between thousands.
const MaxSetText = MaxPrefixLen + MaxTextLen + (MaxTextLen-1)/3

// ErrTooLarge reports an image that would exceed MaxPixels.
var ErrTooLarge = errors.New("image over the pixel budget")

// Digits returns n in decimal, zero-padded to at least width digits.
func Digits(n uint64, width int) string {
	s := strconv.FormatUint(n, 10)
	for len(s) < width && len(s) < MaxTextLen {
		s = "0" + s
	}
	return s
}

// Placeholder returns width dashes, drawn when a count cannot be known.
func Placeholder(width int) string {
	b := make([]byte, max(1, min(width, MaxTextLen)))
	for i := range b {
		b[i] = '-'
	}
	return string(b)
}

// MaxErrorText bounds the text of an error image, in characters: it may
// hold a counter name that a visitor typed.
const MaxErrorText = 40

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
		if !LabelRune(r) || r == 0xa0 || r == 0xad {
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

// FontNames returns the fonts a style can ask for, in the order of
// counter/draw's outlines (TestFontNames there checks it).
func FontNames() []string { return []string{"mono", "mono-bold", "regular", "bold"} }

func knownFont(name string) bool {
	for _, f := range FontNames() {
		if f == name {
			return true
		}
	}
	return false
}

// LabelRune reports whether a badge's label (and an error image) has a
// glyph for r: printable ASCII and the printable Latin-1 supplement.
func LabelRune(r rune) bool { return 0x20 <= r && r <= 0x7e || 0xa0 <= r && r <= 0xff }

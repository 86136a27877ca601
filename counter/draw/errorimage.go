package draw

import (
	"hitcounter/counter"

	"image/color"
)

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
	text = counter.ErrorText(text)
	s := counter.DefaultStyle()
	s.Badge, s.NoLabel = true, true
	s.FG, s.ValueBG = errorFG, errorBG
	s.Size = max(minErrorHeight, min(counter.MaxSize, size*3/2))
	for {
		b, err := newBadge(text, s)
		if err == counter.ErrTooLarge && s.Size > minErrorHeight {
			s.Size = max(minErrorHeight, s.Size*3/4)
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Drawing{text: text, style: s, width: b.width, badge: b}, nil
	}
}

package draw

import (
	"golang.org/x/image/math/fixed"

	"hitcounter/counter"
)

// glyphRunes are the characters a counter draws, in the order of
// fontOutlines.glyphs: the digits and '-', whose cells size every cell
// (cellRunes), then the pieces of an abbreviated count
// (counter.AbbreviationRunes) and the comma of comma=1, drawn only where
// they fit those cells.
const glyphRunes = "0123456789-" + counter.AbbreviationRunes + ","

// cellRunes is how many of glyphRunes size a cell: the digits and '-'.
const cellRunes = 11

// Segment operators, numbered as in golang.org/x/image/font/sfnt.
const (
	opMove = iota
	opLine
	opQuad
	opCube
)

// fontOutlines holds the outlines of glyphRunes in one of the Go fonts.
//
// They are extracted from golang.org/x/image/font/gofont with sfnt when the
// table in outlines.go is generated (go test ./counter/draw -update), rather
// than parsed from the TrueType file on every hit: linking the four fonts
// and their parser made every CGI process pay for a much larger binary,
// in start-up time and resident memory, to draw eleven glyphs. TestOutlines
// checks that the table still matches what sfnt reads from the fonts.
type fontOutlines struct {
	name       string
	unitsPerEm int32
	glyphs     [len(glyphRunes)]outline
}

// outline is one glyph in font units, with y growing down, as sfnt loads it
// at one pixel per unit.
type outline struct {
	advance int32
	// segs holds each segment as its operator followed by its 1, 2 or 3
	// points as x, y pairs.
	segs []int16
}

// segment is a scaled outline segment.
type segment struct {
	op  int16
	pts [3]fixed.Point26_6
}

func pointsOf(op int16) int {
	switch op {
	case opQuad:
		return 2
	case opCube:
		return 3
	}
	return 1
}

// lookupFont returns the outlines of the named font.
func lookupFont(name string) (*fontOutlines, bool) {
	for i := range outlines {
		if outlines[i].name == name {
			return &outlines[i], true
		}
	}
	return nil, false
}

// glyph returns the outline of r, one of glyphRunes.
func (f *fontOutlines) glyph(r byte) *outline {
	for i := 0; i < len(glyphRunes); i++ {
		if glyphRunes[i] == r {
			return &f.glyphs[i]
		}
	}
	return nil
}

// scale converts font units to pixels at ppem, rounding as sfnt does so
// that drawings match those made from the font file itself.
func (f *fontOutlines) scale(units int32, ppem fixed.Int26_6) fixed.Int26_6 {
	x := fixed.Int26_6(units) * ppem
	upem := fixed.Int26_6(f.unitsPerEm)
	if x >= 0 {
		x += upem / 2
	} else {
		x -= upem / 2
	}
	return x / upem
}

// segments returns the outline of o scaled to ppem.
func (f *fontOutlines) segments(o *outline, ppem fixed.Int26_6) []segment {
	var out []segment
	for i := 0; i < len(o.segs); {
		s := segment{op: o.segs[i]}
		i++
		for j := 0; j < pointsOf(s.op); j++ {
			s.pts[j] = fixed.Point26_6{
				X: f.scale(int32(o.segs[i]), ppem),
				Y: f.scale(int32(o.segs[i+1]), ppem),
			}
			i += 2
		}
		out = append(out, s)
	}
	return out
}

// bounds returns the box of every point of segs, control points included,
// as sfnt.Segments.Bounds does.
func bounds(segs []segment) fixed.Rectangle26_6 {
	if len(segs) == 0 {
		return fixed.Rectangle26_6{}
	}
	b := fixed.Rectangle26_6{Min: segs[0].pts[0], Max: segs[0].pts[0]}
	for _, s := range segs {
		for _, p := range s.pts[:pointsOf(s.op)] {
			b.Min.X, b.Min.Y = min(b.Min.X, p.X), min(b.Min.Y, p.Y)
			b.Max.X, b.Max.Y = max(b.Max.X, p.X), max(b.Max.Y, p.Y)
		}
	}
	return b
}

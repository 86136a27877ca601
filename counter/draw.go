package counter

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strconv"
	"strings"

	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// MaxPixels bounds every image drawn, whatever the style and count.
const MaxPixels = 1 << 19

// MaxTextLen is the longest text drawn: a uint64 has at most 20 digits.
const MaxTextLen = 20

// levels is the number of coverage steps from BG to FG. Eight still make
// smooth edges, fit a 4-bit PNG palette, and keep every default 6-digit PNG
// under 800 bytes (16 levels made up to 891).
const levels = 8

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

// Drawing is a text of digits laid out in a style, ready to be encoded.
// Glyphs are rasterised one cell each, so every cell is small enough for the
// rasteriser's integer arithmetic and the same digit is drawn only once.
type Drawing struct {
	text  string
	style Style
	font  *fontOutlines
	ppem  fixed.Int26_6

	cellW, padX, baseline int
	width, height         int
}

// NewDrawing lays text (digits and '-' only) out in style s.
func NewDrawing(text string, s Style) (*Drawing, error) {
	if len(text) == 0 || len(text) > MaxTextLen {
		return nil, fmt.Errorf("draw: text of %d characters", len(text))
	}
	for i := 0; i < len(text); i++ {
		if strings.IndexByte(glyphRunes, text[i]) < 0 {
			return nil, fmt.Errorf("draw: %q is not a digit", text[i])
		}
	}
	if s.Size < MinSize || s.Size > MaxSize {
		return nil, fmt.Errorf("draw: size %d out of bounds", s.Size)
	}
	f, ok := lookupFont(s.Font)
	if !ok {
		return nil, fmt.Errorf("draw: unknown font %q", s.Font)
	}
	d := &Drawing{text: text, style: s, font: f}
	if err := d.layout(); err != nil {
		return nil, err
	}
	return d, nil
}

// layout scales the font so that a '0' is Size pixels tall and sizes a
// cell to hold any digit.
func (d *Drawing) layout() error {
	f := d.font
	zero := bounds(f.segments(f.glyph('0'), fixed.I(int(f.unitsPerEm)))) // one pixel per unit
	zeroH := int64(zero.Max.Y - zero.Min.Y)
	if zeroH <= 0 {
		return errors.New("draw: font has an empty '0'")
	}
	d.ppem = fixed.Int26_6(int64(d.style.Size) * 64 * int64(f.unitsPerEm) * 64 / zeroH)

	var top, bottom, advance fixed.Int26_6
	for i := range f.glyphs {
		g := &f.glyphs[i]
		b := bounds(f.segments(g, d.ppem))
		top, bottom = min(top, b.Min.Y), max(bottom, b.Max.Y)
		advance = max(advance, f.scale(g.advance, d.ppem))
	}
	pad := max(1, d.style.Size/5)
	d.cellW = advance.Ceil()
	d.padX = pad
	d.baseline = pad - top.Floor()
	d.width = 2*pad + len(d.text)*d.cellW
	d.height = 2*pad + bottom.Ceil() - top.Floor()
	if d.width*d.height > MaxPixels {
		return ErrTooLarge
	}
	return nil
}

// Size returns the width and height of the image in pixels.
func (d *Drawing) Size() (width, height int) { return d.width, d.height }

// segments returns the outline of character c with its origin at (0, 0).
func (d *Drawing) segments(c byte) []segment {
	return d.font.segments(d.font.glyph(c), d.ppem)
}

// Paletted rasterises the text into an image whose palette index is the
// coverage level: 0 is pure BG, levels-1 pure FG.
func (d *Drawing) Paletted() *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, d.width, d.height), d.palette())
	var cells [len(glyphRunes)][]uint8
	for i := 0; i < len(d.text); i++ {
		c := d.text[i]
		k := strings.IndexByte(glyphRunes, c)
		if cells[k] == nil {
			cells[k] = d.rasterise(c)
		}
		x0 := d.padX + i*d.cellW
		for y := 0; y < d.height; y++ {
			copy(img.Pix[y*img.Stride+x0:], cells[k][y*d.cellW:(y+1)*d.cellW])
		}
	}
	return img
}

// rasterise draws one glyph into a cell-sized grid of coverage levels.
func (d *Drawing) rasterise(c byte) []uint8 {
	z := vector.NewRasterizer(d.cellW, d.height)
	z.DrawOp = draw.Src
	by := float32(d.baseline)
	pt := func(p fixed.Point26_6) (float32, float32) {
		return float32(p.X) / 64, by + float32(p.Y)/64
	}
	for i, s := range d.segments(c) {
		a := s.pts
		switch s.op {
		case opMove:
			if i > 0 {
				z.ClosePath()
			}
			z.MoveTo(pt(a[0]))
		case opLine:
			z.LineTo(pt(a[0]))
		case opQuad:
			x1, y1 := pt(a[0])
			x2, y2 := pt(a[1])
			z.QuadTo(x1, y1, x2, y2)
		case opCube:
			x1, y1 := pt(a[0])
			x2, y2 := pt(a[1])
			x3, y3 := pt(a[2])
			z.CubeTo(x1, y1, x2, y2, x3, y3)
		}
	}
	z.ClosePath()
	mask := image.NewAlpha(image.Rect(0, 0, d.cellW, d.height))
	z.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	for i, a := range mask.Pix {
		mask.Pix[i] = uint8((int(a)*(levels-1) + 127) / 255)
	}
	return mask.Pix
}

// palette holds, for each coverage level, FG drawn over BG with that
// coverage (Porter-Duff "over", in premultiplied space): a translucent FG
// tints an opaque BG instead of punching a hole in it, and over a
// transparent BG the edges fade out rather than darken.
func (d *Drawing) palette() color.Palette {
	fg, bg := d.style.FG, d.style.BG
	p := make(color.Palette, levels)
	for i := range p {
		t := float64(i) / (levels - 1)
		srcA := float64(fg.A) / 255 * t
		bgA := float64(bg.A) / 255
		a := srcA + bgA*(1-srcA)
		c := color.NRGBA{A: uint8(a*255 + 0.5)}
		if a > 0 {
			mix := func(f, b uint8) uint8 {
				pm := float64(f)*srcA + float64(b)*bgA*(1-srcA)
				return uint8(min(255, pm/a+0.5))
			}
			c.R, c.G, c.B = mix(fg.R, bg.R), mix(fg.G, bg.G), mix(fg.B, bg.B)
		}
		p[i] = c
	}
	return p
}

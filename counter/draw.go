package counter

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// MaxPixels bounds every image drawn, whatever the style and count.
const MaxPixels = 1 << 19

// MaxTextLen is the longest text drawn: a uint64 has at most 20 digits.
const MaxTextLen = 20

// levels is the number of coverage steps from BG to FG. Sixteen make
// smooth edges and fit a 4-bit PNG palette, which compresses far better
// than RGBA.
const levels = 16

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
	font  *sfnt.Font
	buf   sfnt.Buffer
	ppem  fixed.Int26_6

	cellW, padX, baseline int
	width, height         int
}

// NewDrawing lays text (digits and '-' only) out in style s. The font is
// parsed here, so nothing is parsed unless an image is drawn.
func NewDrawing(text string, s Style) (*Drawing, error) {
	if len(text) == 0 || len(text) > MaxTextLen {
		return nil, fmt.Errorf("draw: text of %d characters", len(text))
	}
	for i := 0; i < len(text); i++ {
		if (text[i] < '0' || text[i] > '9') && text[i] != '-' {
			return nil, fmt.Errorf("draw: %q is not a digit", text[i])
		}
	}
	if s.Size < MinSize || s.Size > MaxSize {
		return nil, fmt.Errorf("draw: size %d out of bounds", s.Size)
	}
	data, ok := fontData(s.Font)
	if !ok {
		return nil, fmt.Errorf("draw: unknown font %q", s.Font)
	}
	f, err := sfnt.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("draw: parse font %s: %w", s.Font, err)
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
	unit := fixed.I(int(d.font.UnitsPerEm())) // one font unit per pixel
	zero, _, err := d.bounds('0', unit)
	if err != nil {
		return err
	}
	zeroH := int64(zero.Max.Y - zero.Min.Y)
	if zeroH <= 0 {
		return errors.New("draw: font has an empty '0'")
	}
	d.ppem = fixed.Int26_6(int64(d.style.Size) * 64 * int64(unit) / zeroH)

	var top, bottom, advance fixed.Int26_6
	for _, r := range "0123456789-" {
		b, adv, err := d.bounds(r, d.ppem)
		if err != nil {
			return err
		}
		top, bottom, advance = min(top, b.Min.Y), max(bottom, b.Max.Y), max(advance, adv)
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

func (d *Drawing) bounds(r rune, ppem fixed.Int26_6) (fixed.Rectangle26_6, fixed.Int26_6, error) {
	x, err := d.font.GlyphIndex(&d.buf, r)
	if err == nil && x == 0 {
		err = errors.New("no glyph")
	}
	if err != nil {
		return fixed.Rectangle26_6{}, 0, fmt.Errorf("draw: glyph %q in %s: %w", r, d.style.Font, err)
	}
	b, adv, err := d.font.GlyphBounds(&d.buf, x, ppem, font.HintingNone)
	if err != nil {
		return b, adv, fmt.Errorf("draw: bounds of %q in %s: %w", r, d.style.Font, err)
	}
	return b, adv, nil
}

// Size returns the width and height of the image in pixels.
func (d *Drawing) Size() (width, height int) { return d.width, d.height }

// segments returns the outline of glyph r with its origin at (0, 0).
func (d *Drawing) segments(r rune) (sfnt.Segments, error) {
	x, err := d.font.GlyphIndex(&d.buf, r)
	if err != nil {
		return nil, fmt.Errorf("draw: glyph %q: %w", r, err)
	}
	segs, err := d.font.LoadGlyph(&d.buf, x, d.ppem, nil)
	if err != nil {
		return nil, fmt.Errorf("draw: load glyph %q: %w", r, err)
	}
	return segs, nil
}

// Paletted rasterises the text into an image whose palette index is the
// coverage level: 0 is pure BG, levels-1 pure FG.
func (d *Drawing) Paletted() (*image.Paletted, error) {
	img := image.NewPaletted(image.Rect(0, 0, d.width, d.height), d.palette())
	if img.Pix == nil {
		return nil, ErrTooLarge
	}
	cells := map[byte][]uint8{}
	for i := 0; i < len(d.text); i++ {
		c := d.text[i]
		cell, ok := cells[c]
		if !ok {
			var err error
			if cell, err = d.rasterise(rune(c)); err != nil {
				return nil, err
			}
			cells[c] = cell
		}
		x0 := d.padX + i*d.cellW
		for y := 0; y < d.height; y++ {
			copy(img.Pix[y*img.Stride+x0:], cell[y*d.cellW:(y+1)*d.cellW])
		}
	}
	return img, nil
}

// rasterise draws one glyph into a cell-sized grid of coverage levels.
func (d *Drawing) rasterise(r rune) ([]uint8, error) {
	segs, err := d.segments(r)
	if err != nil {
		return nil, err
	}
	z := vector.NewRasterizer(d.cellW, d.height)
	z.DrawOp = draw.Src
	by := float32(d.baseline)
	pt := func(p fixed.Point26_6) (float32, float32) {
		return float32(p.X) / 64, by + float32(p.Y)/64
	}
	for i, s := range segs {
		a := s.Args
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			if i > 0 {
				z.ClosePath()
			}
			z.MoveTo(pt(a[0]))
		case sfnt.SegmentOpLineTo:
			z.LineTo(pt(a[0]))
		case sfnt.SegmentOpQuadTo:
			x1, y1 := pt(a[0])
			x2, y2 := pt(a[1])
			z.QuadTo(x1, y1, x2, y2)
		case sfnt.SegmentOpCubeTo:
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
	return mask.Pix, nil
}

// palette blends BG into FG in levels steps, in premultiplied space so that
// a transparent BG fades FG's opacity rather than darkening its colour.
func (d *Drawing) palette() color.Palette {
	fg, bg := d.style.FG, d.style.BG
	p := make(color.Palette, levels)
	for i := range p {
		t := float64(i) / (levels - 1)
		a := float64(fg.A)*t + float64(bg.A)*(1-t)
		c := color.NRGBA{A: uint8(a + 0.5)}
		if a > 0 {
			mix := func(f, b uint8) uint8 {
				pm := float64(f)*float64(fg.A)*t + float64(b)*float64(bg.A)*(1-t)
				return uint8(min(255, pm/a+0.5))
			}
			c.R, c.G, c.B = mix(fg.R, bg.R), mix(fg.G, bg.G), mix(fg.B, bg.B)
		}
		p[i] = c
	}
	return p
}

package draw

import (
	"hitcounter/counter"

	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"sync"

	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// levels is the number of coverage steps from BG to FG. Eight still make
// smooth edges, fit a 4-bit PNG palette, and keep every default 6-digit PNG
// under 800 bytes (16 levels made up to 891).
const levels = 8

// Drawing is a text of digits laid out in a style, ready to be encoded.
// Glyphs are rasterised one cell each, so every cell is small enough for the
// rasteriser's integer arithmetic and the same digit is drawn only once.
type Drawing struct {
	text  string
	style counter.Style
	*glyphSet
	width int
	badge *badge          // set for a badge, which has glyph sets of its own
	look  *image.Paletted // set for a built-in look (look.go), drawn whole
}

// glyphSet is a font laid out at one size: the metrics that every drawing
// in that font and size shares, and each glyph's cell, rasterised when it is
// first drawn.
type glyphSet struct {
	font *fontOutlines
	ppem fixed.Int26_6

	cellW, padX, baseline, height int
	// fits says which of glyphRunes a cell holds whole: every digit and
	// '-', and a letter of an abbreviated count only if it is no wider
	// and no taller than they leave room for.
	fits [len(glyphRunes)]bool
	// lift is how many pixels above the baseline a glyph is drawn: the
	// comma's, whose tail would pass the cell.
	lift [len(glyphRunes)]int

	mu    sync.Mutex
	cells [len(glyphRunes)][]uint8
}

// NewDrawing lays text (digits and '-' only) out in style s.
func NewDrawing(text string, s counter.Style) (*Drawing, error) {
	return (*GlyphCache)(nil).NewDrawing(text, s)
}

// GlyphCache keeps the glyph sets of a long-lived process (FastCGI, the
// local server), so that each glyph of a font and size is rasterised once,
// not once a hit. A nil cache keeps nothing. It holds at most maxGlyphSets
// sets; past that, drawings get sets of their own.
type GlyphCache struct {
	mu   sync.Mutex
	sets map[glyphKey]*glyphSet
}

type glyphKey struct {
	font string
	size int
}

// maxGlyphSets bounds a cache, whatever styles visitors ask for: at the
// largest size a set is about 150 KB.
const maxGlyphSets = 64

// NewDrawing lays text (digits and '-' only) out in style s, with the
// cache's glyph set for its font and size.
func (c *GlyphCache) NewDrawing(text string, s counter.Style) (*Drawing, error) {
	if len(text) == 0 || len(text) > counter.MaxTextLen {
		return nil, fmt.Errorf("draw: text of %d characters", len(text))
	}
	for i := 0; i < len(text); i++ {
		k := strings.IndexByte(glyphRunes, text[i])
		if k < 0 || k >= cellRunes && !s.Badge && s.Look != counter.LookFont {
			return nil, fmt.Errorf("draw: %q is not a digit", text[i])
		}
	}
	if s.Look != counter.LookFont && !s.Badge {
		img, err := newLook(text, s, c)
		if err != nil {
			return nil, err
		}
		return &Drawing{text: text, style: s, width: img.Rect.Dx(), look: img}, nil
	}
	if s.Badge {
		b, err := newBadge(text, s)
		if err != nil {
			return nil, err
		}
		return &Drawing{text: text, style: s, width: b.width, badge: b}, nil
	}
	set, err := c.glyphSet(s)
	if err != nil {
		return nil, err
	}
	if !set.holds(text) {
		return nil, fmt.Errorf("draw: %q does not fit the cells of %s at size %d", text, s.Font, s.Size)
	}
	d := &Drawing{text: text, style: s, glyphSet: set}
	d.width = 2*set.padX + len(text)*set.cellW
	if d.width*d.height > counter.MaxPixels {
		return nil, counter.ErrTooLarge
	}
	return d, nil
}

func (c *GlyphCache) glyphSet(s counter.Style) (*glyphSet, error) {
	if c == nil {
		return newGlyphSet(s)
	}
	key := glyphKey{s.Font, s.Size}
	c.mu.Lock()
	defer c.mu.Unlock()
	if set, ok := c.sets[key]; ok {
		return set, nil
	}
	set, err := newGlyphSet(s)
	if err != nil || len(c.sets) >= maxGlyphSets {
		return set, err
	}
	if c.sets == nil {
		c.sets = make(map[glyphKey]*glyphSet)
	}
	c.sets[key] = set
	return set, nil
}

// newGlyphSet scales the font so that a '0' is Size pixels tall and sizes
// a cell to hold any digit.
func newGlyphSet(s counter.Style) (*glyphSet, error) {
	if s.Size < counter.MinSize || s.Size > counter.MaxSize {
		return nil, fmt.Errorf("draw: size %d out of bounds", s.Size)
	}
	f, ok := lookupFont(s.Font)
	if !ok {
		return nil, fmt.Errorf("draw: unknown font %q", s.Font)
	}
	zero := bounds(f.segments(f.glyph('0'), fixed.I(int(f.unitsPerEm)))) // one pixel per unit
	zeroH := int64(zero.Max.Y - zero.Min.Y)
	if zeroH <= 0 {
		return nil, errors.New("draw: font has an empty '0'")
	}
	g := &glyphSet{font: f}
	g.ppem = fixed.Int26_6(int64(s.Size) * 64 * int64(f.unitsPerEm) * 64 / zeroH)

	var top, bottom, advance fixed.Int26_6
	var box [len(glyphRunes)]fixed.Rectangle26_6
	for i := range f.glyphs {
		o := &f.glyphs[i]
		box[i] = bounds(f.segments(o, g.ppem))
		if i < cellRunes {
			top, bottom = min(top, box[i].Min.Y), max(bottom, box[i].Max.Y)
			advance = max(advance, f.scale(o.advance, g.ppem))
		}
	}
	pad := max(1, s.Size/5)
	g.cellW = advance.Ceil()
	g.padX = pad
	g.baseline = pad - top.Floor()
	g.height = 2*pad + bottom.Ceil() - top.Floor()
	for i, b := range box {
		if over := g.baseline + b.Max.Y.Ceil() - g.height; glyphRunes[i] == ',' && over > 0 {
			// A comma's tail reaches below the digits' cells: it is
			// drawn that much higher, as a counter's comma pieces sit.
			g.lift[i] = over
		}
		base := g.baseline - g.lift[i]
		g.fits[i] = i < cellRunes || b.Min.X >= 0 && b.Max.X.Ceil() <= g.cellW &&
			base+b.Min.Y.Floor() >= 0 && base+b.Max.Y.Ceil() <= g.height
	}
	if g.cellW*g.height > counter.MaxPixels {
		return nil, counter.ErrTooLarge
	}
	return g, nil
}

// holds reports whether every character of text is one of glyphRunes that
// fits the set's cells.
func (g *glyphSet) holds(text string) bool {
	for i := 0; i < len(text); i++ {
		k := strings.IndexByte(glyphRunes, text[i])
		if k < 0 || !g.fits[k] {
			return false
		}
	}
	return true
}

// CanDraw reports whether style s draws every character of text, a count
// as counter.Digits or counter.Abbreviate writes it: a badge does, and a
// font whose cells hold the letters at that size; a look draws digits
// alone, and an owner's digit set (which this package draws elsewhere)
// is not asked. A style that cannot draws the full number instead.
func (c *GlyphCache) CanDraw(text string, s counter.Style) bool {
	switch {
	case len(text) > counter.MaxTextLen:
		return false
	case s.Set != "":
		return false
	case s.Badge:
		for _, r := range text {
			if !counter.LabelRune(r) {
				return false
			}
		}
		return true
	case s.Look != counter.LookFont:
		for i := 0; i < len(text); i++ {
			if k := strings.IndexByte(glyphRunes, text[i]); k < 0 || k >= cellRunes {
				return false
			}
		}
		return true
	}
	set, err := c.glyphSet(s)
	return err == nil && set.holds(text)
}

// Size returns the width and height of the image in pixels.
func (d *Drawing) Size() (width, height int) {
	if d.badge != nil {
		return d.badge.width, d.badge.height
	}
	if d.look != nil {
		return d.look.Rect.Dx(), d.look.Rect.Dy()
	}
	return d.width, d.height
}

// segments returns the outline of character c with its origin at (0, 0).
func (g *glyphSet) segments(c byte) []segment {
	return g.font.segments(g.font.glyph(c), g.ppem)
}

// cell returns character c rasterised into a cell-sized grid of coverage
// levels, drawing it the first time it is asked for.
func (g *glyphSet) cell(c byte) []uint8 {
	k := strings.IndexByte(glyphRunes, c)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cells[k] == nil {
		g.cells[k] = g.rasterise(c)
	}
	return g.cells[k]
}

// Paletted rasterises the text into an image whose palette index is the
// coverage level: 0 is pure BG, levels-1 pure FG.
func (d *Drawing) Paletted() *image.Paletted {
	if d.look != nil {
		// A copy: encoding a GIF rewrites the palette.
		img := *d.look
		img.Pix = append([]uint8(nil), d.look.Pix...)
		img.Palette = append(color.Palette(nil), d.look.Palette...)
		return &img
	}
	img := image.NewPaletted(image.Rect(0, 0, d.width, d.height), d.palette())
	for i := 0; i < len(d.text); i++ {
		cell := d.cell(d.text[i])
		x0 := d.padX + i*d.cellW
		for y := 0; y < d.height; y++ {
			copy(img.Pix[y*img.Stride+x0:], cell[y*d.cellW:(y+1)*d.cellW])
		}
	}
	return img
}

// rasterise draws one glyph into a cell-sized grid of coverage levels.
func (g *glyphSet) rasterise(c byte) []uint8 {
	z := vector.NewRasterizer(g.cellW, g.height)
	z.DrawOp = draw.Src
	addOutline(z, g.segments(c), 0, float32(g.base(c)))
	return coverageLevels(z, g.cellW, g.height)
}

// base is the baseline character c is drawn on.
func (g *glyphSet) base(c byte) int {
	if k := strings.IndexByte(glyphRunes, c); k >= 0 {
		return g.baseline - g.lift[k]
	}
	return g.baseline
}

// coverageLevels draws what z holds into a w by h grid of coverage
// levels, 0 for none to levels-1 for full.
func coverageLevels(z *vector.Rasterizer, w, h int) []uint8 {
	mask := image.NewAlpha(image.Rect(0, 0, w, h))
	z.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	for i, a := range mask.Pix {
		mask.Pix[i] = uint8((int(a)*(levels-1) + 127) / 255)
	}
	return mask.Pix
}

// addOutline adds a glyph's segments to z with its origin at (x, y).
func addOutline(z *vector.Rasterizer, segs []segment, x, y float32) {
	pt := func(p fixed.Point26_6) (float32, float32) {
		return x + float32(p.X)/64, y + float32(float32(p.Y)/64)
	}
	for i, s := range segs {
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
			quadTo(z, x1, y1, x2, y2)
		case opCube:
			x1, y1 := pt(a[0])
			x2, y2 := pt(a[1])
			x3, y3 := pt(a[2])
			cubeTo(z, x1, y1, x2, y2, x3, y3)
		}
	}
	if len(segs) > 0 {
		z.ClosePath()
	}
}

// palette holds, for each coverage level, FG drawn over BG with that
// coverage (Porter-Duff "over", in premultiplied space): a translucent FG
// tints an opaque BG instead of punching a hole in it, and over a
// transparent BG the edges fade out rather than darken. Products are
// rounded explicitly, as in flatten.go, so that no architecture fuses them
// into multiply-adds and mixes a colour one unit apart.
func (d *Drawing) palette() color.Palette {
	fg, bg := d.style.FG, d.style.BG
	p := make(color.Palette, levels)
	for i := range p {
		t := float64(i) / (levels - 1)
		srcA := float64(float64(fg.A) / 255 * t)
		bgA := float64(bg.A) / 255
		a := srcA + float64(bgA*(1-srcA))
		c := color.NRGBA{A: uint8(float64(a*255) + 0.5)}
		if a > 0 {
			mix := func(f, b uint8) uint8 {
				pm := float64(float64(f)*srcA) + float64(float64(b)*bgA*(1-srcA))
				return uint8(min(255, pm/a+0.5))
			}
			c.R, c.G, c.B = mix(fg.R, bg.R), mix(fg.G, bg.G), mix(fg.B, bg.B)
		}
		p[i] = c
	}
	return p
}

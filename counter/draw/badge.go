package draw

import (
	"hitcounter/counter"

	"bufio"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"io"
	"strconv"

	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// labelOutlines are the glyphs a badge draws its label and count with, in
// labelIndex order, from Go Regular; labeloutlines.go is generated, as
// outlines.go is, and checked against the font by TestLabelOutlines.
type labelOutlines struct {
	unitsPerEm int32
	glyphs     [numLabelGlyphs]outline
}

// numLabelGlyphs is the number of label characters: printable ASCII and
// the printable Latin-1 supplement.
const numLabelGlyphs = 95 + 96

// labelIndex returns the index of r in labelFont, or -1 when a label
// cannot hold it.
func labelIndex(r rune) int {
	switch {
	case 0x20 <= r && r <= 0x7e:
		return int(r - 0x20)
	case 0xa0 <= r && r <= 0xff:
		return 95 + int(r-0xa0)
	}
	return -1
}

// The shape of a badge at a height of 20 pixels, as README badges have
// it; other sizes scale it.
const (
	badgeHeight   = 20
	badgeFontSize = 11 // pixels per em
	badgeBaseline = 14
	badgePad      = 6
	badgeRadius   = 3
)

// badge is a label and a count laid out side by side.
type badge struct {
	style          counter.Style
	label, value   string
	ppem           fixed.Int26_6
	labelW, width  int // the label part's width, and the whole
	height         int
	baseline, pad  int
	labelX, valueX fixed.Int26_6 // where each text starts
}

// newBadge lays label and text out in style s.
func newBadge(text string, s counter.Style) (*badge, error) {
	if s.Size < counter.MinSize || s.Size > counter.MaxSize {
		return nil, fmt.Errorf("draw: size %d out of bounds", s.Size)
	}
	label := s.Label
	if label == "" && !s.NoLabel {
		label = counter.BadgeLabel
	}
	if err := counter.CheckLabel(label); err != nil {
		return nil, err
	}
	b := &badge{style: s, label: label, value: text, height: s.Size}
	b.ppem = fixed.Int26_6(s.Size * badgeFontSize * 64 / badgeHeight)
	b.baseline = (s.Size*badgeBaseline + badgeHeight/2) / badgeHeight
	b.pad = max(2, (s.Size*badgePad+badgeHeight/2)/badgeHeight)
	if label != "" {
		b.labelW = 2*b.pad + b.textWidth(label).Ceil()
	}
	b.labelX = fixed.I(b.pad)
	b.valueX = fixed.I(b.labelW + b.pad)
	b.width = b.labelW + 2*b.pad + b.textWidth(text).Ceil()
	if b.width*b.height > counter.MaxPixels {
		return nil, counter.ErrTooLarge
	}
	return b, nil
}

// font is labelFont with what scaling needs.
func (b *badge) font() *fontOutlines {
	return &fontOutlines{name: "regular", unitsPerEm: labelFont.unitsPerEm}
}

// textWidth is the advance of text at the badge's size.
func (b *badge) textWidth(text string) fixed.Int26_6 {
	f := b.font()
	var w fixed.Int26_6
	for _, r := range text {
		w += f.scale(labelFont.glyphs[labelIndex(r)].advance, b.ppem)
	}
	return w
}

// eachGlyph calls fn with the outline of each character of text, placed
// from x on.
func (b *badge) eachGlyph(text string, x fixed.Int26_6, fn func(segs []segment, x fixed.Int26_6)) {
	f := b.font()
	for _, r := range text {
		o := &labelFont.glyphs[labelIndex(r)]
		fn(f.segments(o, b.ppem), x)
		x += f.scale(o.advance, b.ppem)
	}
}

// Paletted draws the badge. Its palette holds a clear colour, then for
// the label and the count parts FG over the part's background at each
// coverage level, then the part's background at each partial coverage of
// the rounded corners.
func (b *badge) Paletted() *image.Paletted {
	s := b.style
	bgs := [2]color.NRGBA{s.LabelBG, s.ValueBG}
	pal := color.Palette{color.NRGBA{}}
	for _, bg := range bgs {
		for _, c := range overLevels(s.FG, bg) {
			pal = append(pal, c)
		}
	}
	for _, bg := range bgs {
		for l := 1; l < levels-1; l++ {
			c := bg
			c.A = uint8((int(bg.A)*l + (levels-1)/2) / (levels - 1))
			pal = append(pal, c)
		}
	}
	shape := b.rasterise(func(z *vector.Rasterizer) { roundedRect(z, float32(b.width), float32(b.height), b.radius()) })
	text := b.rasterise(func(z *vector.Rasterizer) {
		add := func(segs []segment, x fixed.Int26_6) { addOutline(z, segs, float32(x)/64, float32(b.baseline)) }
		b.eachGlyph(b.label, b.labelX, add)
		b.eachGlyph(b.value, b.valueX, add)
	})
	img := image.NewPaletted(image.Rect(0, 0, b.width, b.height), pal)
	for y := 0; y < b.height; y++ {
		for x := 0; x < b.width; x++ {
			i := y*b.width + x
			part := 0
			if x >= b.labelW {
				part = 1
			}
			switch cover := shape[i]; {
			case cover == 0:
			case cover == levels-1:
				img.Pix[i] = uint8(1 + part*levels + int(text[i]))
			default:
				img.Pix[i] = uint8(1 + 2*levels + part*(levels-2) + int(cover) - 1)
			}
		}
	}
	return img
}

func (b *badge) radius() float32 {
	return float32(max(1, (b.height*badgeRadius+badgeHeight/2)/badgeHeight))
}

// rasterise draws what add adds into a badge-sized grid of coverage levels.
func (b *badge) rasterise(add func(z *vector.Rasterizer)) []uint8 {
	z := vector.NewRasterizer(b.width, b.height)
	z.DrawOp = draw.Src
	add(z)
	return coverageLevels(z, b.width, b.height)
}

// roundedRect adds a w by h rectangle with corners of radius r to z.
func roundedRect(z *vector.Rasterizer, w, h, r float32) {
	z.MoveTo(r, 0)
	z.LineTo(w-r, 0)
	quadTo(z, w, 0, w, r)
	z.LineTo(w, h-r)
	quadTo(z, w, h, w-r, h)
	z.LineTo(r, h)
	quadTo(z, 0, h, 0, h-r)
	z.LineTo(0, r)
	quadTo(z, 0, 0, r, 0)
	z.ClosePath()
}

// overLevels holds fg drawn over bg at each coverage level, as a digit
// drawing's palette does.
func overLevels(fg, bg color.NRGBA) color.Palette {
	return (&Drawing{style: counter.Style{FG: fg, BG: bg}}).palette()
}

// encodeSVG writes the badge with its text as outlines, a <title> and an
// aria-label saying it in words for screen readers.
func (b *badge) encodeSVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	wd, ht := strconv.Itoa(b.width), strconv.Itoa(b.height)
	words := html.EscapeString(b.value)
	if b.label != "" {
		words = html.EscapeString(b.label) + ": " + words
	}
	writeSVGHead(bw, b.width, b.height, words)
	fmt.Fprintf(bw, `<clipPath id="r"><rect width="%s" height="%s" rx="%s"/></clipPath><g clip-path="url(#r)">`, wd, ht, strconv.FormatFloat(float64(b.radius()), 'f', -1, 32))
	if b.labelW > 0 {
		fmt.Fprintf(bw, `<rect width="%d" height="%s"%s/>`, b.labelW, ht, svgFill(b.style.LabelBG))
	}
	fmt.Fprintf(bw, `<rect x="%d" width="%d" height="%s"%s/></g>`, b.labelW, b.width-b.labelW, ht, svgFill(b.style.ValueBG))
	fmt.Fprintf(bw, `<path%s d="`, svgFill(b.style.FG))
	write := func(segs []segment, x fixed.Int26_6) {
		writeSVGPath(bw, segs, 0, b.baseline, x)
	}
	b.eachGlyph(b.label, b.labelX, write)
	b.eachGlyph(b.value, b.valueX, write)
	bw.WriteString(`"/></svg>`)
	return bw.Flush()
}

package draw

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// Bounds of a count drawn in a digit set, whatever the set and the query:
// its pixels (digitset.MaxDrawPixels a frame, so that eight digits of
// every set fit at its own size), and its sides, which only keep the
// shape sane.
const (
	MaxSetWidth  = 8192 // pixels
	MaxSetHeight = 1024 // pixels
	// MaxSetFrames bounds an animated GIF's frames.
	MaxSetFrames = 128
	// maxSetWork bounds the pixels an animated GIF's composition writes,
	// scaled digit frames and composed frames counted.
	maxSetWork = 1 << 21
	// smoothCost is what a pixel drawn by the smooth filter counts
	// against maxSetWork, about its cost against a copied one.
	smoothCost = 16
)

// MaxSmoothPixels bounds a drawing scaled with the smooth filter: a pixel
// it mixes costs about twice one copied and compressed (bench-worst.sh),
// so that the costliest smoothed image costs what the costliest plain one
// does.
const MaxSmoothPixels = digitset.MaxDrawPixels / 2

// ErrSetTooLarge reports a count that a digit set would draw in more than
// digitset.MaxDrawPixels (MaxSmoothPixels scaled smooth), or wider than
// MaxSetWidth or higher than MaxSetHeight: a bad request, not a fault.
var ErrSetTooLarge = errors.New("digit set image too large")

// SetOptions are how a digit set is drawn.
type SetOptions struct {
	// Height is the output's height in pixels, 0 for the set's own: the
	// tallest piece is drawn that high, the others in proportion.
	Height int
	// Smooth scales with a smooth filter instead of nearest neighbour.
	Smooth bool
	// Offset is the space between pieces, in output pixels; a negative
	// one overlaps them (Moe-Counter's offset=), each drawn over the one
	// before. Within ±MaxSetOffset.
	Offset int
	// Align places a piece shorter than the tallest.
	Align counter.Align
	// Dim dims an SVG as Moe-Counter's darkmode= does: in the viewer's
	// dark mode (DimAuto) or always (DimAlways).
	Dim counter.Dim
}

// SetOptionsOf returns the options style asks of set s (its header):
// scale= makes the set's own height its multiple, as Moe-Counter's does
// each piece's size.
func SetOptionsOf(s *digitset.Set, style counter.Style) SetOptions {
	o := SetOptions{Height: style.SetHeight, Smooth: style.Smooth, Offset: style.Offset, Align: style.Align, Dim: style.Dim}
	if style.Scale != 0 {
		o.Height = max(1, (s.Height*style.Scale+500)/1000)
	}
	return o
}

// MaxSetOffset bounds SetOptions.Offset either way, in pixels.
const MaxSetOffset = counter.MaxOffset

// setDrawing is a count laid out in a digit set: the set's start piece,
// each character's piece and its end piece, left to right, each at its
// scaled size, Offset apart, placed up and down by Align.
type setDrawing struct {
	set    *digitset.Set
	text   string
	opt    SetOptions
	height int
	widths [digitset.NumPieces]int // each piece's scaled width
	hts    [digitset.NumPieces]int // and height
	width  int
	// seq is the pieces drawn, in order; xs and ys where each is.
	seq    []int
	xs, ys []int
	// pal is the set's palette, with a clear colour added when the
	// pieces leave gaps and it has none; bg is the index of the gaps.
	pal     color.Palette
	bg      uint8
	overlap bool // a negative offset: a piece's clear pixels show the one below
	// scaled holds each (piece, frame) drawn at the output size, made when
	// first needed; unscaled frames are the set's own pixels.
	scaled [digitset.NumPieces][][]uint8
	// remapped holds the scaled frames with a GIF's palette remap
	// applied, made when first placed.
	remapped [digitset.NumPieces][][]uint8
	xmaps    [digitset.NumPieces][]int32
	xtaps    [digitset.NumPieces]*taps
	ymaps    [digitset.NumPieces][]int32
	ytaps    [digitset.NumPieces]*taps
	smooth   *smoother
	work     int // pixels written so far, against maxSetWork
}

// WriteDigitSet writes text (digits, and ',' and '-' where the set has a
// comma and a dash: CanDrawSet; leading zeros from digits= are the set's
// 0) drawn in set s to w as image type f, between the set's start and end
// pieces when it has them: PNG shows each piece's first frame; GIF
// animates (see setgif.go); SVG embeds each piece's own file and leaves
// any animation to the browser. Only the pieces text draws
// (digitset.Set.Uses) need to have been read (digitset.Set.ParseDigit).
//
// A count that cannot be drawn (a character the set has no piece for, a
// piece not read, a size out of bounds: ErrSetTooLarge) is an error
// before anything is written to w.
func WriteDigitSet(w io.Writer, s *digitset.Set, text string, f counter.ImageType, opt SetOptions) error {
	frames := 0 // SVG embeds each digit's file; its pixels are not read
	switch f {
	case counter.PNG:
		frames = 1
	case counter.GIF:
		frames = digitset.MaxFrames
	}
	d, err := newSetDrawing(s, text, opt, frames)
	if err != nil {
		return err
	}
	switch f {
	case counter.SVG:
		return d.encodeSVG(w)
	case counter.GIF:
		return d.encodeGIF(w)
	}
	return d.encodePNG(w)
}

// CanDrawSet reports whether set s (its header) has a piece for each
// character of text.
func CanDrawSet(s *digitset.Set, text string) bool {
	for i := 0; i < len(text); i++ {
		if k, ok := digitset.PieceOf(text[i]); !ok || !s.Has(k) {
			return false
		}
	}
	return true
}

// SetParts returns what WriteDigitSet reads of each digit it draws in
// image type f: its first frames frames, and its file with pieces (an SVG
// embeds the file, or a PNG of the first frame when there is none).
func SetParts(f counter.ImageType) (frames int, pieces bool) {
	switch f {
	case counter.GIF:
		return digitset.MaxFrames, false
	case counter.SVG:
		return 1, true
	}
	return 1, false
}

// SetSize returns the width and height of text drawn in s with opt, or
// ErrSetTooLarge; it needs only the set's header.
func SetSize(s *digitset.Set, text string, opt SetOptions) (width, height int, err error) {
	d, err := layoutSet(s, text, opt)
	if err != nil {
		return 0, 0, err
	}
	return d.width, d.height, nil
}

func layoutSet(s *digitset.Set, text string, opt SetOptions) (*setDrawing, error) {
	if len(text) == 0 || len(text) > counter.MaxSetText {
		return nil, fmt.Errorf("draw: text of %d characters", len(text))
	}
	if s.Height < 1 || s.Height > digitset.MaxSide {
		return nil, fmt.Errorf("draw: digit set of height %d", s.Height)
	}
	if len(s.Palette) < 1 || len(s.Palette) > 256 {
		return nil, fmt.Errorf("draw: digit set of %d colours", len(s.Palette))
	}
	if opt.Offset < -MaxSetOffset || opt.Offset > MaxSetOffset {
		return nil, fmt.Errorf("draw: offset %d", opt.Offset)
	}
	d := &setDrawing{set: s, text: text, opt: opt, height: opt.Height, pal: s.Palette}
	if d.height == 0 {
		d.height = s.Height
	}
	if d.height < 1 || d.height > MaxSetHeight {
		return nil, fmt.Errorf("draw: height %d: %w", d.height, ErrSetTooLarge)
	}
	for i, p := range s.Digits {
		if !s.Has(i) {
			continue
		}
		if p.Width > digitset.MaxSide || p.Height < 1 || p.Height > s.Height {
			return nil, fmt.Errorf("draw: %s of %dx%d", digitset.PieceName(i), p.Width, p.Height)
		}
		d.widths[i] = max(1, (p.Width*d.height+s.Height/2)/s.Height)
		d.hts[i] = max(1, (p.Height*d.height+s.Height/2)/s.Height)
	}
	d.seq = make([]int, 0, len(text)+2)
	if s.Has(digitset.Start) {
		d.seq = append(d.seq, digitset.Start)
	}
	for i := 0; i < len(text); i++ {
		k, ok := digitset.PieceOf(text[i])
		if !ok || !s.Has(k) {
			return nil, fmt.Errorf("draw: the set has no piece for %q", text[i])
		}
		d.seq = append(d.seq, k)
	}
	if s.Has(digitset.End) {
		d.seq = append(d.seq, digitset.End)
	}
	d.xs, d.ys = make([]int, len(d.seq)), make([]int, len(d.seq))
	x, gaps, drawn := 0, opt.Offset > 0, 0
	for n, k := range d.seq {
		d.xs[n] = x
		drawn += d.widths[k]
		switch h := d.hts[k]; opt.Align {
		case counter.AlignCenter:
			d.ys[n] = (d.height - h) / 2
		case counter.AlignBottom:
			d.ys[n] = d.height - h
		}
		gaps = gaps || d.hts[k] < d.height || x < 0
		x += d.widths[k] + opt.Offset
	}
	d.width = x - opt.Offset
	d.overlap = opt.Offset < 0
	if d.width < 1 {
		return nil, fmt.Errorf("draw: %d px wide with offset %d: %w", d.width, opt.Offset, ErrSetTooLarge)
	}
	// The pixels bounded are the image's, or, where a negative offset
	// overlaps the pieces, the pieces' drawn one over another: what the
	// drawing writes either way.
	if work := max(d.width, drawn) * d.height; d.width > MaxSetWidth || work > digitset.MaxDrawPixels {
		return nil, fmt.Errorf("draw: %dx%d px (%d px of pieces): %w", d.width, d.height, drawn, ErrSetTooLarge)
	} else if opt.Smooth && d.height != s.Height && work > MaxSmoothPixels {
		return nil, fmt.Errorf("draw: %dx%d px (%d px of pieces) smoothed: %w", d.width, d.height, drawn, ErrSetTooLarge)
	}
	if gaps || d.overlap {
		d.pal, d.bg = withClear(s.Palette)
	}
	return d, nil
}

// withClear returns p with a fully transparent colour and its index: p's
// own first, else one added after p's; a full palette without one
// leaves gaps in its first colour.
func withClear(p color.Palette) (color.Palette, uint8) {
	for i, c := range p {
		if _, _, _, a := c.RGBA(); a == 0 {
			return p, uint8(i)
		}
	}
	if len(p) == 256 {
		return p, 0
	}
	return append(p[:len(p):len(p)], color.NRGBA{}), uint8(len(p))
}

// newSetDrawing lays text out in s and checks the first frames frames of
// every piece in it.
func newSetDrawing(s *digitset.Set, text string, opt SetOptions, frames int) (*setDrawing, error) {
	d, err := layoutSet(s, text, opt)
	if err != nil {
		return nil, err
	}
	for _, k := range d.seq {
		if len(d.scaled[k]) > 0 {
			continue // checked at its first place
		}
		all, err := s.Frames(k)
		if err != nil {
			return nil, fmt.Errorf("draw: %w", err)
		}
		p := s.Digits[k]
		for _, fr := range all {
			if len(fr.Pix) != p.Width*p.Height {
				return nil, fmt.Errorf("draw: %s: %d pixels for %dx%d", digitset.PieceName(k), len(fr.Pix), p.Width, p.Height)
			}
		}
		if err := s.CheckPixels(k, frames); err != nil {
			return nil, fmt.Errorf("draw: %w", err)
		}
		d.scaled[k] = make([][]uint8, len(all))
	}
	return d, nil
}

// same reports whether piece k is drawn at the set's own size.
func (d *setDrawing) same(k int) bool {
	return d.widths[k] == d.set.Digits[k].Width && d.hts[k] == d.set.Digits[k].Height
}

// frame returns frame n of piece k at the output size.
func (d *setDrawing) frame(k, n int) []uint8 {
	if p := d.scaled[k][n]; p != nil {
		return p
	}
	src, sw, sh := d.set.Digits[k].Frames[n].Pix, d.set.Digits[k].Width, d.set.Digits[k].Height
	if d.same(k) {
		d.scaled[k][n] = src
		return src
	}
	dw, dh := d.widths[k], d.hts[k]
	out := make([]uint8, dw*dh)
	d.work += len(out)
	if d.opt.Smooth {
		if d.smooth == nil {
			d.smooth = newSmoother(d.set.Palette)
		}
		// A smooth pixel mixes several and searches the palette: it
		// costs the budget as much as smoothCost copied ones.
		d.work += len(out) * (smoothCost - 1)
		if d.xtaps[k] == nil {
			t := triangleTaps(sw, dw)
			d.xtaps[k] = &t
		}
		if d.ytaps[k] == nil {
			t := triangleTaps(sh, dh)
			d.ytaps[k] = &t
		}
		d.smooth.scaleSmooth(out, dw, dh, src, sw, d.xtaps[k], d.ytaps[k])
	} else {
		if d.xmaps[k] == nil {
			d.xmaps[k] = nearestMap(sw, dw)
		}
		if d.ymaps[k] == nil {
			d.ymaps[k] = nearestMap(sh, dh)
		}
		scaleNearest(out, dw, src, sw, d.xmaps[k], d.ymaps[k])
	}
	d.scaled[k][n] = out
	return out
}

// place copies frame n of the piece at position i of d.seq into canvas
// (d.width wide), each index through remap (nil for none), clipped to the
// canvas; with overlap, only its pixels that are not clear (clear, an
// index after remap), so that the piece below shows through. A frame is
// mapped once and then copied row by row wherever the piece is placed:
// an animated GIF places the same frames again and again.
func (d *setDrawing) place(canvas []uint8, i, n int, remap *[256]uint8, clear int) {
	k := d.seq[i]
	src, dw := d.frame(k, n), d.widths[k]
	if remap != nil {
		src = d.mapped(k, n, src, remap)
	}
	x0, y0 := d.xs[i], d.ys[i]
	lo, hi := max(0, -x0), min(dw, d.width-x0)
	if lo >= hi {
		return
	}
	for y := range d.hts[k] {
		row := canvas[(y0+y)*d.width+x0+lo : (y0+y)*d.width+x0+hi]
		from := src[y*dw+lo : y*dw+hi]
		if !d.overlap {
			copy(row, from)
			continue
		}
		for x, v := range from {
			if int(v) != clear {
				row[x] = v
			}
		}
	}
	d.work += (hi - lo) * d.hts[k]
}

// fill sets every pixel of canvas to the gaps' index bg.
func (d *setDrawing) fill(canvas []uint8, bg uint8) {
	for i := range canvas {
		canvas[i] = bg
	}
}

// mapped returns frame n of piece k (src, at the output size) with each
// index through remap, the same remap at every call of a drawing.
func (d *setDrawing) mapped(k, n int, src []uint8, remap *[256]uint8) []uint8 {
	if len(d.remapped[k]) == 0 {
		d.remapped[k] = make([][]uint8, len(d.scaled[k]))
	}
	if p := d.remapped[k][n]; p != nil {
		return p
	}
	out := make([]uint8, len(src))
	for i, v := range src {
		out[i] = remap[v]
	}
	d.remapped[k][n] = out
	return out
}

// encodePNG writes the first frame of every piece.
func (d *setDrawing) encodePNG(w io.Writer) error {
	img := image.NewPaletted(image.Rect(0, 0, d.width, d.height), d.pal)
	d.fill(img.Pix, d.bg)
	for i := range d.seq {
		d.place(img.Pix, i, 0, nil, int(d.bg))
	}
	if d.opt.Dim == counter.DimAlways {
		img.Palette = dimmed(img.Palette)
	}
	usedColours(img)
	return encodePNG(w, img)
}

// usedColours gives img a palette of the colours its pixels use, in the
// set's order: a count drawn in a few of a set's colours (an animated
// set's palette holds every frame's) is a PNG of few bits a pixel, with
// less to compress and a shorter PLTE.
func usedColours(img *image.Paletted) {
	var used [256]bool
	for _, p := range img.Pix {
		used[p] = true
	}
	var index [256]uint8
	pal := make(color.Palette, 0, 16)
	for i := range img.Palette {
		if used[i] {
			index[i] = uint8(len(pal))
			pal = append(pal, img.Palette[i])
		}
	}
	if len(pal) == len(img.Palette) {
		return
	}
	for j, p := range img.Pix {
		img.Pix[j] = index[p]
	}
	img.Palette = pal
}

// dimmed returns p at Moe-Counter's darkmode brightness, 0.6 (CSS's
// filter: brightness(.6)), for the images that cannot carry a media query.
func dimmed(p color.Palette) color.Palette {
	out := make(color.Palette, len(p))
	for i, c := range p {
		n := color.NRGBAModel.Convert(c).(color.NRGBA)
		out[i] = color.NRGBA{uint8(int(n.R) * 6 / 10), uint8(int(n.G) * 6 / 10), uint8(int(n.B) * 6 / 10), n.A}
	}
	return out
}

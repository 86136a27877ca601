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
	// Height is the output's height in pixels, 0 for the set's own.
	Height int
	// Smooth scales with a smooth filter instead of nearest neighbour.
	Smooth bool
}

// setDrawing is a count laid out in a digit set: each digit at its
// scaled width, edge to edge.
type setDrawing struct {
	set    *digitset.Set
	text   string
	opt    SetOptions
	height int
	widths [10]int // each digit's scaled width
	width  int
	// scaled holds each (digit, frame) drawn at the output size, made when
	// first needed; unscaled frames are the set's own pixels.
	scaled [10][][]uint8
	// remapped holds the scaled frames with a GIF's palette remap
	// applied, made when first placed.
	remapped [10][][]uint8
	xmaps    [10][]int32
	xtaps    [10]*taps
	ymap     []int32
	ytaps    *taps
	smooth   *smoother
	work     int // pixels written so far, against maxSetWork
}

// WriteDigitSet writes text (digits only; leading zeros from digits= are
// the set's 0) drawn in set s to w as image type f: PNG shows each digit's
// first frame; GIF animates (see setgif.go); SVG embeds each digit's own
// file and leaves any animation to the browser. Only the digits in text
// need to have been read (digitset.Set.ParseDigit).
//
// A count that cannot be drawn (a character not a digit, a digit not
// read, a size out of bounds: ErrSetTooLarge) is an error before anything
// is written to w.
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
	if len(text) == 0 || len(text) > counter.MaxTextLen {
		return nil, fmt.Errorf("draw: text of %d characters", len(text))
	}
	if s.Height < 1 || s.Height > digitset.MaxSide {
		return nil, fmt.Errorf("draw: digit set of height %d", s.Height)
	}
	if len(s.Palette) < 1 || len(s.Palette) > 256 {
		return nil, fmt.Errorf("draw: digit set of %d colours", len(s.Palette))
	}
	d := &setDrawing{set: s, text: text, opt: opt, height: opt.Height}
	if d.height == 0 {
		d.height = s.Height
	}
	if d.height < 1 || d.height > MaxSetHeight {
		return nil, fmt.Errorf("draw: height %d: %w", d.height, ErrSetTooLarge)
	}
	for i := range d.widths {
		sw := s.Digits[i].Width
		if sw < 1 || sw > digitset.MaxSide {
			return nil, fmt.Errorf("draw: digit %d of width %d", i, sw)
		}
		d.widths[i] = max(1, (sw*d.height+s.Height/2)/s.Height)
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < '0' || c > '9' {
			return nil, fmt.Errorf("draw: %q is not a digit", c)
		}
		d.width += d.widths[c-'0']
	}
	if d.width > MaxSetWidth || d.width*d.height > digitset.MaxDrawPixels {
		return nil, fmt.Errorf("draw: %dx%d px: %w", d.width, d.height, ErrSetTooLarge)
	}
	if opt.Smooth && d.height != s.Height && d.width*d.height > MaxSmoothPixels {
		return nil, fmt.Errorf("draw: %dx%d px smoothed: %w", d.width, d.height, ErrSetTooLarge)
	}
	return d, nil
}

// newSetDrawing lays text out in s and checks the first frames frames of
// every digit in it.
func newSetDrawing(s *digitset.Set, text string, opt SetOptions, frames int) (*setDrawing, error) {
	d, err := layoutSet(s, text, opt)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(text); i++ {
		k := int(text[i] - '0')
		if len(d.scaled[k]) > 0 {
			continue // checked at its first place
		}
		all, err := s.Frames(k)
		if err != nil {
			return nil, fmt.Errorf("draw: %w", err)
		}
		for _, fr := range all {
			if len(fr.Pix) != s.Digits[k].Width*s.Height {
				return nil, fmt.Errorf("draw: digit %d: %d pixels for %dx%d", k, len(fr.Pix), s.Digits[k].Width, s.Height)
			}
		}
		if err := s.CheckPixels(k, frames); err != nil {
			return nil, fmt.Errorf("draw: %w", err)
		}
		d.scaled[k] = make([][]uint8, len(all))
	}
	return d, nil
}

// same reports whether digit k is drawn at the set's own size.
func (d *setDrawing) same(k int) bool {
	return d.widths[k] == d.set.Digits[k].Width && d.height == d.set.Height
}

// frame returns frame n of digit k at the output size.
func (d *setDrawing) frame(k, n int) []uint8 {
	if p := d.scaled[k][n]; p != nil {
		return p
	}
	src, sw := d.set.Digits[k].Frames[n].Pix, d.set.Digits[k].Width
	if d.same(k) {
		d.scaled[k][n] = src
		return src
	}
	dw := d.widths[k]
	out := make([]uint8, dw*d.height)
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
		if d.ytaps == nil {
			t := triangleTaps(d.set.Height, d.height)
			d.ytaps = &t
		}
		d.smooth.scaleSmooth(out, dw, d.height, src, sw, d.xtaps[k], d.ytaps)
	} else {
		if d.xmaps[k] == nil {
			d.xmaps[k] = nearestMap(sw, dw)
		}
		if d.ymap == nil {
			d.ymap = nearestMap(d.set.Height, d.height)
		}
		scaleNearest(out, dw, src, sw, d.xmaps[k], d.ymap)
	}
	d.scaled[k][n] = out
	return out
}

// place copies frame n of the digit at x0 into canvas (d.width wide),
// each index through remap (nil for none). A frame is mapped once and
// then copied row by row wherever the digit is placed: an animated
// GIF places the same frames again and again.
func (d *setDrawing) place(canvas []uint8, x0, k, n int, remap *[256]uint8) {
	src, dw := d.frame(k, n), d.widths[k]
	if remap != nil {
		src = d.mapped(k, n, src, remap)
	}
	for y := range d.height {
		copy(canvas[y*d.width+x0:y*d.width+x0+dw], src[y*dw:(y+1)*dw])
	}
	d.work += dw * d.height
}

// mapped returns frame n of digit k (src, at the output size) with each
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

// encodePNG writes the first frame of every digit.
func (d *setDrawing) encodePNG(w io.Writer) error {
	img := image.NewPaletted(image.Rect(0, 0, d.width, d.height), d.set.Palette)
	x := 0
	for i := 0; i < len(d.text); i++ {
		k := int(d.text[i] - '0')
		d.place(img.Pix, x, k, 0, nil)
		x += d.widths[k]
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

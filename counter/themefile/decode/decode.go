// Package decode makes an owner's digit set out of its files with the
// standard library's decoders (image/png, image/gif). It runs in
// counter-themedecode, a process of its own (cgi/themedecode), never in
// the binary every hit starts: that one links no image decoder.
//
// Every file is sized up from its header before it is decoded (a digit at
// most digitset.MaxSide pixels a side, a strip ten of them wide; a GIF's
// frames counted from its block structure, at most digitset.MaxFrames), so
// that a small file cannot make a large decode. GIF frames are composed
// into full frames of the digit as a browser shows them: each frame drawn
// over the last, then disposed of as it says (kept, cleared to
// transparent, or the frame before it restored).
package decode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"

	"hitcounter/counter/digitset"
	"hitcounter/counter/themefile"
)

// Set decodes the files of b into a set. Before a file is decoded, its
// pixels (every frame counted) are taken from the set's bound,
// digitset.MaxPixels, so that the decoding holds no more than a set may.
func Set(b themefile.Bundle) (*digitset.Set, error) {
	var src [10]digitset.Source
	budget := digitset.MaxPixels
	switch b.Layout {
	case themefile.PNGFolder, themefile.GIFFolder:
		if len(b.Data) != 10 {
			return nil, fmt.Errorf("decode: %d files, want ten", len(b.Data))
		}
		for i := range src {
			d, err := digit(b.Layout, b.Data[i], digitset.MaxSide, &budget)
			if err != nil {
				return nil, &digitset.DigitError{Digit: i, Reason: b.Names[i] + ": " + err.Error()}
			}
			src[i] = d
		}
	case themefile.Strip:
		if len(b.Data) != 1 {
			return nil, fmt.Errorf("decode: %d files for a strip, want one", len(b.Data))
		}
		var err error
		if src, err = strip(b.Data[0], &budget); err != nil {
			return nil, err // theme add names the file
		}
	default:
		return nil, fmt.Errorf("decode: layout %q", b.Layout)
	}
	return digitset.New(src, b.Layout)
}

// digit decodes one digit's file of a folder, at most maxSide a side.
func digit(layout string, data []byte, maxSide int, budget *int) (digitset.Source, error) {
	if layout == themefile.PNGFolder {
		img, err := decodePNG(data, maxSide, maxSide, budget)
		if err != nil {
			return digitset.Source{}, err
		}
		return digitset.Source{Frames: []image.Image{img}, Piece: data, PieceType: digitset.TypePNG}, nil
	}
	a, err := decodeGIF(data, maxSide, maxSide, budget)
	if err != nil {
		return digitset.Source{}, err
	}
	return digitset.Source{Frames: a.frames, Delays: a.delays, Loop: a.loop, Piece: data, PieceType: digitset.TypeGIF}, nil
}

// decodePNG decodes a PNG of at most maxW x maxH pixels, taken from
// budget.
func decodePNG(data []byte, maxW, maxH int, budget *int) (image.Image, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a PNG image (%v)", err)
	}
	if err := fits(cfg.Width, cfg.Height, maxW, maxH); err != nil {
		return nil, err
	}
	if err := spend(budget, cfg.Width*cfg.Height); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("a damaged PNG image (%v)", err)
	}
	return img, nil
}

// spend takes n pixels from budget, or fails.
func spend(budget *int, n int) error {
	if n > *budget {
		return fmt.Errorf("too big: the set passes %d pixels, every frame counted", digitset.MaxPixels)
	}
	*budget -= n
	return nil
}

// fits fails unless w x h is within maxW x maxH.
func fits(w, h, maxW, maxH int) error {
	if w < 1 || h < 1 || w > maxW || h > maxH {
		return fmt.Errorf("%dx%d px, too big: at most %dx%d", w, h, maxW, maxH)
	}
	return nil
}

// animation is a GIF's frames composed to full frames, their delays in
// hundredths of a second and its loop count as image/gif reads it.
type animation struct {
	frames []image.Image
	delays []int
	loop   int
}

// decodeGIF decodes a GIF of at most maxW x maxH pixels and
// digitset.MaxFrames frames, composed, its pixels taken from budget.
func decodeGIF(data []byte, maxW, maxH int, budget *int) (animation, error) {
	cfg, err := gif.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return animation{}, fmt.Errorf("not a GIF image (%v)", err)
	}
	if err := fits(cfg.Width, cfg.Height, maxW, maxH); err != nil {
		return animation{}, err
	}
	n, err := countFrames(data)
	if err != nil {
		return animation{}, fmt.Errorf("a damaged GIF image (%v)", err)
	}
	if n > digitset.MaxFrames {
		return animation{}, fmt.Errorf("%d frames, too many: at most %d", n, digitset.MaxFrames)
	}
	if err := spend(budget, cfg.Width*cfg.Height*max(n, 1)); err != nil {
		return animation{}, err
	}
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil {
		return animation{}, fmt.Errorf("a damaged GIF image (%v)", err)
	}
	return compose(g), nil
}

// compose draws g's frames as a browser shows them, each a full image of
// the logical screen, transparent where no frame has drawn.
func compose(g *gif.GIF) animation {
	screen := image.Rect(0, 0, g.Config.Width, g.Config.Height)
	canvas := image.NewNRGBA(screen)
	a := animation{loop: g.LoopCount}
	for i, f := range g.Image {
		var before *image.NRGBA
		disposal := byte(0)
		if i < len(g.Disposal) {
			disposal = g.Disposal[i]
		}
		if disposal == gif.DisposalPrevious {
			before = clone(canvas)
		}
		draw.Draw(canvas, f.Bounds(), f, f.Bounds().Min, draw.Over)
		a.frames = append(a.frames, clone(canvas))
		delay := 0
		if i < len(g.Delay) {
			delay = g.Delay[i]
		}
		a.delays = append(a.delays, delay)
		switch disposal {
		case gif.DisposalBackground:
			// Browsers clear to transparent, not to the background
			// colour the GIF names.
			draw.Draw(canvas, f.Bounds(), image.Transparent, image.Point{}, draw.Src)
		case gif.DisposalPrevious:
			canvas = before
		}
	}
	if len(a.frames) == 1 {
		a.delays = nil // a still digit
	}
	return a
}

func clone(m *image.NRGBA) *image.NRGBA {
	c := image.NewNRGBA(m.Rect)
	copy(c.Pix, m.Pix)
	return c
}

// countFrames counts the image descriptors of a GIF by walking its blocks,
// without decoding any: what gif.DecodeAll would allocate frames for.
func countFrames(data []byte) (int, error) {
	if len(data) < 13 {
		return 0, errors.New("no header")
	}
	p := 13
	if flags := data[10]; flags&0x80 != 0 {
		p += 3 << (flags&7 + 1) // global colour table
	}
	// subBlocks skips a chain of sub-blocks ending with an empty one.
	subBlocks := func() error {
		for {
			if p >= len(data) {
				return errors.New("cut short")
			}
			n := int(data[p])
			p += 1 + n
			if n == 0 {
				return nil
			}
		}
	}
	frames := 0
	for p < len(data) {
		switch data[p] {
		case 0x21: // extension: label, then sub-blocks
			p += 2
			if err := subBlocks(); err != nil {
				return frames, err
			}
		case 0x2c: // image descriptor, local colour table, LZW code size, data
			if p+10 > len(data) {
				return frames, errors.New("cut short")
			}
			flags := data[p+9]
			p += 10
			if flags&0x80 != 0 {
				p += 3 << (flags&7 + 1)
			}
			p++ // LZW minimum code size
			if err := subBlocks(); err != nil {
				return frames, err
			}
			frames++
		case 0x3b: // trailer
			return frames, nil
		default:
			return frames, fmt.Errorf("unknown block 0x%02x", data[p])
		}
	}
	return frames, nil
}

// strip cuts a strip image into its ten digits, each as wide as the
// others. A strip that is a GIF keeps its frames, each cut the same way.
func strip(data []byte, budget *int) ([10]digitset.Source, error) {
	var src [10]digitset.Source
	maxW, maxH := 10*digitset.MaxSide, digitset.MaxSide
	var a animation
	isGIF := bytes.HasPrefix(data, []byte("GIF8"))
	if isGIF {
		var err error
		if a, err = decodeGIF(data, maxW, maxH, budget); err != nil {
			return src, err
		}
	} else {
		img, err := decodePNG(data, maxW, maxH, budget)
		if err != nil {
			return src, fmt.Errorf("%w (a strip is a PNG or a GIF)", err)
		}
		a.frames = []image.Image{img}
	}
	b := a.frames[0].Bounds()
	if b.Dx()%10 != 0 {
		return src, fmt.Errorf("%d px wide: ten digits of equal width make a width that divides by ten", b.Dx())
	}
	w := b.Dx() / 10
	for i := range src {
		r := image.Rect(b.Min.X+i*w, b.Min.Y, b.Min.X+(i+1)*w, b.Max.Y)
		frames := make([]image.Image, len(a.frames))
		for k, f := range a.frames {
			c := image.NewNRGBA(image.Rect(0, 0, w, b.Dy()))
			draw.Draw(c, c.Rect, f, r.Min, draw.Src)
			frames[k] = c
		}
		piece, typ, err := pieceOf(frames, a.delays, a.loop)
		if err != nil {
			return src, &digitset.DigitError{Digit: i, Reason: err.Error()}
		}
		src[i] = digitset.Source{Frames: frames, Delays: a.delays, Loop: a.loop, Piece: piece, PieceType: typ}
	}
	return src, nil
}

// pieceOf makes the file an SVG embeds for a digit cut from a strip: a
// PNG of a still digit; a GIF of an animated one when its frames hold at
// most 256 colours (those of the GIF it was cut from, as a rule), else a
// PNG of its first frame.
func pieceOf(frames []image.Image, delays []int, loop int) ([]byte, string, error) {
	var buf bytes.Buffer
	if len(frames) > 1 {
		if pal, ok := paletteOf(frames); ok {
			g := &gif.GIF{LoopCount: loop, Delay: delays}
			for _, f := range frames {
				p := image.NewPaletted(f.Bounds(), pal)
				draw.Draw(p, p.Rect, f, image.Point{}, draw.Src)
				g.Image = append(g.Image, p)
				g.Disposal = append(g.Disposal, gif.DisposalNone)
			}
			if err := gif.EncodeAll(&buf, g); err != nil {
				return nil, "", err
			}
			return buf.Bytes(), digitset.TypeGIF, nil
		}
	}
	if err := png.Encode(&buf, frames[0]); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), digitset.TypePNG, nil
}

// paletteOf returns the colours of frames, transparent first, when they
// are at most 256.
func paletteOf(frames []image.Image) (color.Palette, bool) {
	pal := color.Palette{color.NRGBA{}}
	seen := map[color.NRGBA]bool{{}: true}
	for _, f := range frames {
		m := f.(*image.NRGBA)
		for i := 0; i < len(m.Pix); i += 4 {
			c := color.NRGBA{m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]}
			if c.A == 0 {
				c = color.NRGBA{}
			}
			if !seen[c] {
				if len(pal) == 256 {
					return nil, false
				}
				seen[c] = true
				pal = append(pal, c)
			}
		}
	}
	return pal, true
}

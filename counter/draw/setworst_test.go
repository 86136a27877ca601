package draw

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"math/rand/v2"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// TestWorstSetBounded draws the costliest set the bounds let anyone add
// (ten digits of the most pixels a digit may have, as many frames as the
// set's pixels allow, noise in 256 colours, every digit on a prime delay
// of its own) at the largest count a drawing allows, in every image type and
// smoothed: each is drawn, within the pixels, frames and bytes bounded.
// deploy/bench/bench-worst.sh times the same shapes through the binaries.
func TestWorstSetBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("draws several large images")
	}
	const side = 256 // side*side is MaxPiecePixels
	if side*side != digitset.MaxPiecePixels {
		t.Fatalf("the worst digit is %d pixels, the bound %d", side*side, digitset.MaxPiecePixels)
	}
	frames := digitset.MaxPixels / (10 * side * side)
	primes := []int{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}
	rng := rand.New(rand.NewPCG(41, 7))
	pal := make(color.Palette, 256)
	for i := range pal {
		pal[i] = color.NRGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), 0xff}
	}
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		d := digitset.Source{Piece: []byte("gif"), PieceType: digitset.TypeGIF}
		for range frames {
			m := image.NewPaletted(image.Rect(0, 0, side, side), pal)
			for p := range m.Pix {
				m.Pix[p] = uint8(rng.Uint32())
			}
			d.Frames, d.Delays = append(d.Frames, m), append(d.Delays, primes[k])
		}
		src[k] = d
	}
	s := newSet(t, src, digitset.LayoutGIFFolder)
	text := "01234567" // digitset.FitDigits digits, each a different one
	for _, tc := range []struct {
		f   counter.ImageType
		opt SetOptions
	}{
		{counter.PNG, SetOptions{}},
		{counter.GIF, SetOptions{}},
		{counter.SVG, SetOptions{}},
		{counter.PNG, SetOptions{Height: 181, Smooth: true}},
		{counter.GIF, SetOptions{Height: 181, Smooth: true}},
	} {
		var b bytes.Buffer
		if err := WriteDigitSet(&b, s, text, tc.f, tc.opt); err != nil {
			t.Fatalf("%v %+v: %v", tc.f, tc.opt, err)
		}
		// Noise does not compress: about a byte a pixel of each frame
		// written, and the frames are bounded by the work budget.
		if b.Len() > 4<<20 {
			t.Errorf("%v %+v: %d bytes", tc.f, tc.opt, b.Len())
		}
		if tc.f == counter.GIF {
			g, err := gif.DecodeAll(&b)
			if err != nil {
				t.Fatal(err)
			}
			if n, px := len(g.Image), g.Config.Width*g.Config.Height; n > MaxSetFrames || px > digitset.MaxDrawPixels ||
				tc.opt.Smooth && px > MaxSmoothPixels {
				t.Errorf("%+v: %d frames of %dx%d", tc.opt, n, g.Config.Width, g.Config.Height)
			}
			t.Logf("GIF %+v: %d frames of %dx%d", tc.opt, len(g.Image), g.Config.Width, g.Config.Height)
		}
	}
}

package draw

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"testing"

	"hitcounter/counter/digitset"
)

// Digit sets made by code, in the three layouts digitset add takes: stills
// as from a folder of PNGs, animated digits as from a folder of GIFs
// (different frame counts and delays), and a strip cut into ten.

// digitColor is the colour of frame f of digit k: every frame of every
// digit its own.
func digitColor(k, f int) color.NRGBA {
	return color.NRGBA{uint8(20 + 23*k), uint8(40 + 50*f), uint8(250 - 20*k), 0xff}
}

// digitFrame draws frame f of digit k, w by h: its colour, a clear pixel
// at the top left and at (f+1, 1), so that pixels turn clear and back
// from frame to frame, and a black bottom row, which shows the digit's
// orientation.
func digitFrame(k, f, w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.NewUniform(digitColor(k, f)), image.Point{}, draw.Src)
	img.SetNRGBA(0, 0, color.NRGBA{})
	img.SetNRGBA((f+1)%w, 1, color.NRGBA{})
	for x := range w {
		img.SetNRGBA(x, h-1, color.NRGBA{0, 0, 0, 0xff})
	}
	return img
}

// setWidth is digit k's width in the test sets: widths differ, as in
// real sets.
func setWidth(k int) int { return 6 + k%3 }

const setHeight = 10

// animDelays are the animated set's digits' frame delays: a still 0, two
// frames for 1, three for 2 (a 0 delay, played as 10), four for 3, and
// so on.
var animDelays = [10][]int{
	0: {0},
	1: {20, 30},
	2: {10, 0, 5},
	3: {7, 7, 7, 7},
	4: {50, 50},
	5: {0},
	6: {11, 13},
	7: {100, 3, 3},
	8: {40},
	9: {9, 9},
}

func encodePiece(tb testing.TB, frames []image.Image, delays []int) ([]byte, string) {
	tb.Helper()
	var b bytes.Buffer
	if len(frames) == 1 {
		if err := png.Encode(&b, frames[0]); err != nil {
			tb.Fatal(err)
		}
		return b.Bytes(), digitset.TypePNG
	}
	g := &gif.GIF{LoopCount: 0}
	for i, f := range frames {
		p := image.NewPaletted(f.Bounds(), append(color.Palette{color.NRGBA{}}, digitColor(0, 0), color.Black))
		draw.Draw(p, p.Rect, f, f.Bounds().Min, draw.Src)
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, delays[i])
	}
	if err := gif.EncodeAll(&b, g); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes(), digitset.TypeGIF
}

// stillSet is ten one-frame digits, as from 0.png..9.png.
func stillSet(tb testing.TB) *digitset.Set {
	tb.Helper()
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		f := []image.Image{digitFrame(k, 0, setWidth(k), setHeight)}
		piece, typ := encodePiece(tb, f, nil)
		src[k] = digitset.Source{Frames: f, Piece: piece, PieceType: typ}
	}
	return newSet(tb, src, digitset.LayoutPNGFolder)
}

// animSet is ten digits with animDelays' frames, as from 0.gif..9.gif.
func animSet(tb testing.TB) *digitset.Set { return animSetOf(tb, digitFrame) }

// dotFrame draws frame f of digit k as a clear field with a 2x2 dot that
// moves from frame to frame: most of the image clear, and pixels turning
// clear at every change.
func dotFrame(k, f, w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	x, y := (2*f+k)%(w-1), (3*f+k)%(h-1)
	draw.Draw(img, image.Rect(x, y, x+2, y+2), image.NewUniform(digitColor(k, f)), image.Point{}, draw.Src)
	return img
}

// animSetOf is animSet with frames drawn by frame.
func animSetOf(tb testing.TB, frame func(k, f, w, h int) *image.NRGBA) *digitset.Set {
	tb.Helper()
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		var frames []image.Image
		for f := range animDelays[k] {
			frames = append(frames, frame(k, f, setWidth(k), setHeight))
		}
		piece, typ := encodePiece(tb, frames, animDelays[k])
		src[k] = digitset.Source{Frames: frames, Delays: animDelays[k], Piece: piece, PieceType: typ}
	}
	return newSet(tb, src, digitset.LayoutGIFFolder)
}

// stripSet is one image of ten digits of width 7 cut into ten.
func stripSet(tb testing.TB) *digitset.Set {
	tb.Helper()
	strip := image.NewNRGBA(image.Rect(0, 0, 70, setHeight))
	for k := range 10 {
		draw.Draw(strip, image.Rect(7*k, 0, 7*k+7, setHeight), digitFrame(k, 0, 7, setHeight), image.Point{}, draw.Src)
	}
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		f := []image.Image{strip.SubImage(image.Rect(7*k, 0, 7*k+7, setHeight))}
		piece, typ := encodePiece(tb, f, nil)
		src[k] = digitset.Source{Frames: f, Piece: piece, PieceType: typ}
	}
	return newSet(tb, src, digitset.LayoutStrip)
}

// newSet makes a set and reads it back from its bytes, as a hit does.
func newSet(tb testing.TB, src [digitset.NumPieces]digitset.Source, layout string) *digitset.Set {
	tb.Helper()
	s, err := digitset.New(src, layout)
	if err != nil {
		tb.Fatal(err)
	}
	s, err = digitset.Parse(s.Marshal())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// expected draws text as the digits' frames at the given frame numbers
// (frameOf), at the set's own size, as a GIF shows them: clear or opaque.
func expected(text string, width func(int) int, frameOf func(k int) int) *image.NRGBA {
	return expectedOf(digitFrame, text, width, frameOf)
}

// expectedOf is expected with frames drawn by frame.
func expectedOf(frame func(k, f, w, h int) *image.NRGBA, text string, width func(int) int, frameOf func(k int) int) *image.NRGBA {
	w := 0
	for i := range len(text) {
		w += width(int(text[i] - '0'))
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, setHeight))
	x := 0
	for i := range len(text) {
		k := int(text[i] - '0')
		draw.Draw(img, image.Rect(x, 0, x+width(k), setHeight), frame(k, frameOf(k), width(k), setHeight), image.Point{}, draw.Src)
		x += width(k)
	}
	return img
}

// sameImage returns how many pixels of got and want differ, or -1 when
// their sizes do.
func sameImage(got, want image.Image) int {
	return countDiff(got, want, func(c color.NRGBA) color.NRGBA { return c })
}

// sameAsGIF is sameImage as GIF draws colours: alpha under half clear,
// the rest opaque.
func sameAsGIF(got, want image.Image) int {
	return countDiff(got, want, func(c color.NRGBA) color.NRGBA {
		if c.A < 0x80 {
			return color.NRGBA{}
		}
		c.A = 0xff
		return c
	})
}

func countDiff(got, want image.Image, norm func(color.NRGBA) color.NRGBA) int {
	if got.Bounds().Size() != want.Bounds().Size() {
		return -1
	}
	n := 0
	g0, w0 := got.Bounds().Min, want.Bounds().Min
	for y := range got.Bounds().Dy() {
		for x := range got.Bounds().Dx() {
			a := norm(color.NRGBAModel.Convert(got.At(g0.X+x, g0.Y+y)).(color.NRGBA))
			b := norm(color.NRGBAModel.Convert(want.At(w0.X+x, w0.Y+y)).(color.NRGBA))
			if a != b {
				n++
			}
		}
	}
	return n
}

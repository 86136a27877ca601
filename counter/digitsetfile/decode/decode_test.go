package decode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"strings"
	"testing"

	"hitcounter/cgi/testfiles"
	"hitcounter/counter/digitset"
	"hitcounter/counter/digitsetfile"
)

var (
	red   = color.NRGBA{0xff, 0, 0, 0xff}
	blue  = color.NRGBA{0, 0, 0xff, 0xff}
	green = color.NRGBA{0, 0xff, 0, 0xff}
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
	clear = color.NRGBA{}
)

func frame(r image.Rectangle, c color.Color) *image.Paletted {
	m := image.NewPaletted(r, color.Palette{c})
	return m
}

// TestComposeDisposal composes a GIF whose frames cover parts of the
// screen and are disposed of in each of the three ways, as a browser
// shows it.
func TestComposeDisposal(t *testing.T) {
	g := &gif.GIF{
		Image: []*image.Paletted{
			frame(image.Rect(0, 0, 4, 2), red),
			frame(image.Rect(1, 0, 3, 1), blue),
			frame(image.Rect(3, 1, 4, 2), green),
			frame(image.Rect(0, 1, 1, 2), white),
		},
		Delay:     []int{5, 6, 7, 8},
		Disposal:  []byte{gif.DisposalNone, gif.DisposalBackground, gif.DisposalPrevious, gif.DisposalNone},
		LoopCount: 3,
		Config:    image.Config{Width: 4, Height: 2},
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	a, err := decodeGIF(b.Bytes(), size{4, 2, 8}, ptr(100))
	if err != nil {
		t.Fatal(err)
	}
	want := [][8]color.NRGBA{
		{red, red, red, red, red, red, red, red},
		{red, blue, blue, red, red, red, red, red},
		{red, clear, clear, red, red, red, red, green},
		{red, clear, clear, red, white, red, red, red},
	}
	if len(a.frames) != len(want) || a.loop != 3 || len(a.delays) != 4 || a.delays[3] != 8 {
		t.Fatalf("%d frames, loop %d, delays %v; want 4, 3, [5 6 7 8]", len(a.frames), a.loop, a.delays)
	}
	for k, f := range a.frames {
		for i, w := range want[k] {
			if got := color.NRGBAModel.Convert(f.At(i%4, i/4)).(color.NRGBA); got != w {
				t.Errorf("frame %d, pixel (%d,%d): %v, want %v", k, i%4, i/4, got, w)
			}
		}
	}
}

// TestTooManyFrames refuses a GIF of more frames than a digit may have
// before decoding it.
func TestTooManyFrames(t *testing.T) {
	g := &gif.GIF{}
	for range digitset.MaxFrames + 1 {
		g.Image = append(g.Image, frame(image.Rect(0, 0, 2, 2), red))
		g.Delay = append(g.Delay, 1)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	if w, err := walkGIF(b.Bytes(), digitset.MaxFrames); w.frames != digitset.MaxFrames+1 || err != nil {
		t.Errorf("walkGIF: %d frames, %v; want %d", w.frames, err, digitset.MaxFrames+1)
	}
	if _, err := decodeGIF(b.Bytes(), size{200, 200, 40000}, ptr(digitset.MaxPixels)); err == nil || !strings.Contains(err.Error(), "65 frames, too many") {
		t.Errorf("decodeGIF: %v, want too many frames", err)
	}
}

// TestAnimatedStrip cuts an animated strip into ten animated digits, each
// with a GIF of its own for SVG.
func TestAnimatedStrip(t *testing.T) {
	g := &gif.GIF{Config: image.Config{Width: 30, Height: 4}}
	for k, c := range []color.Color{red, blue} {
		g.Image = append(g.Image, frame(image.Rect(0, 0, 30, 4), c))
		g.Delay = append(g.Delay, 10*(k+1))
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	src, err := strip(b.Bytes(), ptr(digitset.MaxPixels))
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range src {
		if len(d.Frames) != 2 || d.Frames[1].Bounds().Dx() != 3 || d.PieceType != digitset.TypeGIF {
			t.Fatalf("digit %d: %d frames, %v, %s; want 2 of 3 px, a GIF", i, len(d.Frames), d.Frames[0].Bounds(), d.PieceType)
		}
		piece, err := gif.DecodeAll(bytes.NewReader(d.Piece))
		if err != nil || len(piece.Image) != 2 || piece.Delay[1] != 20 {
			t.Fatalf("digit %d's piece: %v", i, err)
		}
	}
	var de *digitset.DigitError
	if _, err := strip(b.Bytes()[:40], ptr(digitset.MaxPixels)); err == nil || errors.As(err, &de) {
		t.Errorf("a strip cut short: %v, want an error of the file", err)
	}
}

func ptr(n int) *int { return &n }

// TestPixelBudget refuses a GIF whose frames would pass the set's pixels
// before decoding them.
func TestPixelBudget(t *testing.T) {
	g := &gif.GIF{}
	for range 3 {
		g.Image = append(g.Image, frame(image.Rect(0, 0, 10, 10), red))
		g.Delay = append(g.Delay, 5)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	budget := 299
	if _, err := decodeGIF(b.Bytes(), size{200, 200, 40000}, &budget); err == nil || !strings.Contains(err.Error(), "pixels, every frame counted") {
		t.Errorf("3 frames of 100 px in a budget of 299: %v, want too big", err)
	}
	budget = 300
	if _, err := decodeGIF(b.Bytes(), size{200, 200, 40000}, &budget); err != nil || budget != 0 {
		t.Errorf("in a budget of 300: %v, %d left", err, budget)
	}
}

// TestDesyncedGIF: a GIF whose Plain Text extension hides its frames from
// a walk that reads it otherwise than image/gif is counted as image/gif
// decodes it, and refused before decoding when its frames are too many.
func TestDesyncedGIF(t *testing.T) {
	data := testfiles.DesyncedGIF(t, 200, 200, digitset.MaxFrames+1)
	if g, err := gif.DecodeAll(bytes.NewReader(data)); err != nil || len(g.Image) != digitset.MaxFrames+1 {
		t.Fatalf("image/gif: %v; want %d frames", err, digitset.MaxFrames+1)
	}
	w, err := walkGIF(data, digitset.MaxFrames)
	if err != nil || w.frames != digitset.MaxFrames+1 {
		t.Errorf("walkGIF: %d frames, %v; want %d", w.frames, err, digitset.MaxFrames+1)
	}
	if _, err := decodeGIF(data, size{200, 200, 40000}, ptr(digitset.MaxPixels)); err == nil || !strings.Contains(err.Error(), "65 frames, too many") {
		t.Errorf("decodeGIF: %v, want too many frames", err)
	}
	// Within the bounds, the frames decoded are those counted, composed on
	// the whole screen.
	budget := 3 * 4 * 4
	a, err := decodeGIF(testfiles.DesyncedGIF(t, 4, 4, 3), size{4, 4, 16}, &budget)
	if err != nil || len(a.frames) != 3 || budget != 0 {
		t.Errorf("3 frames: %d frames, %v, %d pixels left; want 3, 0", len(a.frames), err, budget)
	}
}

// FuzzWalkGIF: whatever the bytes, image/gif decodes from walkGIF's copy
// no more frames than walkGIF counted, and from a GIF it decodes whole,
// as many as it decodes from the copy.
func FuzzWalkGIF(f *testing.F) {
	var b bytes.Buffer
	gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{frame(image.Rect(0, 0, 2, 2), red), frame(image.Rect(0, 0, 1, 1), blue)}, Delay: []int{1, 2}, LoopCount: 2})
	f.Add(b.Bytes())
	f.Add(testfiles.DesyncedGIF(f, 3, 3, 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := walkGIF(data, 8)
		if err != nil {
			return
		}
		g, err := gif.DecodeAll(bytes.NewReader(w.data))
		if err != nil {
			return
		}
		if len(g.Image) > w.frames {
			t.Fatalf("%d frames decoded, %d counted", len(g.Image), w.frames)
		}
		if whole, err := gif.DecodeAll(bytes.NewReader(data)); err == nil && w.frames <= 8 && (len(whole.Image) != len(g.Image) || whole.LoopCount != g.LoopCount) {
			t.Fatalf("the file: %d frames, loop %d; the copy: %d, loop %d", len(whole.Image), whole.LoopCount, len(g.Image), g.LoopCount)
		}
	})
}

// folderOf bundles ten digits, digit i a w x h image of colour c(i), as
// encode writes it, in layout.
func folderOf(t *testing.T, layout string, w, h int, c func(i int) color.NRGBA, encode func(image.Image) []byte) digitsetfile.Bundle {
	t.Helper()
	b := digitsetfile.Bundle{Layout: layout}
	for i := range 10 {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.Draw(m, m.Rect, image.NewUniform(c(i)), image.Point{}, draw.Src)
		b.Names = append(b.Names, fmt.Sprintf("%d%s", i, digitsetfile.Ext(layout)))
		b.Data = append(b.Data, encode(m))
	}
	return b
}

func greyOf(i int) color.NRGBA { return color.NRGBA{uint8(20 * i), uint8(20 * i), uint8(20 * i), 0xff} }

func encodeJPEG(m image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 95}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// TestJPEGAndWebP decodes folders of JPEG and WebP digits and a WebP
// strip: each digit's colour (within JPEG's loss), its file kept as the
// piece an SVG embeds, with its media type.
func TestJPEGAndWebP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		b      digitsetfile.Bundle
		piece  string
		within int
	}{
		{"jpeg folder", folderOf(t, digitsetfile.JPEGFolder, 16, 24, greyOf, encodeJPEG), digitset.TypeJPEG, 3},
		{"webp folder", folderOf(t, digitsetfile.WebPFolder, 16, 24, greyOf, testfiles.WebP), digitset.TypeWebP, 0},
		{"webp strip", func() digitsetfile.Bundle {
			m := image.NewNRGBA(image.Rect(0, 0, 160, 24))
			for i := range 10 {
				draw.Draw(m, image.Rect(16*i, 0, 16*i+16, 24), image.NewUniform(greyOf(i)), image.Point{}, draw.Src)
			}
			return digitsetfile.Bundle{Layout: digitsetfile.Strip, Names: []string{"strip.webp"}, Data: [][]byte{testfiles.WebP(m)}}
		}(), digitset.TypePNG, 0},
		{"jpeg strip", func() digitsetfile.Bundle {
			m := image.NewNRGBA(image.Rect(0, 0, 160, 24))
			for i := range 10 {
				draw.Draw(m, image.Rect(16*i, 0, 16*i+16, 24), image.NewUniform(greyOf(i)), image.Point{}, draw.Src)
			}
			return digitsetfile.Bundle{Layout: digitsetfile.Strip, Names: []string{"strip.jpg"}, Data: [][]byte{encodeJPEG(m)}}
		}(), digitset.TypePNG, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Set(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if s.Height != 24 || s.Digits[9].Width != 16 {
				t.Errorf("got %dx%d, want 16x24", s.Digits[9].Width, s.Height)
			}
			for i, d := range s.Digits {
				if d.PieceType != tc.piece || len(d.Piece) == 0 {
					t.Errorf("digit %d: a piece of %q, %d bytes; want %s", i, d.PieceType, len(d.Piece), tc.piece)
				}
				// The middle of the digit: JPEG's blocks blur edges only.
				c := s.Palette[d.Frames[0].Pix[12*16+8]].(color.NRGBA)
				if w := greyOf(i); absDiff(c.R, w.R) > tc.within || c.A != 0xff {
					t.Errorf("digit %d: got %v, want %v within %d", i, c, w, tc.within)
				}
			}
		})
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestWebPRefusals: an animated WebP is refused as such, as is a WebP or
// JPEG past the bounds, before it is decoded, and a file that is not
// what its name says.
func TestWebPRefusals(t *testing.T) {
	frames := []image.Image{image.NewNRGBA(image.Rect(0, 0, 8, 8)), image.NewNRGBA(image.Rect(0, 0, 8, 8))}
	animated := folderOf(t, digitsetfile.WebPFolder, 8, 8, greyOf, testfiles.WebP)
	animated.Data[4] = testfiles.AnimatedWebP(frames, 100)
	big := folderOf(t, digitsetfile.WebPFolder, 8, 8, greyOf, testfiles.WebP)
	big.Data[2] = testfiles.WebP(image.NewNRGBA(image.Rect(0, 0, 400, 400)))
	bigJPEG := folderOf(t, digitsetfile.JPEGFolder, 8, 8, greyOf, encodeJPEG)
	bigJPEG.Data[6] = encodeJPEG(image.NewNRGBA(image.Rect(0, 0, 1025, 8)))
	wrong := folderOf(t, digitsetfile.WebPFolder, 8, 8, greyOf, testfiles.WebP)
	wrong.Data[1] = encodeJPEG(image.NewNRGBA(image.Rect(0, 0, 8, 8)))
	for _, tc := range []struct {
		name  string
		b     digitsetfile.Bundle
		digit int
		want  string
	}{
		{"animated webp", animated, 4, "4.webp: an animated WebP image, which is not read here"},
		{"webp too many pixels", big, 2, "2.webp: 400x400 px, too big: 160000 pixels, at most 65536"},
		{"jpeg too wide", bigJPEG, 6, "6.jpg: 1025x8 px, too big: at most 1024x1024"},
		{"not a webp", wrong, 1, "1.webp: not a WebP image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Set(tc.b)
			var de *digitset.DigitError
			if !errors.As(err, &de) || de.Digit != tc.digit || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want digit %d: ...%s...", err, tc.digit, tc.want)
			}
		})
	}
}

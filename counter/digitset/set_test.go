package digitset

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"testing"
)

// digitImage draws digit i as w by h pixels: a background of bg with i+1
// bars of fg, so that every digit's pixels differ.
func digitImage(i, w, h int, fg, bg color.Color) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := bg
			if y%2 == 0 && y/2 <= i && x > 0 && x < w-1 {
				c = fg
			}
			img.Set(x, y, c)
		}
	}
	return img
}

var (
	black = color.NRGBA{0, 0, 0, 0xff}
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
	clear = color.NRGBA{}
)

// stills returns ten one-frame digits of w by h.
func stills(w, h int) [NumPieces]Source {
	var ds [NumPieces]Source
	for i := range 10 {
		ds[i] = Source{Frames: []image.Image{digitImage(i, w, h, black, clear)}, Piece: []byte("png"), PieceType: TypePNG}
	}
	return ds
}

// animated returns ten digits of i%3+1 frames, each frame's delay 10*(i+1).
func animated(w, h int) [NumPieces]Source {
	var ds [NumPieces]Source
	for i := range 10 {
		d := Source{Piece: []byte("gif"), PieceType: TypeGIF, Loop: 0}
		for k := range i%3 + 1 {
			d.Frames = append(d.Frames, digitImage((i+k)%10, w, h, white, black))
			d.Delays = append(d.Delays, 10*(i+1))
		}
		ds[i] = d
	}
	return ds
}

func TestNew(t *testing.T) {
	s, err := New(animated(6, 24), LayoutGIFFolder)
	if err != nil {
		t.Fatal(err)
	}
	if s.Height != 24 || s.Layout != LayoutGIFFolder || s.Loop != 0 {
		t.Errorf("got height %d, layout %q, loop %d, want 24, gif-folder, 0", s.Height, s.Layout, s.Loop)
	}
	if len(s.Palette) != 2 {
		t.Errorf("got %d colours, want 2", len(s.Palette))
	}
	for i, d := range s.Digits[:10] {
		if len(d.Frames) != i%3+1 {
			t.Errorf("digit %d: got %d frames, want %d", i, len(d.Frames), i%3+1)
		}
		for k, f := range d.Frames {
			if f.Delay != 10*(i+1) || len(f.Pix) != 6*24 {
				t.Errorf("digit %d frame %d: got delay %d, %d pixels, want %d, %d", i, k, f.Delay, len(f.Pix), 10*(i+1), 6*24)
			}
			// Row 2*j is lit for j up to the digit drawn.
			shown := (i + k) % 10
			for j := range 12 {
				c := s.Palette[f.Pix[2*j*6+2]]
				want := black
				if j <= shown {
					want = white
				}
				if c != want {
					t.Errorf("digit %d frame %d row %d: got %v, want %v", i, k, 2*j, c, want)
				}
			}
		}
	}
	if !s.Animated() {
		t.Error("an animated set says it is still")
	}
}

// TestNewPieces takes a set as real ones come: one digit taller than the
// rest, and start, end and comma pieces of their own sizes; the set is
// as high as its tallest piece, each piece keeps its size, and a piece it
// lacks (the dash) stays lacking through the stored bytes.
func TestNewPieces(t *testing.T) {
	ds := stills(6, 38)
	ds[3].Frames = []image.Image{digitImage(3, 6, 40, black, clear)}
	ds[Start] = Source{Frames: []image.Image{digitImage(1, 12, 20, white, black)}, Piece: []byte("s"), PieceType: TypePNG}
	ds[End] = Source{Frames: []image.Image{digitImage(2, 9, 44, white, black)}, Piece: []byte("e"), PieceType: TypePNG}
	ds[Comma] = Source{Frames: []image.Image{digitImage(4, 3, 8, white, black)}, Piece: []byte("c"), PieceType: TypeGIF}
	s, err := New(ds, LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][2]int{0: {6, 38}, 3: {6, 40}, Start: {12, 20}, End: {9, 44}, Comma: {3, 8}, Dash: {0, 0}}
	if got.Height != 44 {
		t.Errorf("height %d, want 44 (the end piece's)", got.Height)
	}
	for i, wh := range want {
		d := got.Digits[i]
		if d.Width != wh[0] || d.Height != wh[1] || got.Has(i) != (wh[0] > 0) {
			t.Errorf("%s: %dx%d (has %t), want %dx%d", PieceName(i), d.Width, d.Height, got.Has(i), wh[0], wh[1])
		}
	}
	if u := got.Uses("1,5"); !u[1] || !u[5] || !u[Comma] || !u[Start] || !u[End] || u[Dash] || u[0] {
		t.Errorf("Uses(\"1,5\") = %v", u)
	}
}

func TestNewRefuses(t *testing.T) {
	wide := func(ds [NumPieces]Source) [NumPieces]Source {
		for i := range 10 {
			ds[i].Frames = []image.Image{digitImage(i, MaxSide+1, 10, black, clear)}
		}
		return ds
	}
	for _, tc := range []struct {
		name   string
		digits [NumPieces]Source
		layout string
		digit  int
		reason string
	}{
		{"missing digit", func() [NumPieces]Source { ds := stills(6, 38); ds[7] = Source{}; return ds }(), LayoutPNGFolder, 7, "no image"},
		{"too wide", wide(stills(6, 10)), LayoutStrip, 0, "1025x10 px, at most 1024 px a side"},
		// Work, not shape: eight of a digit this big pass MaxDrawPixels.
		{"too many pixels a digit", stills(257, 256), LayoutPNGFolder, 0, "257x256 px is 65792 pixels, at most 65536 a piece, so that 8 digits make an image of at most 524288 pixels"},
		{"too many pixels a piece", func() [NumPieces]Source {
			ds := stills(6, 38)
			ds[End] = Source{Frames: []image.Image{digitImage(1, 300, 300, white, black)}, Piece: []byte("e"), PieceType: TypePNG}
			return ds
		}(), LayoutPNGFolder, End, "300x300 px is 90000 pixels, at most 65536 a piece"},
		// Each piece is small; the short, wide start drawn as high as
		// the tall digits is not.
		{"wide piece beside tall ones", func() [NumPieces]Source {
			ds := stills(6, 300)
			ds[Start] = Source{Frames: []image.Image{digitImage(1, 250, 10, white, black)}, Piece: []byte("s"), PieceType: TypePNG}
			return ds
		}(), LayoutPNGFolder, Start, "250 px wide at the set's height of 300 px is 75000 pixels, at most 65536 a piece"},
		// Each piece fits; the eight widest digits between the start
		// and the end do not.
		{"eight digits and their ends", func() [NumPieces]Source {
			ds := stills(200, 300)
			ds[Start] = Source{Frames: []image.Image{digitImage(1, 150, 300, white, black)}, Piece: []byte("s"), PieceType: TypePNG}
			ds[End] = Source{Frames: []image.Image{digitImage(2, 150, 300, white, black)}, Piece: []byte("e"), PieceType: TypePNG}
			return ds
		}(), LayoutPNGFolder, Start, "8 digits as wide as the widest make an image of 1900x300 px, 570000 pixels, at most 524288"},
		{"frame of another size", func() [NumPieces]Source {
			ds := animated(6, 20)
			ds[2].Frames[1] = digitImage(2, 7, 20, white, black)
			return ds
		}(), LayoutGIFFolder, 2, "frame 1 is 7x20 px, frame 0 6x20"},
		{"too many frames", func() [NumPieces]Source {
			ds := stills(4, 4)
			for range MaxFrames {
				ds[5].Frames = append(ds[5].Frames, ds[5].Frames[0])
			}
			return ds
		}(), LayoutGIFFolder, 5, "65 frames, at most 64"},
		{"delays and frames", func() [NumPieces]Source { ds := animated(6, 20); ds[1].Delays = ds[1].Delays[:1]; return ds }(), LayoutGIFFolder, 1, "1 delays for 2 frames"},
		{"negative delay", func() [NumPieces]Source { ds := animated(6, 20); ds[4].Delays[1] = -1; return ds }(), LayoutGIFFolder, 4, "frame 1: delay -1"},
		{"no file", func() [NumPieces]Source { ds := stills(6, 20); ds[9].Piece = nil; return ds }(), LayoutPNGFolder, 9, "no file"},
		{"file type", func() [NumPieces]Source { ds := stills(6, 20); ds[0].PieceType = "image/tiff"; return ds }(), LayoutPNGFolder, 0, `file type "image/tiff"`},
		{"file type of no file", func() [NumPieces]Source { ds := stills(6, 20); ds[6].Piece = nil; return ds }(), LayoutStrip, 6, `file type "image/png" of no file`},
		{"too many pixels", func() [NumPieces]Source {
			ds := stills(200, 200)
			for i := range 10 {
				for len(ds[i].Frames) < 11 {
					ds[i].Frames = append(ds[i].Frames, ds[i].Frames[0])
				}
			}
			return ds
		}(), LayoutGIFFolder, 9, "passes 4194304 pixels"},
		{"files too large", func() [NumPieces]Source {
			ds := stills(6, 20)
			for i := range 10 {
				ds[i].Piece = make([]byte, MaxPieceBytes/8)
			}
			return ds
		}(), LayoutPNGFolder, 8, "files pass 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.digits, tc.layout)
			var de *DigitError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a DigitError", err)
			}
			if de.Digit != tc.digit || !strings.Contains(de.Reason, tc.reason) {
				t.Errorf("got %q, want digit %d: ...%s...", err, tc.digit, tc.reason)
			}
		})
	}
	if _, err := New(stills(6, 20), "folder"); err == nil {
		t.Error("an unknown layout is taken")
	}
}

func TestLoop(t *testing.T) {
	for _, tc := range []struct {
		name  string
		loops []int // per animated digit
		want  int
	}{
		{"forever wins", []int{3, 0, -1}, 0},
		{"longest count", []int{-1, 4, 2}, 4},
		{"once", []int{-1, -1}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := stills(6, 20)
			for i, l := range tc.loops {
				ds[i].Frames = append(ds[i].Frames, ds[i].Frames[0])
				ds[i].Loop = l
			}
			ds[9].Loop = 7 // a still digit has no say
			s, err := New(ds, LayoutGIFFolder)
			if err != nil {
				t.Fatal(err)
			}
			if s.Loop != tc.want {
				t.Errorf("got loop %d, want %d", s.Loop, tc.want)
			}
		})
	}
}

// gradient returns ten digits holding between them far more than 256
// colours, some translucent and some fully transparent.
func gradient() [NumPieces]Source {
	var ds [NumPieces]Source
	for i := range 10 {
		img := image.NewNRGBA(image.Rect(0, 0, 32, 32))
		for y := range 32 {
			for x := range 32 {
				c := color.NRGBA{uint8(x * 8), uint8(y * 8), uint8(i * 25), 0xff}
				switch {
				case x == 0:
					c = color.NRGBA{uint8(y), 9, 9, 0} // transparent, whatever its colour
				case x == 1:
					c.A = 0x80
				}
				img.Set(x, y, c)
			}
		}
		ds[i] = Source{Frames: []image.Image{img}, Piece: []byte("x"), PieceType: TypePNG}
	}
	return ds
}

func TestQuantize(t *testing.T) {
	a, err := New(gradient(), LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(gradient(), LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Palette) != maxColors {
		t.Errorf("got %d colours, want %d", len(a.Palette), maxColors)
	}
	if !bytes.Equal(a.Marshal(), b.Marshal()) {
		t.Error("the same digits made two different sets")
	}
	// Every pixel near its colour, and most very near.
	worst, sum, n := 0, 0, 0
	for i, d := range a.Digits[:10] {
		src := gradient()[i].Frames[0]
		for y := range 32 {
			for x := range 32 {
				got := a.Palette[d.Frames[0].Pix[y*32+x]].(color.NRGBA)
				want := color.NRGBAModel.Convert(src.At(x, y)).(color.NRGBA)
				if want.A == 0 {
					if got.A != 0 {
						t.Errorf("digit %d at %d,%d: got %v, want transparent", i, x, y, got)
					}
					continue
				}
				e := far(got, want)
				worst, sum, n = max(worst, e), sum+e, n+1
			}
		}
	}
	t.Logf("largest channel error %d, mean %.1f", worst, float64(sum)/float64(n))
	if worst > 48 || sum > 20*n {
		t.Errorf("got largest channel error %d, mean %.1f, want at most 48 and 20", worst, float64(sum)/float64(n))
	}
}

// far is the largest difference of any channel.
func far(a, b color.NRGBA) int {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return max(d(a.R, b.R), d(a.G, b.G), d(a.B, b.B), d(a.A, b.A))
}

func TestExactPalette(t *testing.T) {
	ds := stills(6, 20)
	// A transparent pixel of another colour is the same colour.
	img := ds[1].Frames[0].(*image.NRGBA)
	img.Set(0, 0, color.NRGBA{1, 2, 3, 0})
	pal := image.NewPaletted(image.Rect(0, 0, 6, 20), color.Palette{black, color.NRGBA{0x10, 0x20, 0x30, 0x40}})
	pal.Pix[5] = 1
	ds[2].Frames[0] = pal
	// Any other image type is read through At: digit 3 as RGBA.
	rgba := image.NewRGBA(image.Rect(0, 0, 6, 20))
	draw.Draw(rgba, rgba.Rect, ds[3].Frames[0], image.Point{}, draw.Src)
	ds[3].Frames[0] = rgba
	s, err := New(ds, LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	want := color.Palette{clear, black, color.NRGBA{0x10, 0x20, 0x30, 0x40}}
	if len(s.Palette) != len(want) {
		t.Fatalf("got palette %v, want %v", s.Palette, want)
	}
	for i := range want {
		if s.Palette[i] != want[i] {
			t.Errorf("colour %d: got %v, want %v", i, s.Palette[i], want[i])
		}
	}
	if got := s.Digits[2].Frames[0].Pix[5]; got != 2 {
		t.Errorf("got index %d, want 2", got)
	}
	want3, err := New(stills(6, 20), LayoutPNGFolder)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Digits[3].Frames[0].Pix, want3.Digits[3].Frames[0].Pix; !bytes.Equal(got, want) {
		t.Errorf("digit 3 from RGBA: got %v, want %v", got, want)
	}
}

// BenchmarkNewTrueColour converts the largest still set digitset add takes:
// ten 200x200 digits of photographic colour, quantised.
func BenchmarkNewTrueColour(b *testing.B) {
	var ds [NumPieces]Source
	for i := range 10 {
		img := image.NewNRGBA(image.Rect(0, 0, MaxSide, MaxSide))
		for y := range MaxSide {
			for x := range MaxSide {
				img.Set(x, y, color.NRGBA{uint8(x + i), uint8(y * 3), uint8(x ^ y), 0xff})
			}
		}
		ds[i] = Source{Frames: []image.Image{img}, Piece: []byte("x"), PieceType: TypePNG}
	}
	for b.Loop() {
		if _, err := New(ds, LayoutPNGFolder); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDetach copies out of a set parsed from stored bytes what a drawing
// reads, and nothing of the bytes: changing them afterwards, as a file
// remapped or rewritten would, changes nothing in the copy.
func TestDetach(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		frames int
		pieces bool
	}{
		{"a PNG's first frames", "5520", 1, false},
		{"a GIF's every frame", "5520", MaxFrames, false},
		{"an SVG's files", "5520", 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(animated(6, 24), LayoutGIFFolder)
			if err != nil {
				t.Fatal(err)
			}
			stored := s.Marshal()
			mapped, err := Parse(stored)
			if err != nil {
				t.Fatal(err)
			}
			c := mapped.Detach(tc.text, tc.frames, tc.pieces)
			for i := range stored {
				stored[i] = 0xee // the file's bytes gone
			}
			if c.Height != s.Height || c.Loop != s.Loop || c.Layout != s.Layout || len(c.Palette) != len(s.Palette) {
				t.Errorf("header: got %d %d %s %d colours, want %d %d %s %d", c.Height, c.Loop, c.Layout, len(c.Palette), s.Height, s.Loop, s.Layout, len(s.Palette))
			}
			for i, d := range c.Digits[:10] {
				if d.Width != s.Digits[i].Width {
					t.Errorf("digit %d: width %d, want %d", i, d.Width, s.Digits[i].Width)
				}
				if !strings.ContainsRune(tc.text, rune('0'+i)) {
					if d.Frames != nil || d.Piece != nil {
						t.Errorf("digit %d, not in %q: %d frames, piece %q; want none", i, tc.text, len(d.Frames), d.Piece)
					}
					continue
				}
				want := s.Digits[i].Frames[:min(tc.frames, len(s.Digits[i].Frames))]
				if len(d.Frames) != len(want) {
					t.Fatalf("digit %d: %d frames, want %d", i, len(d.Frames), len(want))
				}
				for k, f := range d.Frames {
					if f.Delay != want[k].Delay || !bytes.Equal(f.Pix, want[k].Pix) {
						t.Errorf("digit %d frame %d: delay %d, pixels %v; want %d, %v", i, k, f.Delay, f.Pix[:6], want[k].Delay, want[k].Pix[:6])
					}
				}
				if wantPiece := s.Digits[i].Piece; tc.pieces && (!bytes.Equal(d.Piece, wantPiece) || d.PieceType != s.Digits[i].PieceType) {
					t.Errorf("digit %d: piece %q %s, want %q %s", i, d.Piece, d.PieceType, wantPiece, s.Digits[i].PieceType)
				} else if !tc.pieces && d.Piece != nil {
					t.Errorf("digit %d: piece %q, want none", i, d.Piece)
				}
			}
		})
	}
}

// TestRealShapesFit takes sets shaped as the largest that real counters
// ship (deploy/bench/realsets measured them: Moe-Counter's assets/theme
// at 8abee4d): the tallest digits, 200x300 (yousa-ling); the widest,
// 189x109 (booru-yuyuyui); 12 frames of 45x100 (booru-lewd); and JPEG and
// WebP digits, which are stored as any other and read back.
func TestRealShapesFit(t *testing.T) {
	frames := func(ds [NumPieces]Source, n int) [NumPieces]Source {
		for i := range 10 {
			for len(ds[i].Frames) < n {
				ds[i].Frames = append(ds[i].Frames, ds[i].Frames[0])
				ds[i].Delays = append(ds[i].Delays, 10)
			}
			if len(ds[i].Delays) < n {
				ds[i].Delays = append(ds[i].Delays, 10)
			}
		}
		return ds
	}
	typed := func(ds [NumPieces]Source, typ string) [NumPieces]Source {
		for i := range 10 {
			ds[i].PieceType = typ
		}
		return ds
	}
	for _, tc := range []struct {
		name   string
		digits [NumPieces]Source
		layout string
	}{
		{"tallest", stills(200, 300), LayoutPNGFolder},
		{"widest", stills(189, 109), LayoutPNGFolder},
		{"animated", frames(stills(45, 100), 12), LayoutGIFFolder},
		{"jpeg", typed(stills(65, 140), TypeJPEG), LayoutJPEGFolder},
		{"webp", typed(stills(65, 140), TypeWebP), LayoutWebPFolder},
		// capoo-2, the one real set with _start and _end.
		{"start and end", func() [NumPieces]Source {
			ds := stills(36, 115)
			ds[Start] = Source{Frames: []image.Image{digitImage(1, 87, 115, white, black)}, Piece: []byte("s"), PieceType: TypePNG}
			ds[End] = Source{Frames: []image.Image{digitImage(2, 66, 115, white, black)}, Piece: []byte("e"), PieceType: TypePNG}
			return ds
		}(), LayoutPNGFolder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.digits, tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Parse(s.Marshal())
			if err != nil {
				t.Fatal(err)
			}
			if p.Layout != tc.layout || p.Digits[3].PieceType != tc.digits[3].PieceType || len(p.Digits[3].Frames) != len(tc.digits[3].Frames) {
				t.Errorf("got %s, %s, %d frames; want %s, %s, %d", p.Layout, p.Digits[3].PieceType, len(p.Digits[3].Frames),
					tc.layout, tc.digits[3].PieceType, len(tc.digits[3].Frames))
			}
			if w := (FitDigits*p.Digits[0].Width + p.Digits[Start].Width + p.Digits[End].Width) * p.Height; w > MaxDrawPixels {
				t.Errorf("%d digits and their pieces are %d pixels, over %d", FitDigits, w, MaxDrawPixels)
			}
		})
	}
}

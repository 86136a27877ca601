package draw

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// TestDigitSetPNG draws counts in each layout and finds every digit's
// pixels where they belong, edge to edge.
func TestDigitSetPNG(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(testing.TB) *digitset.Set
		width func(int) int
		text  string
	}{
		{"png folder", stillSet, setWidth, "1234567890"},
		{"leading zeros", stillSet, setWidth, counter.Digits(42, 6)},
		{"one digit", stillSet, setWidth, "8"},
		{"strip", stripSet, func(int) int { return 7 }, "0909"},
		{"gif folder's first frames", animSet, setWidth, "31415"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDigitSet(&b, tc.set(t), tc.text, counter.PNG, SetOptions{}); err != nil {
				t.Fatal(err)
			}
			got, err := png.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			want := expected(tc.text, tc.width, func(int) int { return 0 })
			if got.Bounds() != want.Bounds() {
				t.Fatalf("got %v, want %v", got.Bounds(), want.Bounds())
			}
			if n := sameImage(got, want); n != 0 {
				t.Errorf("%d pixels differ", n)
			}
			// And the PNG is exact: translucency and all.
			if c := color.NRGBAModel.Convert(got.At(0, 0)).(color.NRGBA); c.A != 0 {
				t.Errorf("top left pixel: got %v, want clear", c)
			}
		})
	}
}

// TestDigitSetScaled draws at other heights: nearest neighbour repeats
// the set's pixels, the smooth filter mixes them.
func TestDigitSetScaled(t *testing.T) {
	s := stillSet(t)
	for _, tc := range []struct {
		height int
		smooth bool
	}{{30, false}, {5, false}, {30, true}, {4, true}, {256, false}} {
		t.Run(strconv.Itoa(tc.height)+map[bool]string{false: "", true: "/smooth"}[tc.smooth], func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDigitSet(&b, s, "120", counter.PNG, SetOptions{Height: tc.height, Smooth: tc.smooth}); err != nil {
				t.Fatal(err)
			}
			got, err := png.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			w, h, err := SetSize(s, "120", SetOptions{Height: tc.height})
			if err != nil {
				t.Fatal(err)
			}
			sw := 0
			for _, k := range []int{1, 2, 0} {
				sw += max(1, (setWidth(k)*tc.height+setHeight/2)/setHeight)
			}
			if got.Bounds() != image.Rect(0, 0, w, h) || w != sw || h != tc.height {
				t.Fatalf("got %v, SetSize %dx%d, want %dx%d", got.Bounds(), w, h, sw, tc.height)
			}
			// The middle of each digit is its colour, the bottom row black.
			x := 0
			for _, k := range []int{1, 2, 0} {
				dw := max(1, (setWidth(k)*tc.height+setHeight/2)/setHeight)
				if tc.height >= 10 {
					c := color.NRGBAModel.Convert(got.At(x+dw/2, tc.height/2)).(color.NRGBA)
					if c != digitColor(k, 0) {
						t.Errorf("digit %d's middle: got %v, want %v", k, c, digitColor(k, 0))
					}
					c = color.NRGBAModel.Convert(got.At(x+dw/2, tc.height-1)).(color.NRGBA)
					if !tc.smooth && c != (color.NRGBA{0, 0, 0, 0xff}) {
						t.Errorf("digit %d's bottom: got %v, want black", k, c)
					}
				}
				x += dw
			}
			if !tc.smooth && tc.height%setHeight == 0 {
				// A whole multiple repeats each pixel n by n.
				n := tc.height / setHeight
				own := expected("120", setWidth, func(int) int { return 0 })
				diff := 0
				for y := range tc.height {
					for x := range w {
						a := color.NRGBAModel.Convert(got.At(x, y)).(color.NRGBA)
						if a != own.NRGBAAt(x/n, y/n) {
							diff++
						}
					}
				}
				if diff > 0 {
					t.Errorf("%d pixels are not their source pixel repeated %d by %d", diff, n, n)
				}
			}
			if tc.smooth && tc.height == 30 {
				// A mix of colour and black between the middle and the bottom.
				mixed := false
				for y := 20; y < 30; y++ {
					c := color.NRGBAModel.Convert(got.At(setWidth(1)*3/2, y)).(color.NRGBA)
					mixed = mixed || c != digitColor(1, 0) && c != (color.NRGBA{0, 0, 0, 0xff})
				}
				if !mixed {
					t.Error("the smooth filter mixed no colours")
				}
			}
		})
	}
}

func TestDigitSetRefuses(t *testing.T) {
	s := stillSet(t)
	partial, err := digitset.ParseHeader(s.MarshalHeader())
	if err != nil {
		t.Fatal(err)
	}
	if err := partial.ParseDigit(4, s.MarshalDigit(4)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		set      *digitset.Set
		text     string
		opt      SetOptions
		tooLarge bool
	}{
		{"placeholder", s, "---", SetOptions{}, false},
		{"empty", s, "", SetOptions{}, false},
		{"too wide", s, strings.Repeat("8", 20), SetOptions{Height: MaxSetHeight}, true},
		{"too many pixels", s, strings.Repeat("8", 20), SetOptions{Height: 400}, true},
		{"too many pixels smoothed", s, strings.Repeat("8", 20), SetOptions{Height: 130, Smooth: true}, true},
		{"too high", s, "1", SetOptions{Height: MaxSetHeight + 1}, true},
		{"negative height", s, "1", SetOptions{Height: -1}, true},
		{"digit not read", partial, "45", SetOptions{}, false},
		{"an empty set", &digitset.Set{}, "1", SetOptions{}, false},
		{"no widths", &digitset.Set{Height: 10, Palette: s.Palette}, "1", SetOptions{}, false},
		{"too many colours", &digitset.Set{Height: 10, Palette: make(color.Palette, 257), Digits: s.Digits}, "1", SetOptions{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []counter.ImageType{counter.PNG, counter.GIF, counter.SVG} {
				var b bytes.Buffer
				err := WriteDigitSet(&b, tc.set, tc.text, f, tc.opt)
				if err == nil {
					t.Fatalf("%v: drew it", f)
				}
				if errors.Is(err, ErrSetTooLarge) != tc.tooLarge {
					t.Errorf("%v: got %v, want ErrSetTooLarge %v", f, err, tc.tooLarge)
				}
				if b.Len() != 0 {
					t.Errorf("%v: wrote %d bytes before the error", f, b.Len())
				}
			}
		})
	}
	// As many pixels unsmoothed draw: smoothing costs more a pixel.
	if err := WriteDigitSet(new(bytes.Buffer), s, strings.Repeat("8", 20), counter.PNG, SetOptions{Height: 130}); err != nil {
		t.Errorf("20 digits at 130 px, not smoothed: %v", err)
	}
	// A digit that was read draws.
	if err := WriteDigitSet(new(bytes.Buffer), partial, "44", counter.GIF, SetOptions{}); err != nil {
		t.Errorf("digit 4 read: %v", err)
	}
}

// TestDigitSetDamagedFrame: a stored frame indexing past the palette is
// refused by the drawings that read it, and only by them: the PNG reads
// each digit's first frame, the SVG embeds the digits' files, and the GIF
// reads every frame.
func TestDigitSetDamagedFrame(t *testing.T) {
	s := animSet(t)
	if len(s.Palette) >= 256 || len(s.Digits[7].Frames) < 2 {
		t.Fatalf("%d colours, %d frames of 7: the test needs a spare index and a second frame", len(s.Palette), len(s.Digits[7].Frames))
	}
	rec := s.MarshalDigit(7)
	whole, at := s.Marshal(), -1
	if at = bytes.Index(whole, rec); at < 0 {
		t.Fatal("digit 7's record is not in the whole set's bytes")
	}
	damaged, err := digitset.ParseHeader(s.MarshalHeader())
	if err != nil {
		t.Fatal(err)
	}
	if err := damaged.ParseDigit(7, rec); err != nil {
		t.Fatal(err)
	}
	damaged.Digits[7].Frames[1].Pix[0] = 255 // aliases rec
	for _, tc := range []struct {
		typ counter.ImageType
		ok  bool
	}{
		{counter.PNG, true},
		{counter.SVG, true},
		{counter.GIF, false},
	} {
		var b bytes.Buffer
		err := WriteDigitSet(&b, damaged, "77", tc.typ, SetOptions{})
		if (err == nil) != tc.ok || !tc.ok && (!errors.Is(err, digitset.ErrDamaged) || b.Len() != 0) {
			t.Errorf("%v: got %v and %d bytes, want drawn %v", tc.typ, err, b.Len(), tc.ok)
		}
	}
	copy(whole[at:], rec)
	if _, err := digitset.Parse(whole); !errors.Is(err, digitset.ErrDamaged) {
		t.Errorf("the whole set with the damaged frame: got %v, want ErrDamaged", err)
	}
}

// TestDigitSetGolden keeps small composed images as they are drawn now;
// go test ./counter/draw -update rewrites them.
func TestDigitSetGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		set  func(testing.TB) *digitset.Set
		text string
		opt  SetOptions
	}{
		{"digitset-still.png", stillSet, "0042", SetOptions{}},
		{"digitset-strip-24.png", stripSet, "1907", SetOptions{Height: 24}},
		{"digitset-smooth-24.png", stillSet, "1907", SetOptions{Height: 24, Smooth: true}},
		{"digitset-anim.gif", animSet, "1120", SetOptions{}},
		{"digitset-anim-20.gif", animSet, "2201", SetOptions{Height: 20}},
		{"digitset-anim.svg", animSet, "0012", SetOptions{Height: 20}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDigitSet(&b, tc.set(t), tc.text, typeOf(t, tc.file), tc.opt); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.file, b.Bytes())
			if strings.HasSuffix(tc.file, ".gif") && !*update {
				compareGIFFrames(t, tc.file, b.Bytes())
			}
		})
	}
}

// FuzzDigitSet draws every set that digitset.Parse takes from damaged
// bytes, in every image type: none may panic, and the raster ones decode.
func FuzzDigitSet(f *testing.F) {
	f.Add(stillSet(f).Marshal(), "0123456789", 0, false)
	f.Add(animSet(f).Marshal(), "1120", 17, true)
	f.Fuzz(func(t *testing.T, b []byte, text string, height int, smooth bool) {
		s, err := digitset.Parse(b)
		if err != nil {
			return
		}
		opt := SetOptions{Height: height, Smooth: smooth}
		for _, typ := range []counter.ImageType{counter.PNG, counter.GIF, counter.SVG} {
			var out bytes.Buffer
			if err := WriteDigitSet(&out, s, text, typ, opt); err != nil {
				if out.Len() != 0 {
					t.Fatalf("%v: %v after %d bytes", typ, err, out.Len())
				}
				continue
			}
			if typ == counter.SVG {
				continue
			}
			img, _, err := image.Decode(&out)
			if err != nil {
				t.Fatalf("%v: %v", typ, err)
			}
			if r := img.Bounds(); r.Dx() > MaxSetWidth || r.Dy() > MaxSetHeight {
				t.Fatalf("%v: %v", typ, r)
			}
		}
	})
}

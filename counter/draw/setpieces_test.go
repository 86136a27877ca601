package draw

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"strings"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

// withPiece returns the pieces of set made by make, and piece k of w x h
// in colour c.
func withPiece(tb testing.TB, src [digitset.NumPieces]digitset.Source, k, w, h int, c color.NRGBA) [digitset.NumPieces]digitset.Source {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	piece, typ := encodePiece(tb, []image.Image{img}, nil)
	src[k] = digitset.Source{Frames: []image.Image{img}, Piece: piece, PieceType: typ}
	return src
}

// stillSources are stillSet's digits.
func stillSources(tb testing.TB) [digitset.NumPieces]digitset.Source {
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		f := []image.Image{digitFrame(k, 0, setWidth(k), setHeight)}
		piece, typ := encodePiece(tb, f, nil)
		src[k] = digitset.Source{Frames: f, Piece: piece, PieceType: typ}
	}
	return src
}

// TestSetDashAndComma draws the dashes of a count not known with a set's
// dash piece, and a comma between thousands with its comma piece, at
// the top (align's default), the gaps below them clear; a set without
// them cannot draw them: nothing is invented.
func TestSetDashAndComma(t *testing.T) {
	dash, comma := color.NRGBA{200, 10, 10, 0xff}, color.NRGBA{10, 200, 10, 0xff}
	src := withPiece(t, stillSources(t), digitset.Dash, 5, 3, dash)
	src = withPiece(t, src, digitset.Comma, 2, 4, comma)
	s := newSet(t, src, digitset.LayoutNamedFolder)
	for _, tc := range []struct {
		text  string
		align counter.Align
		// each piece's colour at its x, and its y
		at []struct{ x, y int }
	}{
		{"---", counter.AlignTop, []struct{ x, y int }{{0, 0}, {5, 0}, {10, 0}}},
		{"1,0", counter.AlignBottom, []struct{ x, y int }{{1, 5}, {setWidth(1), setHeight - 4}, {setWidth(1) + 2 + 1, 5}}},
	} {
		var b bytes.Buffer
		if err := WriteDigitSet(&b, s, tc.text, counter.PNG, SetOptions{Align: tc.align}); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range tc.at {
			got := color.NRGBAModel.Convert(img.At(p.x, p.y)).(color.NRGBA)
			want := map[byte]color.NRGBA{'-': dash, ',': comma, '1': digitColor(1, 0), '0': digitColor(0, 0)}[tc.text[i]]
			if got != want {
				t.Errorf("%q: %c at (%d,%d) is %v, want %v", tc.text, tc.text[i], p.x, p.y, got, want)
			}
		}
		if tc.text == "---" {
			if img.Bounds().Dx() != 15 || img.Bounds().Dy() != setHeight {
				t.Errorf("%q: %v, want 15x%d (the tallest piece, a digit, sets the height)", tc.text, img.Bounds(), setHeight)
			}
			if _, _, _, a := img.At(2, 3).RGBA(); a != 0 {
				t.Errorf("%q: below a dash is not clear", tc.text)
			}
		}
	}
	plain := stillSet(t)
	for _, text := range []string{"---", "1,0"} {
		if CanDrawSet(plain, text) {
			t.Errorf("a set without a dash and a comma says it can draw %q", text)
		}
		if err := WriteDigitSet(&bytes.Buffer{}, plain, text, counter.PNG, SetOptions{}); err == nil {
			t.Errorf("a set without a dash and a comma drew %q", text)
		}
	}
}

// TestSetOverlapGIF draws an animated set with a negative offset: every
// frame of the GIF shows each piece over the one before it, as an SVG's
// <use>s are painted, and the first piece where nothing covers it.
func TestSetOverlapGIF(t *testing.T) {
	s := animSet(t) // digits of solid colours but for a clear pixel or two
	for _, text := range []string{"12", "71", "3"} {
		var b bytes.Buffer
		if err := WriteDigitSet(&b, s, text, counter.GIF, SetOptions{Offset: -3}); err != nil {
			t.Fatal(err)
		}
		g, err := gif.DecodeAll(&b)
		if err != nil {
			t.Fatal(err)
		}
		wantW := -3 * (len(text) - 1)
		for i := 0; i < len(text); i++ {
			wantW += setWidth(int(text[i] - '0'))
		}
		if g.Config.Width != wantW {
			t.Errorf("%q: %d px wide, want %d", text, g.Config.Width, wantW)
		}
		if len(text) < 2 {
			continue
		}
		a, c := int(text[0]-'0'), int(text[1]-'0')
		colours := func(k int) map[color.NRGBA]bool {
			m := map[color.NRGBA]bool{}
			for f := range animDelays[k] {
				m[digitColor(k, f)] = true
			}
			return m
		}
		first, second := colours(a), colours(c)
		canvas := image.NewNRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
		for n, f := range g.Image {
			drawOver(canvas, f)
			// The overlap's middle row, away from the clear pixels at
			// the top: the second piece's; left of it, the first's.
			y := setHeight / 2
			over := color.NRGBAModel.Convert(canvas.At(setWidth(a)-2, y)).(color.NRGBA)
			left := color.NRGBAModel.Convert(canvas.At(setWidth(a)-4, y)).(color.NRGBA)
			if !second[over] {
				t.Errorf("%q frame %d: the overlap shows %v, not the second digit", text, n, over)
			}
			if !first[left] {
				t.Errorf("%q frame %d: left of the overlap %v, not the first digit", text, n, left)
			}
			if g.Disposal[n] == gif.DisposalBackground {
				clearRect(canvas, f.Bounds())
			}
		}
	}
}

func drawOver(canvas *image.NRGBA, f *image.Paletted) {
	b := f.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if c := color.NRGBAModel.Convert(f.At(x, y)).(color.NRGBA); c.A != 0 {
				canvas.SetNRGBA(x, y, c)
			}
		}
	}
}

func clearRect(canvas *image.NRGBA, r image.Rectangle) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			canvas.SetNRGBA(x, y, color.NRGBA{})
		}
	}
}

// TestSetDarkmode dims as Moe-Counter's darkmode= does: an SVG by CSS, in
// the viewer's dark mode (auto) or always (1); a PNG, which carries no
// CSS, only always, its colours at 0.6.
func TestSetDarkmode(t *testing.T) {
	s := stillSet(t)
	for _, tc := range []struct {
		dim  counter.Dim
		want string
	}{
		{counter.DimNone, ""},
		{counter.DimAuto, "<style>@media (prefers-color-scheme: dark) { svg { filter: brightness(.6); } }</style>"},
		{counter.DimAlways, "<style>svg { filter: brightness(.6); }</style>"},
	} {
		var b bytes.Buffer
		if err := WriteDigitSet(&b, s, "42", counter.SVG, SetOptions{Dim: tc.dim}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "brightness"); got != (tc.want != "") || !strings.Contains(b.String(), tc.want) {
			t.Errorf("dim %d: SVG %.300s, want %q", tc.dim, b.String(), tc.want)
		}
	}
	var b bytes.Buffer
	if err := WriteDigitSet(&b, s, "4", counter.PNG, SetOptions{Dim: counter.DimAlways}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	c, want := color.NRGBAModel.Convert(img.At(3, 3)).(color.NRGBA), digitColor(4, 0)
	if c != (color.NRGBA{uint8(int(want.R) * 6 / 10), uint8(int(want.G) * 6 / 10), uint8(int(want.B) * 6 / 10), 0xff}) {
		t.Errorf("darkmode=1 PNG: %v, want %v at 0.6", c, want)
	}
}

// TestSetOverlapBound: the pixels a set's image may have bound the
// pieces drawn, not only the image: with a negative offset, nine digits
// of 250x250 overlap into an image of 1450x250 px, but are 2250x250 of
// pieces drawn one over another, past digitset.MaxDrawPixels as nine
// side by side are; eight fit.
func TestSetOverlapBound(t *testing.T) {
	s := &digitset.Set{Height: 250, Palette: color.Palette{color.NRGBA{}}}
	for i := range 10 {
		s.Digits[i] = digitset.Digit{Width: 250, Height: 250}
	}
	for _, tc := range []struct {
		text   string
		offset int
		width  int // 0: too large
	}{
		{"00000000", 0, 2000},
		{"00000000", -100, 1300},
		{"000000000", 0, 0},
		{"000000000", -100, 0},
	} {
		w, _, err := SetSize(s, tc.text, SetOptions{Offset: tc.offset})
		if tc.width == 0 && !errors.Is(err, ErrSetTooLarge) || tc.width != 0 && (err != nil || w != tc.width) {
			t.Errorf("%s at offset %d: %d px wide, %v; want %d (0: too large)", tc.text, tc.offset, w, err, tc.width)
		}
	}
}

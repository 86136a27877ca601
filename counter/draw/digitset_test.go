package draw

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		{"too wide", s, strings.Repeat("8", 20), SetOptions{Height: 100}, true},
		{"too high", s, "1", SetOptions{Height: MaxSetHeight + 1}, true},
		{"negative height", s, "1", SetOptions{Height: -1}, true},
		{"digit not read", partial, "45", SetOptions{}, false},
		{"an empty set", &digitset.Set{}, "1", SetOptions{}, false},
		{"no widths", &digitset.Set{Height: 10, Palette: s.Palette}, "1", SetOptions{}, false},
		{"too many colours", &digitset.Set{Height: 10, Palette: make(color.Palette, 257), Digits: s.Digits}, "1", SetOptions{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []counter.Format{counter.PNG, counter.GIF, counter.SVG} {
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
	// A digit that was read draws.
	if err := WriteDigitSet(new(bytes.Buffer), partial, "44", counter.GIF, SetOptions{}); err != nil {
		t.Errorf("digit 4 read: %v", err)
	}
}

// playGIF composes a GIF's frames as a browser does, disposal applied,
// through one cycle and the first frame of the next, and returns each
// frame as shown, with its delay.
func playGIF(t *testing.T, g *gif.GIF) []*image.NRGBA {
	t.Helper()
	canvas := image.NewNRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	var shown []*image.NRGBA
	for i := 0; i <= len(g.Image); i++ {
		n := i % len(g.Image)
		f := g.Image[n]
		draw.Draw(canvas, f.Rect, f, f.Rect.Min, draw.Over)
		snap := image.NewNRGBA(canvas.Rect)
		copy(snap.Pix, canvas.Pix)
		shown = append(shown, snap)
		switch g.Disposal[n] {
		case gif.DisposalBackground:
			draw.Draw(canvas, f.Rect, image.Transparent, image.Point{}, draw.Src)
		case gif.DisposalPrevious:
			t.Fatalf("frame %d: disposal previous, which the encoder never writes", n)
		}
	}
	return shown
}

// TestDigitSetGIF checks every frame of an animated count against the
// digits' own timelines, centisecond by centisecond: digits in step, each
// with its own delays, the boundaries the union of their changes.
func TestDigitSetGIF(t *testing.T) {
	s := animSet(t)
	for _, tc := range []struct {
		text       string
		cycle      int // the output's, in hundredths
		frames     int
		firstDelay int
	}{
		{"1120", 50, 6, 10},                   // 1 changes at 20, 50; 2 at 10, 20, 25, 35, 45, 50
		{"0008", 0, 1, 0},                     // still digits: one frame
		{"96", 72, 13, 9},                     // 9 every 9; 6 at 11, 24, 35, 48, 59, 72
		{"3", 28, 4, 7},                       // one digit's own frames
		{"0123456789", 6000, MaxSetFrames, 7}, // cut at the frame cap
	} {
		t.Run(tc.text, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDigitSet(&b, s, tc.text, counter.GIF, SetOptions{}); err != nil {
				t.Fatal(err)
			}
			g, err := gif.DecodeAll(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Image) != tc.frames {
				t.Errorf("got %d frames, want %d", len(g.Image), tc.frames)
			}
			if tc.frames == 1 {
				if g.LoopCount != -1 && g.LoopCount != 0 {
					t.Errorf("still: got loop count %d", g.LoopCount)
				}
			} else if g.LoopCount != 0 {
				t.Errorf("got loop count %d, want 0 (for ever)", g.LoopCount)
			}
			total := 0
			for _, d := range g.Delay {
				total += d
			}
			if tc.cycle != 6000 && total != tc.cycle {
				t.Errorf("got a cycle of %d, want %d (delays %v)", total, tc.cycle, g.Delay)
			}
			if g.Delay[0] != tc.firstDelay {
				t.Errorf("got first delay %d, want %d", g.Delay[0], tc.firstDelay)
			}
			// Each digit's frame at time t in its own timeline.
			frameAt := func(k, at int) int {
				ds := animDelays[k]
				if len(ds) == 1 {
					return 0
				}
				cycle := 0
				for _, d := range ds {
					cycle += gifDelay(d)
				}
				at %= cycle
				for f, d := range ds {
					if at < gifDelay(d) {
						return f
					}
					at -= gifDelay(d)
				}
				panic("unreachable")
			}
			shown := playGIF(t, g)
			start := 0
			for i, d := range g.Delay {
				for at := start; at < start+max(d, 1); at++ {
					want := expected(tc.text, setWidth, func(k int) int { return frameAt(k, at) })
					if n := sameImage(shown[i], want); n != 0 {
						t.Fatalf("frame %d (from %d to %d) at %d: %d pixels differ", i, start, start+d, at, n)
					}
				}
				start += d
			}
			// Looping back shows the first frame as it was.
			if n := sameImage(shown[len(shown)-1], shown[0]); n != 0 {
				t.Errorf("after a loop, the first frame has %d pixels other than at first", n)
			}
		})
	}
}

// TestDigitSetGIFLoop: a GIF loops as the set's source did.
func TestDigitSetGIFLoop(t *testing.T) {
	s := animSet(t)
	for _, loop := range []int{0, -1, 3} {
		s.Loop = loop
		var b bytes.Buffer
		if err := WriteDigitSet(&b, s, "12", counter.GIF, SetOptions{Height: 20}); err != nil {
			t.Fatal(err)
		}
		g, err := gif.DecodeAll(&b)
		if err != nil {
			t.Fatal(err)
		}
		if g.LoopCount != loop {
			t.Errorf("got loop count %d, want %d", g.LoopCount, loop)
		}
	}
}

// TestDigitSetSVG checks that each digit drawn is embedded once, as its
// own file, and placed edge to edge at the output's scale.
func TestDigitSetSVG(t *testing.T) {
	s := animSet(t)
	var b bytes.Buffer
	if err := WriteDigitSet(&b, s, "0100", counter.SVG, SetOptions{Height: 20}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	images := regexp.MustCompile(`<image id="d(\d)" width="(\d+)" height="20" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:(image/\w+);base64,([^"]*)"/>`).FindAllStringSubmatch(svg, -1)
	if len(images) != 2 {
		t.Fatalf("got %d images, want 2: %s", len(images), svg)
	}
	for _, m := range images {
		k, _ := strconv.Atoi(m[1])
		piece, err := base64.StdEncoding.DecodeString(m[4])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(piece, s.Digits[k].Piece) || m[3] != s.Digits[k].PieceType {
			t.Errorf("digit %d: the embedded %s is not the digit's own file", k, m[3])
		}
		if w, _ := strconv.Atoi(m[2]); w != 2*setWidth(k) {
			t.Errorf("digit %d: got width %d, want %d", k, w, 2*setWidth(k))
		}
	}
	uses := regexp.MustCompile(`<use href="#d(\d)" x="(\d+)"/>`).FindAllStringSubmatch(svg, -1)
	x := 0
	for i, k := range []int{0, 1, 0, 0} {
		if i >= len(uses) || uses[i][1] != strconv.Itoa(k) || uses[i][2] != strconv.Itoa(x) {
			t.Fatalf("got uses %v, want digit %d at %d", uses, k, x)
		}
		x += 2 * setWidth(k)
	}
	if !strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="`+strconv.Itoa(x)+`" height="20" viewBox="0 0 `+strconv.Itoa(x)+` 20"`) {
		t.Errorf("got %.120s, want an SVG %d by 20", svg, x)
	}
	var smooth bytes.Buffer
	WriteDigitSet(&smooth, s, "1", counter.SVG, SetOptions{Height: 20, Smooth: true})
	if strings.Contains(smooth.String(), "pixelated") {
		t.Error("a smooth SVG asks for pixelated rendering")
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
			if err := WriteDigitSet(&b, tc.set(t), tc.text, formatOf(t, tc.file), tc.opt); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.file, b.Bytes())
			if strings.HasSuffix(tc.file, ".gif") && !*update {
				compareGIFFrames(t, tc.file, b.Bytes())
			}
		})
	}
}

// compareGIFFrames compares every frame and delay of an animated golden
// GIF, which checkGolden's decoding reads the first frame of.
func compareGIFFrames(t *testing.T, file string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(goldenDir, file))
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	w, err := gif.DecodeAll(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Delay, w.Delay) || g.LoopCount != w.LoopCount {
		t.Fatalf("got delays %v, loop %d, want %v, %d", g.Delay, g.LoopCount, w.Delay, w.LoopCount)
	}
	gs, ws := playGIF(t, g), playGIF(t, w)
	for i := range gs {
		if n := sameImage(gs[i], ws[i]); n != 0 {
			t.Errorf("frame %d: %d pixels differ", i, n)
		}
	}
}

// TestDigitSetGIFBudget: large digits changing out of step would make
// more frames than MaxSetFrames; the composition's pixel budget cuts the
// animation sooner, and what is drawn is still a valid GIF.
func TestDigitSetGIFBudget(t *testing.T) {
	primes := []int{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}
	var src [10]digitset.Source
	for k := range src {
		d := digitset.Source{Piece: []byte("gif"), PieceType: digitset.TypeGIF}
		for f := range 8 {
			d.Frames = append(d.Frames, digitFrame(k, f%4, 100, 200))
			d.Delays = append(d.Delays, primes[k])
		}
		src[k] = d
	}
	s := newSet(t, src, digitset.LayoutGIFFolder)
	var b bytes.Buffer
	if err := WriteDigitSet(&b, s, "0123", counter.GIF, SetOptions{Height: MaxSetHeight}); err != nil {
		t.Fatal(err)
	}
	size := b.Len()
	g, err := gif.DecodeAll(&b)
	if err != nil {
		t.Fatal(err)
	}
	// 161 of the hundredths before 210 end a frame of 2, 3, 5 or 7.
	if n := len(g.Image); n < 2 || n >= MaxSetFrames {
		t.Errorf("got %d frames, want the budget to cut under %d", n, MaxSetFrames)
	}
	if g.Config.Width != 512 || g.Config.Height != MaxSetHeight {
		t.Errorf("got %dx%d, want 512x%d", g.Config.Width, g.Config.Height, MaxSetHeight)
	}
	t.Logf("%d frames, %d bytes", len(g.Image), size)
}

// FuzzDigitSet draws every set that digitset.Parse takes from damaged
// bytes, in every format: none may panic, and the raster ones decode.
func FuzzDigitSet(f *testing.F) {
	f.Add(stillSet(f).Marshal(), "0123456789", 0, false)
	f.Add(animSet(f).Marshal(), "1120", 17, true)
	f.Fuzz(func(t *testing.T, b []byte, text string, height int, smooth bool) {
		s, err := digitset.Parse(b)
		if err != nil {
			return
		}
		opt := SetOptions{Height: height, Smooth: smooth}
		for _, format := range []counter.Format{counter.PNG, counter.GIF, counter.SVG} {
			var out bytes.Buffer
			if err := WriteDigitSet(&out, s, text, format, opt); err != nil {
				if out.Len() != 0 {
					t.Fatalf("%v: %v after %d bytes", format, err, out.Len())
				}
				continue
			}
			if format == counter.SVG {
				continue
			}
			img, _, err := image.Decode(&out)
			if err != nil {
				t.Fatalf("%v: %v", format, err)
			}
			if r := img.Bounds(); r.Dx() > MaxSetWidth || r.Dy() > MaxSetHeight {
				t.Fatalf("%v: %v", format, r)
			}
		}
	})
}

// TestDigitPNG: a strip's digits stored without files are embedded in an
// SVG as PNGs of their first frames, which DigitPNG makes.
func TestDigitPNG(t *testing.T) {
	s := stripSet(t)
	for k := range s.Digits {
		s.Digits[k].Piece, s.Digits[k].PieceType = nil, ""
	}
	s, err := digitset.Parse(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for k := range 10 {
		piece, err := DigitPNG(s, k)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(piece))
		if err != nil {
			t.Fatal(err)
		}
		if n := sameImage(img, digitFrame(k, 0, 7, setHeight)); n != 0 {
			t.Errorf("digit %d: %d pixels differ", k, n)
		}
	}
	var b bytes.Buffer
	if err := WriteDigitSet(&b, s, "3", counter.SVG, SetOptions{}); err != nil {
		t.Fatal(err)
	}
	want, _ := DigitPNG(s, 3)
	if !strings.Contains(b.String(), `href="data:image/png;base64,`+base64.StdEncoding.EncodeToString(want)+`"`) {
		t.Errorf("the SVG does not embed digit 3's PNG: %.200s", b.String())
	}
}

package draw

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
)

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
	sets := map[bool]*digitset.Set{false: animSet(t), true: animSetOf(t, dotFrame)}
	for _, tc := range []struct {
		text       string
		dots       bool // dotFrame's digits, mostly clear, for digitFrame's
		cycle      int  // the output's, in hundredths
		frames     int
		firstDelay int
	}{
		{"1120", false, 50, 6, 10},                   // 1 changes at 20, 50; 2 at 10, 20, 25, 35, 45, 50
		{"0008", false, 0, 1, 0},                     // still digits: one frame
		{"96", false, 72, 12, 9},                     // 9 every 9; 6 at 11, 24, 35 (shown from 36), 48, 59, 72
		{"3", false, 28, 4, 7},                       // one digit's own frames
		{"0123456789", false, 6000, MaxSetFrames, 7}, // cut at the frame cap
		{"1120", true, 50, 6, 10},
		{"96", true, 72, 12, 9},
		{"0123456789", true, 6000, MaxSetFrames, 7},
	} {
		frame := digitFrame
		if tc.dots {
			frame = dotFrame
		}
		t.Run(tc.text+map[bool]string{true: "/dots"}[tc.dots], func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDigitSet(&b, sets[tc.dots], tc.text, counter.GIF, SetOptions{}); err != nil {
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
			checkTimeline(t, g, tc.text, func(k int) []int { return animDelays[k] }, func(k, f int) image.Image {
				return frame(k, f, setWidth(k), setHeight)
			})
		})
	}
}

// checkTimeline checks every frame of g, as a browser shows it, against
// text's digits on their own timelines (delays), hundredth by hundredth:
// digits in step, each with its own delays, the boundaries the union of
// their changes, no frame under 2 hundredths and only states of one
// hundredth left out; and that looping back shows the first frame as it
// was. frame draws frame f of digit k at the size g has it.
func checkTimeline(t *testing.T, g *gif.GIF, text string, delays func(k int) []int, frame func(k, f int) image.Image) {
	t.Helper()
	frameAt := func(k, at int) int {
		ds := delays(k)
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
	// state is what the digits show at time at, as one string.
	state := func(at int) string {
		var b []byte
		for i := range len(text) {
			b = append(b, byte('0'+frameAt(int(text[i]-'0'), at)))
		}
		return string(b)
	}
	want := func(at int) *image.NRGBA {
		img := image.NewNRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
		x := 0
		for i := range len(text) {
			k := int(text[i] - '0')
			f := frame(k, frameAt(k, at))
			draw.Draw(img, f.Bounds().Sub(f.Bounds().Min).Add(image.Pt(x, 0)), f, f.Bounds().Min, draw.Src)
			x += f.Bounds().Dx()
		}
		return img
	}
	shown := playGIF(t, g)
	start := 0
	for i, d := range g.Delay {
		if d < 2 && len(g.Image) > 1 {
			t.Errorf("frame %d: delay %d, which browsers play as 10", i, d)
		}
		for at := start; at < start+max(d, 1); at++ {
			if at > start && state(at) != state(start) && state(at-1) != state(at) && state(at+1) != state(at) {
				continue // a state of one hundredth, not shown
			}
			if n := sameAsGIF(shown[i], want(at)); n != 0 {
				t.Fatalf("frame %d (from %d to %d) at %d: %d pixels differ", i, start, start+d, at, n)
			}
		}
		start += d
	}
	if n := sameAsGIF(shown[len(shown)-1], shown[0]); n != 0 {
		t.Errorf("after a loop, the first frame has %d pixels other than at first", n)
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
		if n := sameAsGIF(gs[i], ws[i]); n != 0 {
			t.Errorf("frame %d: %d pixels differ", i, n)
		}
	}
}

// TestDigitSetGIFBudget: large digits changing out of step would make
// more frames than MaxSetFrames; the composition's pixel budget cuts the
// animation sooner, and what is drawn is still a valid GIF.
func TestDigitSetGIFBudget(t *testing.T) {
	primes := []int{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}
	var src [digitset.NumPieces]digitset.Source
	for k := range 10 {
		d := digitset.Source{Piece: []byte("gif"), PieceType: digitset.TypeGIF}
		for f := range 8 {
			d.Frames = append(d.Frames, digitFrame(k, f%4, 100, 200))
			d.Delays = append(d.Delays, primes[k])
		}
		src[k] = d
	}
	s := newSet(t, src, digitset.LayoutGIFFolder)
	var b bytes.Buffer
	if err := WriteDigitSet(&b, s, "0123", counter.GIF, SetOptions{Height: 512}); err != nil {
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
	if g.Config.Width != 1024 || g.Config.Height != 512 {
		t.Errorf("got %dx%d, want 1024x512", g.Config.Width, g.Config.Height)
	}
	t.Logf("%d frames, %d bytes", len(g.Image), size)
}

// FuzzDigitSetGIF makes a random set from seed (heights, widths, frame
// counts, delays and pixels, clear ones among them) and draws text in it
// as a GIF, which must play as checkTimeline says, and within the bounds.
func FuzzDigitSetGIF(f *testing.F) {
	f.Add(uint64(1), "1120")
	f.Add(uint64(2), "0123456789")
	f.Add(uint64(3), "999")
	f.Fuzz(func(t *testing.T, seed uint64, text string) {
		r := rand.New(rand.NewPCG(seed, seed>>32))
		digits := []byte(text)
		if len(digits) == 0 || len(digits) > counter.MaxTextLen {
			return
		}
		for i, c := range digits {
			digits[i] = '0' + c%10
		}
		text = string(digits)
		colors := []color.NRGBA{{}, {0xff, 0, 0, 0xff}, {0, 0x80, 0, 0xff}, {0, 0, 0xff, 0x90}, {0, 0, 0, 0x20}}
		h := 1 + r.IntN(9)
		var src [digitset.NumPieces]digitset.Source
		var delays [10][]int
		frames := make([][]image.Image, 10)
		for k := range 10 {
			w, n := 1+r.IntN(6), 1+r.IntN(4)
			clearShare := r.IntN(4) // of 4: how many pixels are clear
			for range n {
				img := image.NewNRGBA(image.Rect(0, 0, w, h))
				for i := 0; i < len(img.Pix); i += 4 {
					c := colors[1+r.IntN(len(colors)-1)]
					if r.IntN(4) < clearShare {
						c = colors[0]
					}
					img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
				}
				frames[k] = append(frames[k], img)
				delays[k] = append(delays[k], r.IntN(30))
			}
			src[k] = digitset.Source{Frames: frames[k], Delays: delays[k], Piece: []byte("x"), PieceType: digitset.TypeGIF}
		}
		s, err := digitset.New(src, digitset.LayoutGIFFolder)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteDigitSet(&b, s, text, counter.GIF, SetOptions{}); err != nil {
			t.Fatal(err)
		}
		g, err := gif.DecodeAll(&b)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Image) > MaxSetFrames {
			t.Fatalf("%d frames", len(g.Image))
		}
		checkTimeline(t, g, text, func(k int) []int { return delays[k] }, func(k, f int) image.Image { return frames[k][f] })
	})
}

// TestDiffBox compares diffBox, which reads rows a word at a time from
// both ends, with a pixel by pixel reading, on rows of random lengths
// and windows whose differences and clearings fall anywhere.
func TestDiffBox(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		width, height := 1+r.IntN(40), 1+r.IntN(6)
		x0 := r.IntN(width)
		x1 := x0 + 1 + r.IntN(width-x0)
		prev := make([]uint8, width*height)
		for i := range prev {
			prev[i] = uint8(r.IntN(4))
		}
		cur := slices.Clone(prev)
		for range r.IntN(6) {
			cur[r.IntN(len(cur))] = uint8(r.IntN(4))
		}
		clearIdx := r.IntN(5) - 1 // -1 for none
		var box, clearBox image.Rectangle
		for y := range height {
			for x := x0; x < x1; x++ {
				p, c := prev[y*width+x], cur[y*width+x]
				if p == c {
					continue
				}
				px := image.Rect(x, y, x+1, y+1)
				box = box.Union(px)
				if int(c) == clearIdx {
					clearBox = clearBox.Union(px)
				}
			}
		}
		gotBox, gotClear := diffBox(prev, cur, width, x0, x1, height, clearIdx)
		if gotBox != box || gotClear != clearBox {
			t.Fatalf("diffBox(%v, %v, width %d, x %d to %d, clear %d) = %v, %v, want %v, %v",
				prev, cur, width, x0, x1, clearIdx, gotBox, gotClear, box, clearBox)
		}
	}
}

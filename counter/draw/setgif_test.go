package draw

import (
	"bytes"
	"image"
	"image/draw"
	"image/gif"
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
			// state is what the digits show at time at, as one string.
			state := func(at int) string {
				var b []byte
				for i := range len(tc.text) {
					b = append(b, byte('0'+frameAt(int(tc.text[i]-'0'), at)))
				}
				return string(b)
			}
			shown := playGIF(t, g)
			start := 0
			for i, d := range g.Delay {
				if d < 2 && tc.frames > 1 {
					t.Errorf("frame %d: delay %d, which browsers play as 10", i, d)
				}
				for at := start; at < start+max(d, 1); at++ {
					if at > start && state(at) != state(start) && state(at-1) != state(at) && state(at+1) != state(at) {
						continue // a state of one hundredth, not shown
					}
					want := expectedOf(frame, tc.text, setWidth, func(k int) int { return frameAt(k, at) })
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

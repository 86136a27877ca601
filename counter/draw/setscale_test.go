package draw

import (
	"image/color"
	"math/rand/v2"
	"testing"
)

// TestNearestShades: in a palette of shades, as real sets' are, the
// bounded search of nearest still finds the nearest colour exactly; in a
// palette of noise it stops after maxNearestTries colours, with one of
// them, whatever the colour asked.
func TestNearestShades(t *testing.T) {
	shades := make(color.Palette, 256)
	for i := range shades {
		shades[i] = color.NRGBA{uint8(i), uint8(255 - i), uint8(i / 2), 0xff}
	}
	s := newSmoother(shades)
	for i := range shades {
		c := s.pm[i]
		c[0]++ // a mix just off the shade
		if got := s.nearest(c); int(got) != i && s.pm[got] != s.pm[i] {
			t.Errorf("shade %d: got %d", i, got)
		}
	}
	rng := rand.New(rand.NewPCG(4, 1))
	noise := make(color.Palette, 256)
	for i := range noise {
		noise[i] = color.NRGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), 0xff}
	}
	s = newSmoother(noise)
	for range 1000 {
		c := [4]int32{int32(rng.IntN(256)), int32(rng.IntN(256)), int32(rng.IntN(256)), 0xff}
		got := s.nearest(c)
		// Its place among the colours by sum is within the tries of
		// where the search started.
		cs := c[0] + c[1] + c[2] + c[3]
		below := 0
		for _, i := range s.bySum {
			if s.sum[i] < cs {
				below++
			}
		}
		at := 0
		for j, i := range s.bySum {
			if i == got {
				at = j
			}
		}
		if d := at - below; d > maxNearestTries || -d > maxNearestTries {
			t.Fatalf("colour %v: got index %d at %d by sum, the search started at %d: past %d tries", c, got, at, below, maxNearestTries)
		}
	}
}

package draw

import (
	"cmp"
	"image/color"
	"slices"
)

// A digit set's frames are drawn at the output height by one of two
// filters. Nearest neighbour (the default) keeps pixel art's hard edges and
// its palette; the smooth filter is a triangle (bilinear) filter, widened
// to the source's pixels when shrinking, which mixes colours in
// premultiplied RGBA and maps each mix back to the nearest colour of the
// set's palette. Both work in integers, so every architecture draws the
// same pixels.

// weightOne is the sum of one axis's weights for an output pixel.
const weightOne = 1 << 12

// taps are, for each output pixel along one axis, the source pixels it
// reads and their weights: output i reads src[start[i]:start[i+1]].
type taps struct {
	start []int32
	src   []int32
	w     []int32
}

// nearestMap returns, for each of dst output pixels, the source pixel
// (of src) under its centre.
func nearestMap(src, dst int) []int32 {
	m := make([]int32, dst)
	for i := range m {
		m[i] = int32(((2*i + 1) * src) / (2 * dst))
	}
	return m
}

// triangleTaps returns the weights of a triangle filter from src pixels
// to dst. All lengths are in units of 1/(2*dst) of a source pixel, so
// that the arithmetic is exact.
func triangleTaps(src, dst int) taps {
	t := taps{start: make([]int32, 0, dst+1)}
	support := 2 * max(src, dst) // the filter's half-width
	for i := range dst {
		t.start = append(t.start, int32(len(t.src)))
		u := (2*i+1)*src - dst // the output pixel's centre, in source space
		first := len(t.w)
		lo, hi := (u-support)/(2*dst)-1, (u+support)/(2*dst)+1
		sum := 0
		for s := lo; s <= hi; s++ {
			d := 2*dst*s - u
			w := support - max(d, -d)
			if w <= 0 {
				continue
			}
			t.src = append(t.src, int32(min(max(s, 0), src-1)))
			t.w = append(t.w, int32(w))
			sum += w
		}
		// Scale the weights to sum to weightOne, the rounding's remainder
		// going to the largest.
		got, big := 0, first
		for k := first; k < len(t.w); k++ {
			t.w[k] = int32(int(t.w[k]) * weightOne / sum)
			got += int(t.w[k])
			if t.w[k] > t.w[big] {
				big = k
			}
		}
		t.w[big] += int32(weightOne - got)
	}
	t.start = append(t.start, int32(len(t.src)))
	return t
}

// smoother maps mixed colours back to the set's palette.
type smoother struct {
	pm [256][4]int32 // the palette premultiplied
	n  int
	// bySum is the palette's indices in order of the sum of their
	// channels, then index, for nearest to search outward from a colour's
	// sum; sum holds each index's.
	bySum []uint8
	sum   [256]int32
	// cache is a direct-mapped cache of colour to index: key | 1<<32 when
	// full, the index in the low byte of val.
	keys [4096]uint64
	vals [4096]uint8
}

func newSmoother(p color.Palette) *smoother {
	s := &smoother{n: len(p), bySum: make([]uint8, len(p))}
	for i, c := range p {
		r, g, b, a := c.RGBA()
		s.pm[i] = [4]int32{int32(r >> 8), int32(g >> 8), int32(b >> 8), int32(a >> 8)}
		s.sum[i] = s.pm[i][0] + s.pm[i][1] + s.pm[i][2] + s.pm[i][3]
		s.bySum[i] = uint8(i)
	}
	slices.SortFunc(s.bySum, func(a, b uint8) int {
		return cmp.Or(cmp.Compare(s.sum[a], s.sum[b]), cmp.Compare(a, b))
	})
	return s
}

// maxNearestTries bounds the colours nearest compares for one mixed
// colour: a set's palette of many colours scattered at random (noise,
// which anyone may add and then ask to see smoothed) would otherwise cost
// the whole palette at every pixel. Real sets' palettes are shades, where
// the search stops after a few.
const maxNearestTries = 16

// nearest returns the palette index nearest to premultiplied colour c by
// squared distance, the lowest index on a tie. It searches outward from
// c's sum of channels and stops where the sums alone put a colour farther
// than the best found (a distance d between sums means a squared distance
// of at least d*d/4), or after maxNearestTries colours, with the nearest
// of those.
func (s *smoother) nearest(c [4]int32) uint8 {
	key := uint32(c[0])<<24 | uint32(c[1])<<16 | uint32(c[2])<<8 | uint32(c[3])
	slot := key * 2654435761 >> 20
	if s.keys[slot] == uint64(key)|1<<32 {
		return s.vals[slot]
	}
	cs := c[0] + c[1] + c[2] + c[3]
	start, _ := slices.BinarySearchFunc(s.bySum, cs, func(i uint8, v int32) int { return cmp.Compare(s.sum[i], v) })
	best, bestD := 0, int32(-1)
	try := func(j int) bool {
		i := int(s.bySum[j])
		if ds := cs - s.sum[i]; bestD >= 0 && ds*ds > 4*bestD {
			return false
		}
		p := &s.pm[i]
		d0, d1, d2, d3 := c[0]-p[0], c[1]-p[1], c[2]-p[2], c[3]-p[3]
		if d := d0*d0 + d1*d1 + d2*d2 + d3*d3; bestD < 0 || d < bestD || d == bestD && i < best {
			best, bestD = i, d
		}
		return true
	}
	for up, down, goUp, goDown := start, start-1, true, true; (goUp || goDown) && up-down <= maxNearestTries; {
		if goUp = goUp && up < s.n; goUp {
			goUp = try(up)
			up++
		}
		if goDown = goDown && down >= 0; goDown {
			goDown = try(down)
			down--
		}
	}
	s.keys[slot], s.vals[slot] = uint64(key)|1<<32, uint8(best)
	return uint8(best)
}

// scaleSmooth draws src (w by h palette indices) into dst (dw by dh) with
// the triangle filter.
func (s *smoother) scaleSmooth(dst []uint8, dw, dh int, src []uint8, w int, xt, yt *taps) {
	for y := range dh {
		for x := range dw {
			var acc [4]int64
			first := src[int(yt.src[yt.start[y]])*w+int(xt.src[xt.start[x]])]
			flat := true
			for j := yt.start[y]; j < yt.start[y+1]; j++ {
				row := src[int(yt.src[j])*w:]
				wy := int64(yt.w[j])
				for i := xt.start[x]; i < xt.start[x+1]; i++ {
					v := row[xt.src[i]]
					flat = flat && v == first
					c := &s.pm[v]
					wt := wy * int64(xt.w[i])
					acc[0] += wt * int64(c[0])
					acc[1] += wt * int64(c[1])
					acc[2] += wt * int64(c[2])
					acc[3] += wt * int64(c[3])
				}
			}
			if flat {
				// One colour mixed with itself is itself.
				dst[y*dw+x] = first
				continue
			}
			const half = weightOne * weightOne / 2
			c := [4]int32{
				int32((acc[0] + half) / (weightOne * weightOne)),
				int32((acc[1] + half) / (weightOne * weightOne)),
				int32((acc[2] + half) / (weightOne * weightOne)),
				int32((acc[3] + half) / (weightOne * weightOne)),
			}
			dst[y*dw+x] = s.nearest(c)
		}
	}
}

// scaleNearest draws src (w by h) into dst (dw by dh) by nearest
// neighbour, xm and ym mapping each output column and row to the source's.
func scaleNearest(dst []uint8, dw int, src []uint8, w int, xm, ym []int32) {
	for y, sy := range ym {
		row := src[int(sy)*w : int(sy+1)*w]
		out := dst[y*dw : (y+1)*dw]
		for x, sx := range xm {
			out[x] = row[sx]
		}
	}
}

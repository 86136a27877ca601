package digitset

import (
	"cmp"
	"image"
	"image/color"
	"slices"
)

// maxColors is the most colours a set's palette holds.
const maxColors = 256

// clearKey is every fully transparent pixel, whatever colour it hides.
const clearKey = 0

// quantizer maps the digits' colours to one palette: exactly, in order of
// first appearance, when they hold at most maxColors colours; otherwise by
// a median cut of a histogram of 5 bits a channel.
type quantizer struct {
	palette color.Palette
	exact   map[uint32]uint8  // colour key to index, when exact
	cache   []int16           // bucket to index + 1, when cut
	means   map[uint32][4]int // bucket to the mean colour of its pixels
}

// key packs a colour as non-premultiplied RGBA, a fully transparent one as
// clearKey.
func key(c color.NRGBA) uint32 {
	if c.A == 0 {
		return clearKey
	}
	return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A)
}

func unkey(k uint32) color.NRGBA {
	return color.NRGBA{uint8(k >> 24), uint8(k >> 16), uint8(k >> 8), uint8(k)}
}

// keys returns img's pixels as colour keys, row by row.
func keys(img image.Image) []uint32 {
	b := img.Bounds()
	out := make([]uint32, 0, b.Dx()*b.Dy())
	if p, ok := img.(*image.Paletted); ok {
		var pk [256]uint32
		for i, c := range p.Palette {
			pk[i] = key(color.NRGBAModel.Convert(c).(color.NRGBA))
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for _, ix := range p.Pix[p.PixOffset(b.Min.X, y):p.PixOffset(b.Max.X, y)] {
				out = append(out, pk[ix]) // an index past the palette reads as transparent
			}
		}
		return out
	}
	if n, ok := img.(*image.NRGBA); ok {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				out = append(out, key(n.NRGBAAt(x, y)))
			}
		}
		return out
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out = append(out, key(color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)))
		}
	}
	return out
}

func newQuantizer(digits []Source) *quantizer {
	q := &quantizer{exact: make(map[uint32]uint8)}
	for _, d := range digits {
		for _, img := range d.Frames {
			for _, k := range keys(img) {
				if _, ok := q.exact[k]; ok {
					continue
				}
				if len(q.palette) == maxColors {
					q.exact = nil
					q.cut(digits)
					return q
				}
				q.exact[k] = uint8(len(q.palette))
				q.palette = append(q.palette, unkey(k))
			}
		}
	}
	return q
}

// indices returns img's pixels as palette indices, row by row.
func (q *quantizer) indices(img image.Image) []uint8 {
	ks := keys(img)
	pix := make([]uint8, len(ks))
	for i, k := range ks {
		if q.exact != nil {
			pix[i] = q.exact[k]
			continue
		}
		pix[i] = q.nearest(k)
	}
	return pix
}

// bucket is a colour's cell of the histogram: 5 bits of each channel.
func bucket(k uint32) uint32 {
	c := unkey(k)
	return uint32(c.R>>3)<<15 | uint32(c.G>>3)<<10 | uint32(c.B>>3)<<5 | uint32(c.A>>3)
}

type entry struct {
	bucket uint32
	c      [4]int // the mean colour of the pixels in the bucket
	n      int
}

// cut makes the palette by median cut over a histogram of 5 bits a
// channel: the box of histogram entries with the largest squared error
// is split at its weighted median along the channel that holds most of
// that error, until there are enough boxes; each box's colour is the mean of
// its pixels. Ties are broken by bucket, so the palette depends on the
// pixels alone.
func (q *quantizer) cut(digits []Source) {
	slot := make([]int32, 1<<20) // bucket to entry index + 1
	var entries []entry
	var sums [][4]int
	hasClear := false
	for _, d := range digits {
		for _, img := range d.Frames {
			for _, k := range keys(img) {
				if k == clearKey {
					hasClear = true
					continue
				}
				b := bucket(k)
				if slot[b] == 0 {
					entries = append(entries, entry{bucket: b})
					sums = append(sums, [4]int{})
					slot[b] = int32(len(entries))
				}
				e := slot[b] - 1
				entries[e].n++
				c := unkey(k)
				sums[e][0] += int(c.R)
				sums[e][1] += int(c.G)
				sums[e][2] += int(c.B)
				sums[e][3] += int(c.A)
			}
		}
	}
	for i := range entries {
		n := entries[i].n
		for c := range 4 {
			entries[i].c[c] = (sums[i][c] + n/2) / n
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.bucket, b.bucket) })
	want := maxColors
	q.palette = color.Palette{}
	if hasClear {
		want--
		q.palette = append(q.palette, color.NRGBA{})
	}
	// A box is a range of entries, with its squared error about its mean
	// (each pixel counted) and the channel along which that error is
	// largest, worked out once.
	type box struct{ lo, hi, sse, ch int }
	measure := func(lo, hi int) box {
		bx := box{lo: lo, hi: hi}
		if hi-lo < 2 {
			return bx // cannot be split
		}
		var n int
		var sum, sq [4]int
		for _, e := range entries[lo:hi] {
			n += e.n
			for c := range 4 {
				sum[c] += e.n * e.c[c]
				sq[c] += e.n * e.c[c] * e.c[c]
			}
		}
		best := -1
		for c := range 4 {
			v := sq[c] - sum[c]*sum[c]/n
			bx.sse += v
			if v > best {
				bx.ch, best = c, v
			}
		}
		return bx
	}
	boxes := []box{measure(0, len(entries))}
	for len(boxes) < want {
		best, bestScore := -1, 0
		for i, bx := range boxes {
			if bx.sse > bestScore {
				best, bestScore = i, bx.sse
			}
		}
		if best < 0 {
			break
		}
		bestCh := boxes[best].ch
		bx := boxes[best]
		part := entries[bx.lo:bx.hi]
		slices.SortFunc(part, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.c[bestCh], b.c[bestCh]), cmp.Compare(a.bucket, b.bucket))
		})
		total := 0
		for _, e := range part {
			total += e.n
		}
		mid, acc := 1, part[0].n
		for mid < len(part)-1 && acc*2 < total {
			acc += part[mid].n
			mid++
		}
		boxes[best] = measure(bx.lo, bx.lo+mid)
		boxes = append(boxes, measure(bx.lo+mid, bx.hi))
	}
	for _, bx := range boxes {
		var sum [4]int
		n := 0
		for _, e := range entries[bx.lo:bx.hi] {
			for c := range 4 {
				sum[c] += e.c[c] * e.n
			}
			n += e.n
		}
		avg := func(c int) uint8 { return uint8((sum[c] + n/2) / n) }
		q.palette = append(q.palette, color.NRGBA{avg(0), avg(1), avg(2), max(1, avg(3))})
	}
	q.cache = make([]int16, 1<<20)
	q.means = make(map[uint32][4]int, len(entries))
	for _, e := range entries {
		q.means[e.bucket] = e.c
	}
}

// nearest returns the palette index closest to colour k: transparent for
// transparent, else the nearest by squared distance in RGBA to the mean
// of k's bucket, the lowest index on a tie.
func (q *quantizer) nearest(k uint32) uint8 {
	if k == clearKey && len(q.palette) > 0 && q.palette[0].(color.NRGBA).A == 0 {
		return 0
	}
	b := bucket(k)
	if v := q.cache[b]; v > 0 {
		return uint8(v - 1)
	}
	c := q.means[b]
	best, bestD := 0, -1
	for i, p := range q.palette {
		n := p.(color.NRGBA)
		if n.A == 0 {
			continue
		}
		dr, dg, db, da := c[0]-int(n.R), c[1]-int(n.G), c[2]-int(n.B), c[3]-int(n.A)
		if d := dr*dr + dg*dg + db*db + da*da; bestD < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	q.cache[b] = int16(best + 1)
	return uint8(best)
}

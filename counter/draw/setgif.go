package draw

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"io"
)

// An animated digit set is drawn as one GIF whose digits all start
// together and each keep their own frames' delays. Mixed timings combine
// like this:
//
//   - A digit's cycle is the sum of its frames' delays, a delay under 2
//     hundredths counting as 10, as browsers play it.
//   - The output's cycle is the least common multiple of the cycles of the
//     animated digits drawn, and its frame boundaries are the union of
//     every drawn digit's change times within that cycle; each output
//     frame lasts until the next boundary. A still digit never changes.
//   - A state that would last one hundredth (two digits changing a
//     hundredth apart) is not shown: the frame before lasts that hundredth
//     longer. Browsers play a delay under 2 as 10, which would put the
//     digits out of step.
//   - The output is cut short, at the end of a frame, after MaxSetFrames
//     frames, after maxSetCycle hundredths of a second, or when its
//     composition has written maxSetWork pixels; it then loops from the
//     start, every digit with it.
//   - It loops as the set does (digitset.Set.Loop).
//
// The first frame covers what is not clear; each after it only the box
// of pixels that changed, those it leaves alone written clear ("leave what
// is there"). A pixel that turns clear needs the frame before it cleared
// (disposal "restore to background") over a box that covers it, and the
// next frame then redraws what is not clear in that box.

// maxSetCycle bounds the output's cycle, in hundredths of a second.
const maxSetCycle = 60 * 100

// gifDelay is how long a browser shows a GIF frame of delay d.
func gifDelay(d int) int {
	if d < 2 {
		return 10
	}
	return d
}

// digitClock is an animated digit's place in its frames.
type digitClock struct {
	k      int
	frame  int
	next   int // when it next changes, from the start
	delays []int
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// clocks returns a clock for every animated digit drawn, and the output's
// cycle (at most maxSetCycle).
func (d *setDrawing) clocks() ([]*digitClock, int) {
	var cs []*digitClock
	var seen [10]bool
	cycle := 1
	for i := 0; i < len(d.text); i++ {
		k := int(d.text[i] - '0')
		frames := d.set.Digits[k].Frames
		if seen[k] || len(frames) < 2 {
			continue
		}
		seen[k] = true
		c := &digitClock{k: k, delays: make([]int, len(frames))}
		total := 0
		for n, f := range frames {
			c.delays[n] = gifDelay(f.Delay)
			total += c.delays[n]
		}
		c.next = c.delays[0]
		cs = append(cs, c)
		cycle = min(cycle/gcd(cycle, total)*total, maxSetCycle)
	}
	return cs, cycle
}

// gifFrame is a frame waiting for the next to decide its disposal.
type gifFrame struct {
	rect     image.Rectangle
	delay    int
	disposal byte // 1 leave in place, 2 restore to background
}

// encodeGIF composes the frames and writes them.
func (d *setDrawing) encodeGIF(w io.Writer) error {
	pal, remap, clearIdx := gifPalette(d.set.Palette)
	gw := newGIFWriter(w, d.width, d.height, pal, clearIdx)
	size := d.width * d.height
	prev := make([]uint8, size)
	clocks, cycle := d.clocks()
	// x0[i] is where the digit at position i starts.
	x0 := make([]int, len(d.text))
	x := 0
	for i := 0; i < len(d.text); i++ {
		k := int(d.text[i] - '0')
		x0[i] = x
		d.place(prev, x, k, 0, remap)
		x += d.widths[k]
	}
	full := image.Rect(0, 0, d.width, d.height)
	if len(clocks) == 0 {
		gw.header(-1)
		gw.frame(prev, nil, gifFrame{rect: full, disposal: 1})
		return gw.close()
	}
	gw.header(d.set.Loop)
	// With a clear index, first keeps the first frame for the loop back,
	// and before the state the pending frame is drawn over, whose
	// unchanged pixels it then writes as clear: "leave what is there",
	// which compresses better. That holds only while the frame before
	// the pending one left its pixels in place (keep).
	var first, before []uint8
	keep := false
	if clearIdx >= 0 {
		first = append([]uint8(nil), prev...)
		before = make([]uint8, size)
	}
	cur := make([]uint8, size)
	// The first frame needs to cover only what is not clear.
	pending := gifFrame{rect: opaqueBox(prev, d.width, full, clearIdx), disposal: 1}
	if pending.rect.Empty() {
		pending.rect = image.Rect(0, 0, 1, 1)
	}
	frames := 1
	var changed [10]bool
	next := func() int {
		n := cycle
		for _, c := range clocks {
			n = min(n, c.next)
		}
		return n
	}
	for t := 0; ; {
		n := next()
		pending.delay += n - t
		t = n
		if t >= cycle || frames == MaxSetFrames || d.work > maxSetWork {
			break
		}
		for _, c := range clocks {
			if c.next == t {
				c.frame = (c.frame + 1) % len(c.delays)
				c.next += c.delays[c.frame]
				changed[c.k] = true
			}
		}
		if next()-t < 2 {
			// What the digits show now lasts one hundredth, which a
			// browser would play as ten: the frame before shows it.
			continue
		}
		copy(cur, prev)
		box, clearBox := image.Rectangle{}, image.Rectangle{}
		// A digit's every place shows the same frame, so the boxes of its
		// change are found once and moved to its other places.
		var moved [10]struct {
			found   bool
			x       int
			b, clrb image.Rectangle
		}
		for i := 0; i < len(d.text); i++ {
			k := int(d.text[i] - '0')
			if !changed[k] {
				continue
			}
			d.place(cur, x0[i], k, d.frameOf(clocks, k), remap)
			m := &moved[k]
			if !m.found {
				m.b, m.clrb = diffBox(prev, cur, d.width, x0[i], x0[i]+d.widths[k], d.height, clearIdx)
				m.found, m.x = true, x0[i]
			}
			off := image.Pt(x0[i]-m.x, 0)
			box, clearBox = box.Union(m.b.Add(off)), clearBox.Union(m.clrb.Add(off))
		}
		changed = [10]bool{}
		if box.Empty() {
			continue // the digits' new frames look as the old did
		}
		if !clearBox.Empty() {
			// The pending frame clears its box when it ends, so this one
			// redraws what is not clear there.
			pending.rect = pending.rect.Union(clearBox)
			pending.disposal = 2
			box = box.Union(opaqueBox(cur, d.width, pending.rect, clearIdx))
		}
		d.work += pending.rect.Dx() * pending.rect.Dy()
		gw.frame(prev, keepOf(keep, before), pending)
		keep = before != nil && pending.disposal == 1
		pending = gifFrame{rect: box, disposal: 1}
		if before != nil {
			before, prev, cur = prev, cur, before
		} else {
			prev, cur = cur, prev
		}
		frames++
	}
	if first != nil {
		// Looping back to the first frame, which is drawn whole, must not
		// leave this frame's pixels where the first is transparent.
		_, cb := diffBox(prev, first, d.width, 0, d.width, d.height, clearIdx)
		if !cb.Empty() {
			pending.rect = pending.rect.Union(cb)
			pending.disposal = 2
		}
	}
	gw.frame(prev, keepOf(keep, before), pending)
	return gw.close()
}

// keepOf returns before when keep, else nil.
func keepOf(keep bool, before []uint8) []uint8 {
	if keep {
		return before
	}
	return nil
}

// frameOf returns the frame digit k shows now.
func (d *setDrawing) frameOf(clocks []*digitClock, k int) int {
	for _, c := range clocks {
		if c.k == k {
			return c.frame
		}
	}
	return 0
}

// diffBox returns, within columns x0 to x1, the box of pixels where cur
// differs from prev, and the box of those that turned transparent.
func diffBox(prev, cur []uint8, width, x0, x1, height, clearIdx int) (box, clearBox image.Rectangle) {
	for y := range height {
		p, c := prev[y*width+x0:y*width+x1], cur[y*width+x0:y*width+x1]
		if bytes.Equal(p, c) {
			continue
		}
		lo, hi := 0, len(c)-1
		for p[lo] == c[lo] {
			lo++
		}
		for p[hi] == c[hi] {
			hi--
		}
		box = box.Union(image.Rect(x0+lo, y, x0+hi+1, y+1))
		if clearIdx < 0 {
			continue
		}
		for x := lo; x <= hi; x++ {
			if int(c[x]) == clearIdx && p[x] != c[x] {
				clearBox = clearBox.Union(image.Rect(x0+x, y, x0+x+1, y+1))
			}
		}
	}
	return box, clearBox
}

// opaqueBox returns the box of the pixels of canvas within r that are not
// clearIdx.
func opaqueBox(canvas []uint8, width int, r image.Rectangle, clearIdx int) image.Rectangle {
	if clearIdx < 0 {
		return r
	}
	var box image.Rectangle
	clr := byte(clearIdx)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := canvas[y*width+r.Min.X : y*width+r.Max.X]
		// From each end to the first pixel not clear: a row with any
		// is read no further than its edges.
		lo := 0
		for lo < len(row) && row[lo] == clr {
			lo++
		}
		if lo == len(row) {
			continue
		}
		hi := len(row) - 1
		for row[hi] == clr {
			hi--
		}
		box = box.Union(image.Rect(r.Min.X+lo, y, r.Min.X+hi+1, y+1))
	}
	return box
}

// gifPalette returns p as a GIF colour table, which has one fully
// transparent index and nothing in between: colours under half opacity all
// map (through remap, nil when every index maps to itself) to the first of
// them, made clear (clearIdx, or -1 for none), and the others are made
// opaque.
func gifPalette(p color.Palette) (pal []color.NRGBA, remap *[256]uint8, clearIdx int) {
	remap = identity()
	same := true
	clearIdx = -1
	pal = make([]color.NRGBA, len(p))
	for i, c := range p {
		n := color.NRGBAModel.Convert(c).(color.NRGBA)
		if n.A >= 0x80 {
			n.A = 0xff
			pal[i] = n
			continue
		}
		if clearIdx < 0 {
			clearIdx = i
		}
		remap[i] = uint8(clearIdx)
		same = same && i == clearIdx
	}
	if same {
		remap = nil
	}
	return pal, remap, clearIdx
}

// gifWriter writes a GIF of several frames sharing one colour table.
type gifWriter struct {
	bw            *bufio.Writer
	width, height int
	pal           []color.NRGBA
	clearIdx      int
	depth         int
	lzw           lzwEncoder
	row           []uint8 // a row with unchanged pixels made clear
	err           error   // the first of the LZW encoder's
}

func newGIFWriter(w io.Writer, width, height int, pal []color.NRGBA, clearIdx int) *gifWriter {
	g := &gifWriter{bw: bufio.NewWriter(w), width: width, height: height, pal: pal, clearIdx: clearIdx, depth: 1}
	for 1<<g.depth < len(pal) {
		g.depth++
	}
	return g
}

// header writes the screen, the colour table and, unless loop is -1
// (play once), the loop count (0 for ever).
func (g *gifWriter) header(loop int) {
	b := append([]byte(nil), "GIF89a"...)
	b = binary.LittleEndian.AppendUint16(b, uint16(g.width))
	b = binary.LittleEndian.AppendUint16(b, uint16(g.height))
	b = append(b, 0x80|0x70|byte(g.depth-1), 0, 0) // global table, 8-bit colour
	for i := range 1 << g.depth {
		var c color.NRGBA
		if i < len(g.pal) {
			c = g.pal[i]
		}
		b = append(b, c.R, c.G, c.B)
	}
	if loop >= 0 {
		b = append(b, 0x21, 0xff, 11)
		b = append(b, "NETSCAPE2.0"...)
		b = append(b, 3, 1)
		b = binary.LittleEndian.AppendUint16(b, uint16(min(loop, 1<<16-1)))
		b = append(b, 0)
	}
	g.bw.Write(b)
}

// frame writes the part of canvas (the whole image) under f.rect; where
// keep is given, each pixel that canvas has as keep has is written clear.
func (g *gifWriter) frame(canvas, keep []uint8, f gifFrame) {
	var b [18]byte
	flags := f.disposal << 2
	trans := byte(0)
	if g.clearIdx >= 0 {
		flags |= 1
		trans = byte(g.clearIdx)
	}
	delay := uint16(min(f.delay, 1<<16-1))
	litWidth := max(2, g.depth) // GIF's smallest LZW code size is 2
	r := f.rect
	copy(b[:], []byte{0x21, 0xf9, 4, flags, byte(delay), byte(delay >> 8), trans, 0,
		0x2c, byte(r.Min.X), byte(r.Min.X >> 8), byte(r.Min.Y), byte(r.Min.Y >> 8),
		byte(r.Dx()), byte(r.Dx() >> 8), byte(r.Dy()), byte(r.Dy() >> 8), 0})
	g.bw.Write(b[:])
	g.bw.WriteByte(byte(litWidth))
	g.lzw.reset(litWidth)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := canvas[y*g.width+r.Min.X : y*g.width+r.Max.X]
		if keep != nil {
			g.row = append(g.row[:0], row...)
			for x, v := range keep[y*g.width+r.Min.X : y*g.width+r.Max.X] {
				if v == row[x] {
					g.row[x] = byte(g.clearIdx)
				}
			}
			row = g.row
		}
		g.lzw.write(row)
	}
	// Only an index past the colour table fails, which a parsed set
	// does not hold.
	data, err := g.lzw.close()
	if g.err == nil {
		g.err = err
	}
	writeSubBlocks(g.bw, data)
}

func (g *gifWriter) close() error {
	g.bw.WriteByte(0x3b)
	if err := g.bw.Flush(); err != nil {
		return err
	}
	return g.err
}

// identity maps every palette index to itself.
func identity() *[256]uint8 {
	var r [256]uint8
	for i := range r {
		r[i] = uint8(i)
	}
	return &r
}

package draw

import (
	"bufio"
	"encoding/binary"
	"image"
	"image/color"
	"io"
	"math/bits"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
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
	var seen [digitset.NumPieces]bool
	cycle := 1
	for _, k := range d.seq {
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
	p := d.pal
	if d.opt.Dim == counter.DimAlways {
		p = dimmed(p)
	}
	pal, remap, clearIdx := gifPalette(p)
	gw := newGIFWriter(w, d.width, d.height, pal, clearIdx)
	size := d.width * d.height
	prev := make([]uint8, size)
	clocks, cycle := d.clocks()
	bg := d.bg
	if remap != nil {
		bg = remap[bg]
	}
	d.fill(prev, bg)
	for i := range d.seq {
		d.place(prev, i, 0, remap, clearIdx)
	}
	full := image.Rect(0, 0, d.width, d.height)
	if len(clocks) == 0 {
		gw.header(-1)
		gw.frame(prev, nil, gifFrame{rect: full, disposal: 1})
		return gw.close()
	}
	gw.header(d.set.Loop)
	// With a clear index, before is the state the pending frame is drawn
	// over, whose unchanged pixels it then writes as clear: "leave what
	// is there", which compresses better. That holds only while the
	// frame before the pending one left its pixels in place (keep), so
	// before is made when a frame first does: a fresh canvas costs its
	// pages, and frames that all clear their boxes never read it.
	var before []uint8
	keep := false
	cur := make([]uint8, size)
	// The first frame needs to cover only what is not clear.
	pending := gifFrame{rect: opaqueBox(prev, d.width, full, clearIdx), disposal: 1}
	if pending.rect.Empty() {
		pending.rect = image.Rect(0, 0, 1, 1)
	}
	frames := 1
	var changed [digitset.NumPieces]bool
	// shown is the frame each piece shows in prev; the boxes of a change
	// from one frame to another are found once and placed wherever the
	// piece is, every time it makes that change.
	var shown [digitset.NumPieces]int
	var moves frameMoves
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
		if d.overlap {
			// Overlapping pieces show through each other: the frame
			// is composed whole, bottom piece first.
			d.fill(cur, bg)
			for i, k := range d.seq {
				d.place(cur, i, d.frameOf(clocks, k), remap, clearIdx)
			}
			box, clearBox = diffBox(prev, cur, d.width, 0, d.width, d.height, clearIdx)
			changed = [digitset.NumPieces]bool{}
		}
		// Pieces side by side: the change at a piece's place is its
		// change from the frame prev shows to the one it shows now.
		for i, k := range d.seq {
			if !changed[k] {
				continue
			}
			n := d.frameOf(clocks, k)
			d.place(cur, i, n, remap, clearIdx)
			b := moves.of(d, k, shown[k], n, remap, clearIdx)
			off := image.Pt(d.xs[i], d.ys[i])
			box, clearBox = box.Union(b.box.Add(off)), clearBox.Union(b.clearBox.Add(off))
		}
		for _, c := range clocks {
			shown[c.k] = c.frame
		}
		changed = [digitset.NumPieces]bool{}
		box, clearBox = box.Intersect(full), clearBox.Intersect(full) // a piece past an edge
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
		keep = clearIdx >= 0 && pending.disposal == 1
		pending = gifFrame{rect: box, disposal: 1}
		if keep && before == nil {
			before = make([]uint8, size)
		}
		if keep {
			before, prev, cur = prev, cur, before
		} else {
			prev, cur = cur, prev
		}
		frames++
	}
	if clearIdx >= 0 {
		// Looping back to the first frame, which is drawn whole, must not
		// leave this frame's pixels where the first is transparent. The
		// first is composed again, into the canvas now spare, rather than
		// kept from the start in a canvas of its own.
		first := cur
		d.fill(first, bg)
		for i := range d.seq {
			d.place(first, i, 0, remap, clearIdx)
		}
		_, cb := diffBox(prev, first, d.width, 0, d.width, d.height, clearIdx)
		if !cb.Empty() {
			pending.rect = pending.rect.Union(cb)
			pending.disposal = 2
		}
	}
	gw.frame(prev, keepOf(keep, before), pending)
	return gw.close()
}

// frameMove is the change from one frame of a piece to another, in the
// piece's own pixels: the box of those that differ and of those that
// turn clear.
type frameMove struct {
	box, clearBox image.Rectangle
}

// frameMoves holds each piece's frame moves found so far, from frame a
// to frame b at a*frames+b, made when first needed. A map, not a table of
// every pair: a GIF uses a few moves a piece (mostly a to a+1), and a
// table of a 64-frame piece's every pair would be 4,096 of them, zeroed,
// in every process that draws it.
type frameMoves [digitset.NumPieces]map[int]frameMove

// of returns piece k's move from frame a to frame b, as drawn (remap, nil
// for none, and clearIdx as in place).
func (m *frameMoves) of(d *setDrawing, k, a, b int, remap *[256]uint8, clearIdx int) frameMove {
	key := a*len(d.set.Digits[k].Frames) + b
	if mv, ok := m[k][key]; ok {
		return mv
	}
	pa, pb := d.frame(k, a), d.frame(k, b)
	if remap != nil {
		pa, pb = d.mapped(k, a, pa, remap), d.mapped(k, b, pb, remap)
	}
	var mv frameMove
	mv.box, mv.clearBox = diffBox(pa, pb, d.widths[k], 0, d.widths[k], d.hts[k], clearIdx)
	if m[k] == nil {
		m[k] = map[int]frameMove{}
	}
	m[k][key] = mv
	return mv
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
// differs from prev, and the box of those that turned transparent. Each
// row is read from both ends, eight pixels a word, to its first and last
// difference: an animated GIF compares every frame of a digit with the
// next.
func diffBox(prev, cur []uint8, width, x0, x1, height, clearIdx int) (box, clearBox image.Rectangle) {
	for y := range height {
		p, c := prev[y*width+x0:y*width+x1], cur[y*width+x0:y*width+x1]
		lo := rowFirstDiff(p, c)
		if lo < 0 {
			continue
		}
		hi := rowLastDiff(p, c)
		box = box.Union(image.Rect(x0+lo, y, x0+hi+1, y+1))
		if clearIdx < 0 {
			continue
		}
		if a := firstCleared(p[:hi+1], c[:hi+1], lo, byte(clearIdx)); a >= 0 {
			b := lastCleared(p[:hi+1], c[:hi+1], a, byte(clearIdx))
			clearBox = clearBox.Union(image.Rect(x0+a, y, x0+b+1, y+1))
		}
	}
	return box, clearBox
}

// cleared has bit 7 of each byte of the words p and c set where c's byte
// is clr and p's is not: a pixel turned clear.
func cleared(p, c, clr uint64) uint64 {
	const low7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	p, c = p^clr, c^clr
	notZero := func(v uint64) uint64 { return (v&low7 + low7 | v) & high }
	return notZero(p) &^ notZero(c)
}

// firstCleared returns the first index from lo on where c has clr and p
// not, or -1.
func firstCleared(p, c []uint8, lo int, clr uint8) int {
	i := lo
	for w := uint64(clr) * 0x0101010101010101; i+8 <= len(c); i += 8 {
		if m := cleared(binary.LittleEndian.Uint64(p[i:]), binary.LittleEndian.Uint64(c[i:]), w); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(c); i++ {
		if c[i] == clr && p[i] != clr {
			return i
		}
	}
	return -1
}

// lastCleared returns the last index where c has clr and p not, one at lo
// or past it known.
func lastCleared(p, c []uint8, lo int, clr uint8) int {
	j := len(c)
	for w := uint64(clr) * 0x0101010101010101; j-8 >= lo; j -= 8 {
		if m := cleared(binary.LittleEndian.Uint64(p[j-8:]), binary.LittleEndian.Uint64(c[j-8:]), w); m != 0 {
			return j - 1 - bits.LeadingZeros64(m)/8
		}
	}
	for j--; c[j] != clr || p[j] == clr; j-- {
	}
	return j
}

// rowFirstDiff returns the index of the first byte where p and c (as long)
// differ, or -1.
func rowFirstDiff(p, c []uint8) int {
	i := 0
	for ; i+8 <= len(c); i += 8 {
		if x := binary.LittleEndian.Uint64(p[i:]) ^ binary.LittleEndian.Uint64(c[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < len(c); i++ {
		if p[i] != c[i] {
			return i
		}
	}
	return -1
}

// rowLastDiff returns the index of the last byte where p and c (as long)
// differ, or -1.
func rowLastDiff(p, c []uint8) int {
	j := len(c)
	for ; j >= 8; j -= 8 {
		if x := binary.LittleEndian.Uint64(p[j-8:]) ^ binary.LittleEndian.Uint64(c[j-8:]); x != 0 {
			return j - 1 - bits.LeadingZeros64(x)/8
		}
	}
	for j--; j >= 0; j-- {
		if p[j] != c[j] {
			return j
		}
	}
	return -1
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

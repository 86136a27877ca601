package draw

import (
	"bufio"
	"encoding/binary"
	"errors"
)

// GIF's LZW, written here rather than with compress/lzw: its Writer
// allocates a 64 KiB table for every image and zeroes it again at every
// Reset, which an animated set's GIF pays once a frame. lzwEncoder keeps
// one table for every frame of an image and clears only the entries a
// frame filled; a run of one index (most of a digit's pixels) takes a
// path that needs no hashing, and so does a string extended again by
// the index that last extended it (a digit's rows repeat). Its output
// is compress/lzw's, bit for bit (LSB order, a clear code first, the
// same greedy matching and the same point at which the table is full
// and cleared): the tests compare the two, and decode what it writes
// with image/gif.

const (
	lzwMaxCode   = 1<<12 - 1 // the last code; reaching it clears the table
	lzwTableBits = 13
	lzwTableSize = 1 << lzwTableBits // twice the codes, as linear probing likes
	lzwNoCode    = 1<<32 - 1
)

var errLZWIndex = errors.New("lzw: index past the colour table")

// lzwEncoder compresses a stream of palette indices of litWidth bits.
type lzwEncoder struct {
	litWidth uint
	// width, hi and overflow are compress/lzw's: the bits a code takes,
	// the code the next emission implies, the code at which width grows.
	width, hi, overflow uint32
	code                uint32 // the string matched so far, lzwNoCode before the first index
	seen                byte   // every index written, or-ed: one past the table fails
	bits                uint64
	nBits               uint
	out                 []byte
	// table maps a code and the index after it (key, 20 bits) to the
	// code of the longer string: key<<12 | code, 0 for empty, linear
	// probing. slot is where each code's entry went, so that a clear
	// empties only those.
	table [lzwTableSize]uint32
	slot  [lzwMaxCode + 1]uint16
	// run holds each code's last index (bits 16 to 23) and the code of
	// the string one more of it longer (the low 16 bits, 0 for none
	// yet): a run's next pixel without the table.
	run [lzwMaxCode + 1]uint32
	// jump is the code of the string lzwJump more of its last index
	// longer, when every one between has a code (0 for none): a long
	// run's pixels taken lzwJump at a time. up holds, for each code, the
	// code as far back in its run as lzwJump or the run's start (low 12
	// bits) and how far back that is (the bits above).
	jump [lzwMaxCode + 1]uint16
	up   [lzwMaxCode + 1]uint16
	// kid holds each code's last child found or made: the index after
	// it (bits 16 to 23) and the child's code (the low 16 bits), 0 for
	// none yet, so that a string met again takes no hashing.
	kid [lzwMaxCode + 1]uint32
}

// lzwJump is how many pixels of a run jump takes at once: one 64-bit
// compare.
const lzwJump = 8

// reset starts a new stream of litWidth-bit indices (2 to 8), its bytes
// appended to out's after truncating it.
func (e *lzwEncoder) reset(litWidth int) {
	e.clearTable()
	e.litWidth = uint(litWidth)
	e.startCodes()
	e.code = lzwNoCode
	e.seen = 0
	e.bits, e.nBits = 0, 0
	e.out = e.out[:0]
	e.startRuns()
}

// startRuns makes every literal code a run of one, not yet longer.
func (e *lzwEncoder) startRuns() {
	for i := range 1 << e.litWidth {
		e.run[i] = uint32(i) << 16
		e.kid[i] = 0
		e.jump[i], e.up[i] = 0, uint16(i)
	}
}

func (e *lzwEncoder) startCodes() {
	clear := uint32(1) << e.litWidth
	e.width = uint32(e.litWidth) + 1
	e.hi = clear + 1
	e.overflow = clear << 1
}

// clearTable empties the entries made since the last clear.
func (e *lzwEncoder) clearTable() {
	if e.litWidth == 0 {
		return // never used: all empty
	}
	for c := uint32(1)<<e.litWidth + 2; c <= e.hi && c <= lzwMaxCode; c++ {
		e.table[e.slot[c]] = 0
	}
}

func (e *lzwEncoder) emit(c uint32) {
	e.bits |= uint64(c) << e.nBits
	e.nBits += uint(e.width)
	for e.nBits >= 8 {
		e.out = append(e.out, byte(e.bits))
		e.bits >>= 8
		e.nBits -= 8
	}
}

func lzwHash(key uint32) uint32 {
	return key * 0x9e3779b1 >> (32 - lzwTableBits)
}

// write compresses p, indices each under 1<<litWidth (checked at close).
func (e *lzwEncoder) write(p []byte) {
	if len(p) == 0 {
		return
	}
	code := e.code
	if code == lzwNoCode {
		// GIF89a, appendix F: "Encoders should output a Clear code as
		// the first code of each image data stream."
		e.emit(1 << e.litWidth)
		code, p = uint32(p[0]), p[1:]
		e.seen |= byte(code)
	}
	seen := e.seen
	table, run, jump, kid := &e.table, &e.run, &e.jump, &e.kid
pixels:
	for i := 0; i < len(p); {
		x := p[i]
		seen |= x
		// code is under 1<<12; the mask spares a bounds check. v is the
		// longer run's code when x is code's last index and the longer
		// run has a code (1 to 0xffff), else 0 or over 0xffff.
		if v := run[code&lzwMaxCode] ^ uint32(x)<<16; v-1 < 0xffff {
			if j := jump[code&lzwMaxCode]; j != 0 && i+lzwJump <= len(p) &&
				binary.LittleEndian.Uint64(p[i:]) == uint64(x)*0x0101010101010101 {
				code = uint32(j)
				i += lzwJump
				continue
			}
			code = v
			i++
			continue
		}
		i++
		kp := &kid[code&lzwMaxCode]
		if v := *kp ^ uint32(x)<<16; v-1 < 0xffff {
			code = v
			continue
		}
		key := code<<8 | uint32(x)
		h := lzwHash(key)
		for t := table[h]; t != 0; t = table[h] {
			if t>>12 == key {
				code = t & lzwMaxCode
				*kp = uint32(x)<<16 | code
				continue pixels
			}
			h = (h + 1) & (lzwTableSize - 1)
		}
		e.emit(code)
		prev := code
		code = uint32(x)
		if e.grow() {
			// The table is full: compress/lzw sends a clear code (at
			// the width reached) and starts again.
			e.emit(1 << e.litWidth)
			e.clearTable()
			e.startCodes()
			e.startRuns()
			continue
		}
		hi := e.hi & lzwMaxCode
		table[h] = key<<12 | hi
		e.slot[hi] = uint16(h)
		run[hi] = uint32(x) << 16
		kid[hi] = 0
		*kp = uint32(x)<<16 | hi
		jump[hi], e.up[hi] = 0, uint16(hi)
		if r := &run[prev&lzwMaxCode]; *r>>16 == uint32(x) {
			*r |= hi
			e.linkJump(prev, hi)
		}
	}
	e.seen = seen
	e.code = code
}

// grow counts the code just added to the table, widening the codes where
// compress/lzw does, and reports whether the table is full.
func (e *lzwEncoder) grow() bool {
	e.hi++
	if e.hi == e.overflow {
		e.width++
		e.overflow <<= 1
	}
	return e.hi == lzwMaxCode
}

// linkJump records code, the run child of prev, in up, and gives the
// code lzwJump back in its run, if the run is that long, its jump to code.
func (e *lzwEncoder) linkJump(prev, code uint32) {
	u := e.up[prev&lzwMaxCode]
	back, steps := uint32(u)&lzwMaxCode, u>>12
	if steps == lzwJump {
		// The code lzwJump back from prev is one before code's.
		back = e.run[back] & lzwMaxCode
	} else {
		steps++
	}
	e.up[code&lzwMaxCode] = steps<<12 | uint16(back)
	if steps == lzwJump {
		e.jump[back] = uint16(code)
	}
}

// close ends the stream and returns its bytes, or errLZWIndex if an index
// was past litWidth's bits.
func (e *lzwEncoder) close() ([]byte, error) {
	if e.seen>>e.litWidth != 0 {
		return nil, errLZWIndex
	}
	if e.code == lzwNoCode {
		e.emit(1 << e.litWidth)
	} else {
		e.emit(e.code)
		if e.grow() {
			e.emit(1 << e.litWidth)
			e.clearTable()
			e.startCodes()
		}
	}
	e.emit(1<<e.litWidth + 1) // end of information
	if e.nBits > 0 {
		e.out = append(e.out, byte(e.bits))
	}
	return e.out, nil
}

// writeSubBlocks writes data as GIF's sub-blocks of up to 255 bytes and
// the empty block that ends an image's data.
func writeSubBlocks(bw *bufio.Writer, data []byte) {
	for len(data) > 0 {
		n := min(len(data), 255)
		bw.WriteByte(byte(n))
		bw.Write(data[:n])
		data = data[n:]
	}
	bw.WriteByte(0)
}

package testfiles

import (
	"encoding/binary"
	"image"
	"image/color"
)

// WebP encodes m as a lossless WebP (a VP8L chunk in a RIFF file), as the
// WebP lossless bitstream specification (RFC 9649) lays it out, in its
// plainest form: no transform, no colour cache, no backward reference,
// and each of the green, red, blue and alpha prefix codes giving every
// literal 8 bits. It is large, and any WebP decoder reads it; Debian's
// cwebp is not needed to make one.
func WebP(m image.Image) []byte {
	return riff(vp8lChunk(m))
}

// AnimatedWebP encodes frames as an animated WebP: a VP8X chunk with its
// animation flag, an ANIM chunk and one ANMF chunk a frame, each holding
// the frame as WebP makes it, delay milliseconds long.
func AnimatedWebP(frames []image.Image, delay int) []byte {
	b := frames[0].Bounds()
	w, h := b.Dx(), b.Dy()
	vp8x := []byte{0x02 | 0x10, 0, 0, 0}
	vp8x = append(vp8x, le24(w-1)...)
	vp8x = append(vp8x, le24(h-1)...)
	body := chunk("VP8X", vp8x)
	body = append(body, chunk("ANIM", []byte{0, 0, 0, 0, 0, 0})...)
	for _, f := range frames {
		anmf := append([]byte{}, le24(0)...)
		anmf = append(anmf, le24(0)...)
		anmf = append(anmf, le24(w-1)...)
		anmf = append(anmf, le24(h-1)...)
		anmf = append(anmf, le24(delay)...)
		anmf = append(anmf, 0)
		anmf = append(anmf, vp8lChunk(f)...)
		body = append(body, chunk("ANMF", anmf)...)
	}
	return riffOf(body)
}

func le24(v int) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16)} }

func chunk(id string, data []byte) []byte {
	b := append([]byte(id), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(data)))
	b = append(b, data...)
	if len(data)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

func riff(vp8l []byte) []byte { return riffOf(vp8l) }

func riffOf(body []byte) []byte {
	b := append([]byte("RIFF"), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], uint32(4+len(body)))
	return append(append(b, "WEBP"...), body...)
}

// bitWriter writes bits least significant first, as VP8L reads them.
type bitWriter struct {
	b     []byte
	acc   uint64
	nBits uint
}

func (w *bitWriter) write(v uint64, n uint) {
	w.acc |= v << w.nBits
	w.nBits += n
	for w.nBits >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nBits -= 8
	}
}

// code writes a prefix code's n bits, its first (most significant) bit
// first, as a decoder walks the code's tree.
func (w *bitWriter) code(c uint64, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		w.write(c>>uint(i)&1, 1)
	}
}

func (w *bitWriter) bytes() []byte {
	if w.nBits > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	return w.b
}

// literalCode writes a normal prefix code over alphabet symbols whose
// first 256 are 8 bits long and the rest unused. The code lengths are
// written in a code of two symbols of one bit: 0 (unused) and 8.
func literalCode(w *bitWriter, alphabet int) {
	w.write(0, 1) // not a simple code
	// Code length code lengths, in the specification's order 17, 18, 0,
	// 1, 2, 3, 4, 5, 16, 6, 7, 8: twelve of them, 0 and 8 one bit each.
	w.write(12-4, 4)
	for _, sym := range []int{17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8} {
		l := uint64(0)
		if sym == 0 || sym == 8 {
			l = 1
		}
		w.write(l, 3)
	}
	w.write(0, 1) // every symbol's length follows
	for s := range alphabet {
		if s < 256 {
			w.code(1, 1) // length 8
		} else {
			w.code(0, 1) // unused
		}
	}
}

func vp8lChunk(m image.Image) []byte {
	b := m.Bounds()
	var w bitWriter
	w.write(0x2f, 8)
	w.write(uint64(b.Dx()-1), 14)
	w.write(uint64(b.Dy()-1), 14)
	w.write(1, 1)           // alpha is used
	w.write(0, 3)           // version
	w.write(0, 1)           // no transform
	w.write(0, 1)           // no colour cache
	w.write(0, 1)           // no meta prefix codes
	literalCode(&w, 256+24) // green and lengths
	literalCode(&w, 256)    // red
	literalCode(&w, 256)    // blue
	literalCode(&w, 256)    // alpha
	// Distance: a simple code of one symbol, 0, never used.
	w.write(1, 1)
	w.write(0, 1)
	w.write(0, 1)
	w.write(0, 1)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
			w.code(uint64(c.G), 8)
			w.code(uint64(c.R), 8)
			w.code(uint64(c.B), 8)
			w.code(uint64(c.A), 8)
		}
	}
	return chunk("VP8L", w.bytes())
}

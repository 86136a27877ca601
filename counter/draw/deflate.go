package draw

import (
	"encoding/binary"
	"hash/adler32"
)

// zlibCompress returns data as a zlib stream of one deflate block with the
// fixed Huffman codes of RFC 1951, matched greedily with a short hash chain.
//
// A counter image is a few kilobytes of rows that repeat, which this
// compresses about as well as compress/flate at its best level. It exists
// because compress/flate sets up close to a megabyte of tables per writer,
// and in a process that lives for one hit that set-up cost more than the
// whole of drawing.
//
// The stream is appended to dst; chain is scratch space for the hash
// chains, grown as needed, so that a caller can reuse both.
func zlibCompress(dst []byte, chain *[]int32, data []byte) []byte {
	w := bitWriter{out: dst}
	w.out = append(w.out, 0x78, 0x01) // deflate, 32 KiB window, no dictionary
	w.bits(1, 1)                      // BFINAL
	w.bits(1, 2)                      // BTYPE 01: fixed Huffman codes

	const (
		hashBits = 12
		maxChain = 16
		minMatch = 3
		maxMatch = 258
		window   = 1 << 15
	)
	var head [1 << hashBits]int32
	if cap(*chain) < len(data) {
		*chain = make([]int32, len(data))
	}
	prev := (*chain)[:len(data)] // every entry is written before it is read
	hash := func(i int) uint32 {
		return (uint32(data[i])<<16 | uint32(data[i+1])<<8 | uint32(data[i+2])) * 2654435761 >> (32 - hashBits)
	}
	insert := func(i int) {
		if i+minMatch <= len(data) {
			h := hash(i)
			prev[i] = head[h] - 1
			head[h] = int32(i + 1)
		}
	}
	for i := 0; i < len(data); {
		bestLen, bestDist := 0, 0
		if i+minMatch <= len(data) {
			limit := min(maxMatch, len(data)-i)
			for j, n := int(head[hash(i)])-1, 0; j >= 0 && i-j <= window && n < maxChain; j, n = int(prev[j]), n+1 {
				l := 0
				for l < limit && data[j+l] == data[i+l] {
					l++
				}
				if l > bestLen {
					bestLen, bestDist = l, i-j
					if l == limit {
						break
					}
				}
			}
		}
		if bestLen < minMatch {
			w.literal(data[i])
			insert(i)
			i++
			continue
		}
		w.match(bestLen, bestDist)
		for k := 0; k < bestLen; k++ {
			insert(i + k)
		}
		i += bestLen
	}
	w.code(0, 7) // end of block: symbol 256
	w.flush()
	return binary.BigEndian.AppendUint32(w.out, adler32.Checksum(data))
}

// bitWriter packs bits least significant first, as deflate wants.
type bitWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) bits(v uint32, n uint) {
	w.acc |= uint64(v) << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// code writes a Huffman code, which deflate stores most significant first.
func (w *bitWriter) code(c uint32, n uint) {
	var r uint32
	for i := uint(0); i < n; i++ {
		r = r<<1 | c>>i&1
	}
	w.bits(r, n)
}

func (w *bitWriter) flush() {
	if w.nacc > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
}

// symbol writes a literal/length symbol (0 to 287) in the fixed code.
func (w *bitWriter) symbol(s int) {
	switch {
	case s < 144:
		w.code(uint32(0x30+s), 8)
	case s < 256:
		w.code(uint32(0x190+s-144), 9)
	case s < 280:
		w.code(uint32(s-256), 7)
	default:
		w.code(uint32(0xc0+s-280), 8)
	}
}

func (w *bitWriter) literal(b byte) { w.symbol(int(b)) }

// Base values and extra bits of the length and distance codes.
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// match writes a back-reference of length 3..258 at distance 1..32768.
func (w *bitWriter) match(length, dist int) {
	i := len(lengthBase) - 1
	for int(lengthBase[i]) > length {
		i--
	}
	w.symbol(257 + i)
	w.bits(uint32(length-int(lengthBase[i])), uint(lengthExtra[i]))
	j := len(distBase) - 1
	for int(distBase[j]) > dist {
		j--
	}
	w.code(uint32(j), 5)
	w.bits(uint32(dist-int(distBase[j])), uint(distExtra[j]))
}

package crawler

// The generated tables (patterns.go) are strings of little-endian
// numbers, not arrays: a string constant lies in the binary's read-only
// data, which the program's other read-only data surrounds, where an array
// variable lies in its writable data, which a CGI process otherwise
// barely touches, and the kernel maps whole 64 KiB windows of the file
// around each page a process reads. As arrays, the tables cost a hit
// 176 KiB of resident memory; as strings, about what they weigh.

// u16 reads the little-endian uint16 at s[i:].
func u16(s string, i int) uint16 { return uint16(s[i]) | uint16(s[i+1])<<8 }

// u32 reads the little-endian uint32 at s[i:].
func u32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// progSize, instSize and needleSize are the bytes of one entry of their
// tables.
const (
	progSize   = 6 // pc, n, start: uint16 each
	instSize   = 6 // op, n: uint8; out, arg: uint16
	needleSize = 6 // text offset: uint16; text length, exact: uint8; pat: uint16
)

// progAt is the i-th program of table.
func progAt(table string, i int) prog {
	j := i * progSize
	return prog{pc: u16(table, j), n: u16(table, j+2), start: u16(table, j+4)}
}

// instAt is instruction pc of the insts table.
func instAt(pc int) inst {
	j := pc * instSize
	return inst{op: insts[j], n: insts[j+1], out: u16(insts, j+2), arg: u16(insts, j+4)}
}

// rangeAt is entry i of the ranges table.
func rangeAt(i int) rune { return rune(u32(ranges, 4*i)) }

// exclusionStart has bit i set when exclusion i can match from byte b.
func exclusionStart(b byte) uint64 {
	return uint64(u32(exclusionStarts, 8*int(b))) | uint64(u32(exclusionStarts, 8*int(b)+4))<<32
}

// needleAt is needle i of table, its text in needleText.
func needleAt(table string, i int) needle {
	j := i * needleSize
	off, n := int(u16(table, j)), int(table[j+2])
	return needle{text: needleText[off : off+n], exact: table[j+3] != 0, pat: u16(table, j+4)}
}

// needleSlot is where the needles of trigram slot h start in needles.
func needleSlot(h int) int { return int(u16(needleSlots, 2*h)) }

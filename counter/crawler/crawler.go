package crawler

import (
	"math/bits"
	"strings"
)

// IsCrawler reports whether ua is the User-Agent of a crawler, exactly as
// crawlerdetect.IsCrawler does: the exclusions (browser and platform
// tokens) are cut out of the trimmed ua, leftmost first, and what is left
// is a crawler's if any crawler pattern matches it.
func IsCrawler(ua string) bool {
	var m machine
	var buf [512]byte
	return matchCrawler(&m, exclude(&m, strings.TrimSpace(ua), buf[:0]))
}

// exclude returns s without the matches of the exclusions, as
// regexp.ReplaceAllString with "" does. The generator checks that no
// exclusion matches the empty string, so each match moves on.
func exclude(m *machine, s string, dst []byte) string {
	last := 0
	for pos := 0; pos < len(s); {
		start, end, ok := nextExclusion(m, s, pos)
		if !ok {
			break
		}
		dst = append(dst, s[last:start]...)
		last, pos = end, end
	}
	if last == 0 {
		return s
	}
	return string(append(dst, s[last:]...))
}

// nextExclusion returns the leftmost-first match of the exclusions in s
// at or after pos: the leftmost start, and there the first exclusion in
// their order that matches.
func nextExclusion(m *machine, s string, pos int) (start, end int, ok bool) {
	for p := pos; p < len(s); p += runeWidth(s, p) {
		for mask := exclusionStart(s[p]); mask != 0; mask &= mask - 1 {
			m.load(progAt(exclusionProgs, bits.TrailingZeros64(mask)), s)
			if end, ok := m.match(p); ok {
				return p, end, true
			}
		}
	}
	return 0, 0, false
}

// needle is a text every match of crawler pattern pat holds, lowered (see
// lowerFold); exact says that holding it is matching, and then pat is
// not used: only the patterns that need a program have one, numbered in
// crawlerProgs.
type needle struct {
	text  string
	pat   uint16
	exact bool
}

// trigramSlots is how many slots needleSlots has; a power of two.
const trigramSlots = 4096

// trigramSlot is the slot of the needles that start with a, b, c.
func trigramSlot(a, b, c byte) int {
	return int((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435761 >> (32 - 12))
}

// matchCrawler reports whether a crawler pattern matches s. Only the
// patterns whose needles are in s run, and most are answered by their
// needle alone.
func matchCrawler(m *machine, s string) bool {
	var buf [512]byte
	low := lowerFold(buf[:0], s)
	var cand [(len(crawlerProgs)/progSize + 63) / 64]uint64
	for i := 0; i+3 <= len(low); i++ {
		h := trigramSlot(low[i], low[i+1], low[i+2])
		for k, end := needleSlot(h), needleSlot(h+1); k < end; k++ {
			if nd := needleAt(needles, k); hasPrefix(low[i:], nd.text) {
				if nd.exact {
					return true
				}
				cand[nd.pat/64] |= 1 << (nd.pat % 64)
			}
		}
	}
	for k := range len(shortNeedles) / needleSize {
		if nd := needleAt(shortNeedles, k); contains(low, nd.text) {
			if nd.exact {
				return true
			}
			cand[nd.pat/64] |= 1 << (nd.pat % 64)
		}
	}
	for k := 0; k < len(alwaysTry); k += 2 {
		pat := u16(alwaysTry, k)
		cand[pat/64] |= 1 << (pat % 64)
	}
	for w, word := range cand {
		for ; word != 0; word &= word - 1 {
			m.load(progAt(crawlerProgs, w*64+bits.TrailingZeros64(word)), s)
			if m.search() {
				return true
			}
		}
	}
	return false
}

// lowerFold appends s with ASCII lowered and the two runes that fold to
// an ASCII letter, U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG
// S, made k and s: a match of a needle in s is then a match in the copy.
// Every other byte stays, and none of them is ASCII.
func lowerFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == 0xE2 && strings.HasPrefix(s[i:], "\u212A"):
			c, i = 'k', i+len("\u212A")-1
		case c == 0xC5 && strings.HasPrefix(s[i:], "\u017F"):
			c, i = 's', i+len("\u017F")-1
		}
		dst = append(dst, c)
	}
	return dst
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

func contains(b []byte, text string) bool {
	for i := 0; i+len(text) <= len(b); i++ {
		if b[i] == text[0] && hasPrefix(b[i:], text) {
			return true
		}
	}
	return false
}

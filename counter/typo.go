package counter

import "strings"

// ImageKeys are the query keys an image request reads: a style's
// (ParseStyle), and count, page and show (ParseImageQuery).
var ImageKeys = [...]string{
	"digits", "size", "fg", "bg", "font", "style", "label", "color", "labelColor", "labelcolor",
	"theme", "darkfg", "darkbg", "smooth", "abbreviated", "count", "page", "show",
	"padding", "scale", "pixelated", "offset", "align", "darkmode", "prefix", "comma",
}

// Typo is a query key that an image does not read but that looks like a
// misspelling of one it does.
type Typo struct {
	Key   string // as the query has it: letters, digits, '_' and '-'
	Known string // the key it looks like
}

// Message says what is wrong in a line short enough for a header.
func (t Typo) Message() string {
	m := t.Key + ": not a parameter, ignored; did you mean " + t.Known + "?"
	if t.Known == "color" {
		m += " (color is a badge's count background; fg colours the digits)"
	}
	return m
}

// Bounds of a key that may be a misspelling: one character is a
// cache-buster (v, t, _), and a key longer than the longest known one
// by more than the edits allowed is no misspelling of it.
const (
	minTypoLen = 2
	maxTypoLen = 12
)

func isImageKey(key string) bool {
	for _, k := range ImageKeys {
		if key == k {
			return true
		}
	}
	return false
}

// LooksLike returns the key of ImageKeys that key, not one of them,
// looks like a misspelling of:
//
//   - the same in another case (FG, Digits), or with the British
//     "colour" for "color" (colour, labelColour);
//   - or, compared in lower case, within one edit of a known key of up
//     to five letters, or two of a longer one (digits, labelcolor), an
//     edit being a letter added, dropped, changed, or two next to each
//     other swapped (the optimal string alignment distance, Damerau's
//     restricted form of Levenshtein's).
//
// Only keys of 2 to 12 letters, digits, '_' or '-' can look like one:
// a single character (v, t, _) is a cache-buster. Two edits of a short
// key would take in the cache-busters that sites use (time is two
// edits from theme, date and tag from page, now from show, cb and ts
// from fg and bg), so short keys allow one. Of two known keys at the
// same distance, the first in ImageKeys is given.
func LooksLike(key string) (string, bool) {
	if len(key) < minTypoLen || len(key) > maxTypoLen {
		return "", false
	}
	var buf [maxTypoLen]byte
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return "", false
		}
		buf[i] = c
	}
	lower := string(buf[:len(key)])
	british := strings.Replace(lower, "colour", "color", 1)
	best, bestEdits := "", 3
	for _, k := range ImageKeys {
		lk := strings.ToLower(k)
		if lower == lk || british == lk {
			return k, true
		}
		allowed := 1
		if len(k) > 5 {
			allowed = 2
		}
		if d := editDistance(lower, lk); d <= allowed && d < bestEdits {
			best, bestEdits = k, d
		}
	}
	return best, best != ""
}

// editDistance is the optimal string alignment distance between two
// strings of at most maxTypoLen bytes: the fewest insertions, deletions,
// substitutions and swaps of neighbours that make a into b, no part
// edited twice.
func editDistance(a, b string) int {
	const w = maxTypoLen + 1
	var d [w * w]int
	for i := 0; i <= len(a); i++ {
		d[i*w] = i
	}
	for j := 0; j <= len(b); j++ {
		d[j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(d[(i-1)*w+j]+1, d[i*w+j-1]+1, d[(i-1)*w+j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, d[(i-2)*w+j-2]+1)
			}
			d[i*w+j] = v
		}
	}
	return d[len(a)*w+len(b)]
}

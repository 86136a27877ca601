// Package logline writes the counter's log: one line per event on stderr,
// which under CGI and FastCGI is the web server's error log, made single
// and bounded whatever a visitor sent.
package logline

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxLine bounds one log line in bytes, its "counter: " and newline
// included: room for the owner's words and a value or two a visitor sent,
// and no more, however long what the visitor sent.
const MaxLine = 300

const (
	prefix = "counter: "
	// cutMark stands for what bound cut out.
	cutMark = "[...]"
)

// Logger writes one line per event to w. Visitor data must be quoted by
// the caller (%q); the line is made single and bounded here as well, so a
// forged value can never start a second line. It is safe for concurrent
// use.
type Logger struct {
	mu sync.Mutex
	w  io.Writer
}

// New returns a Logger that writes to w.
func New(w io.Writer) *Logger { return &Logger{w: w} }

// Printf logs one line, "counter: " and the formatted text, of at most
// MaxLine bytes.
func (l *Logger) Printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	line = strings.Map(func(r rune) rune {
		// C0, DEL and C1 controls, and the Unicode line and paragraph
		// separators that some log viewers break lines at.
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, line)
	line = bound(line, MaxLine-len(prefix)-len("\n"))
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, prefix+line+"\n")
}

// bound returns s if it has at most max bytes, and otherwise s made that
// short. It first shortens the longest words, those without a space, to
// their start and end with cutMark between, each to the same length and
// no shorter than minWord: a visitor's value (a path, a name) is most
// often one long word, and so are the owner's file paths, which stay
// recognisable, while the owner's own words (what is wrong, the fix) stay
// whole. A line still too long (a User-Agent of many short words, say)
// keeps its start and end. Every cut falls between characters, and the
// work is linear in len(s), give or take a logarithm.
func bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if len(s) > maxWork {
		s = shorten(s, maxWork, 0)
	}
	var words []int // the length of each word, in order
	for w := range strings.SplitSeq(s, " ") {
		words = append(words, len(w))
	}
	// fits reports whether s fits when every word longer than c is cut
	// to c bytes.
	fits := func(c int) bool {
		n := len(s)
		for _, w := range words {
			if w > c {
				n -= w - c
			}
		}
		return n <= max
	}
	// The longest cap that fits, found by halving: the more a cap lets
	// through, the longer the line.
	lo, hi := minWord, slices.Max(words)
	if !fits(lo) {
		hi = lo
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, w := range strings.SplitN(s, " ", len(words)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		if len(w) > lo {
			w = shorten(w, lo, minWord)
		}
		b.WriteString(w)
	}
	s = b.String()
	if len(s) > max {
		s = shorten(s, max, 0)
	}
	return s
}

// minWord is as short as bound makes a word; maxWork bounds the text it
// works on, its start and end kept.
const (
	minWord = 20
	maxWork = 64 << 10
)

// shorten returns s, longer than n bytes, as its start and end with
// cutMark between, n bytes at most (and no fewer than least), cut
// between characters; the end gets half, for the reason an error gives
// comes last.
func shorten(s string, n, least int) string {
	n = max(n, least, len(cutMark))
	keep := n - len(cutMark)
	head, tail := keep/2, len(s)-(keep-keep/2)
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + cutMark + s[tail:]
}

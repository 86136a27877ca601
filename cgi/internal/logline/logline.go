// Package logline writes the counter's log: one line per event on stderr,
// which under CGI and FastCGI is the web server's error log, made single
// and bounded whatever a visitor sent.
package logline

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
)

// MaxLine bounds one log line, whatever a visitor sent.
const MaxLine = 1024

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

// Printf logs one line, "counter: " and the formatted text.
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
	if len(line) > MaxLine {
		line = line[:MaxLine] + "..."
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, "counter: "+line+"\n")
}

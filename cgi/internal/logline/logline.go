package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
)

// maxLogLine bounds one log line, whatever a visitor sent.
const maxLogLine = 1024

// logger writes one line per event to stderr, which under CGI is the web
// server's error log. Visitor data must be quoted by the caller (%q); the
// line is made single and bounded here as well, so a forged value can never
// start a second line.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) Printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	line = strings.Map(func(r rune) rune {
		// C0, DEL and C1 controls, and the Unicode line and paragraph
		// separators that some log viewers break lines at.
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, line)
	if len(line) > maxLogLine {
		line = line[:maxLogLine] + "..."
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, "counter: "+line+"\n")
}

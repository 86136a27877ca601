package logline

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoggerWritesOneSafeLine logs values a visitor could send: each
// control character, and each character a log viewer may take for a line
// break, comes out as a space, and the line is bounded.
func TestLoggerWritesOneSafeLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hit", "counter: hit\n"},
		{"newline", "a\nb", "counter: a b\n"},
		{"carriage return", "a\rcounter: login failed", "counter: a counter: login failed\n"},
		{"CRLF", "a\r\nb", "counter: a  b\n"},
		{"NUL", "a\x00b", "counter: a b\n"},
		{"tab, vertical tab, form feed", "a\tb\vc\fd", "counter: a b c d\n"},
		{"terminal escape", "\x1b[31mred\x1b[0m", "counter:  [31mred [0m\n"},
		{"backspace", "ab\bc", "counter: ab c\n"},
		{"DEL", "a\x7fb", "counter: a b\n"},
		{"C1 next line", "a\u0085b", "counter: a b\n"},
		{"C1 CSI", "a\u009b31mb", "counter: a 31mb\n"},
		{"line separator", "a\u2028b", "counter: a b\n"},
		{"paragraph separator", "a\u2029b", "counter: a b\n"},
		{"long", strings.Repeat("x", 5000), "counter: " + strings.Repeat("x", MaxLine) + "...\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			l := New(&out)
			l.Printf("%s", tc.in)
			if got := out.String(); got != tc.want {
				t.Errorf("logged %q, want %q", got, tc.want)
			}
		})
	}
}

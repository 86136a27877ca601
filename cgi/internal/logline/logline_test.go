package logline

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLoggerWritesOneSafeLine logs values a visitor could send: each
// control character, and each character a log viewer may take for a line
// break, comes out as a space.
func TestLoggerWritesOneSafeLine(t *testing.T) {
	room := MaxLine - len("counter: \n") // the text a line has room for
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
		{"as long as a line may be", strings.Repeat("x", room), "counter: " + strings.Repeat("x", room) + "\n"},
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

// TestLongLinesAreBounded: a line too long comes out at most MaxLine
// bytes, a single valid line that keeps the owner's words whole, its
// long words (a visitor's values, file paths) cut in their middle.
func TestLongLinesAreBounded(t *testing.T) {
	room := MaxLine - len("counter: \n")
	dir := "/tmp/TestRuntimeDirectoryOfAnotherUseranother_users927569213/001/run"
	tests := []struct {
		name, in string
		keep     []string // whole in the line
	}{
		{"a byte longer", strings.Repeat("x", room+1), []string{"xxxxxxx" + cutMark + "xxxxxxx"}},
		{"a visitor's kilobyte between the owner's words",
			`GET "/` + strings.Repeat("a", 1024) + `.png": not a counter name`,
			[]string{`counter: GET "/aaaa`, cutMark, `aaaa.png": not a counter name` + "\n"}},
		{"two long values", `login "` + strings.Repeat("n", 500) + `" refused from ` + strings.Repeat("9", 500) + `: too many tries`,
			[]string{`counter: login "nnn`, `" refused from 999`, `999: too many tries` + "\n"}},
		{"the owner's long paths",
			`hit "blog": visitor not known until mended (said once a day): seen: open: runtime directory: ` + dir +
				` belongs to nobody, not to www-data: refused, as that user could plant links in it (fix: sudo chown www-data: ` + dir + ` && sudo chmod 0750 ` + dir + `)`,
			[]string{`counter: hit "blog": visitor not known`, "belongs to nobody, not to www-data", "(fix: sudo chown www-data: /tmp/", "&& sudo chmod 0750 /tmp/", "/run)\n"}},
		{"a User-Agent of many short words", "hit from " + strings.Repeat("Mozilla/5.0 ", 100) + "end",
			[]string{"counter: hit from Mozilla/5.0", cutMark, "Mozilla/5.0 end\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			New(&out).Printf("%s", tc.in)
			line := out.String()
			if len(line) > MaxLine || strings.Count(line, "\n") != 1 {
				t.Errorf("a line of %d bytes, want one of at most %d: %q", len(line), MaxLine, line)
			}
			for _, k := range tc.keep {
				if !strings.Contains(line, k) {
					t.Errorf("%q lacks %q", line, k)
				}
			}
		})
	}
}

// A line of characters of every width is cut between characters, never
// inside one, whatever the offsets.
func TestLongLinesCutBetweenCharacters(t *testing.T) {
	for _, r := range []string{"é", "€", "😀"} {
		for pad := range 4 {
			for _, sep := range []string{"", " "} { // one long word, or many short ones
				var out bytes.Buffer
				New(&out).Printf("%s%s", strings.Repeat("x", pad), strings.Repeat(r+sep, 1000))
				if out.Len() > MaxLine || !utf8.Valid(out.Bytes()) || strings.Count(out.String(), "\n") != 1 {
					t.Errorf("%q after %d bytes: a line of %d bytes, valid UTF-8 %v: %q", r+sep, pad, out.Len(), utf8.Valid(out.Bytes()), out.String())
				}
				if !strings.Contains(out.String(), cutMark) {
					t.Errorf("%q after %d bytes: no mark where the line was cut", r+sep, pad)
				}
			}
		}
	}
}

// A line of a megabyte of words is bounded in little time.
func BenchmarkBoundLongLine(b *testing.B) {
	in := strings.Repeat(strings.Repeat("w", 40)+" ", 25_000)
	var out bytes.Buffer
	l := New(&out)
	for b.Loop() {
		out.Reset()
		l.Printf("%s", in)
	}
}

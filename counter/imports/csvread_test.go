package imports

import (
	"io"
	"strings"
	"testing"
)

// repeated is an endless run of one byte.
type repeated byte

func (c repeated) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// counting counts the bytes read through it.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// hugeField is head, then n bytes of c, then tail.
func hugeField(head string, c byte, n int64, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeated(c), n), strings.NewReader(tail))
}

// TestCSVRecordBound refuses a record longer than maxCSVRecord, a line or
// a quoted field over many, after reading little more than the bound of
// it, and takes one as long as the bound.
func TestCSVRecordBound(t *testing.T) {
	const header = "date,views\n"
	// line is a line of stats.csv of n bytes before its newline.
	line := func(n int) string {
		return "2026-01-01," + strings.Repeat("0", n-len("2026-01-01,1")) + "1\n"
	}
	for _, tc := range []struct {
		name   string
		in     io.Reader
		line   int    // of the refusal; 0 for none
		reason string // of the refusal
	}{
		{"a 200 MB field", hugeField(header+"2026-01-02,", 'x', 200<<20, ",3\n"), 2, "a line longer than 131072 bytes"},
		{"a 200 MB quoted field", hugeField(header+"2026-01-02,\"", 'x', 200<<20, "\"\n"), 2, "a line longer than 131072 bytes"},
		// Refused on the line it has reached at the bound.
		{"a quoted field of many lines", hugeField(header+"2026-01-01,1\n2026-01-02,\"", '\n', 200<<20, "\"\n"), 3 + maxCSVRecord + 1 - len(`2026-01-02,"`), "a record (a quoted field over several lines) longer than 131072 bytes"},
		{"a line at the bound", strings.NewReader(header + line(maxCSVRecord) + "2026-01-02,5\n"), 0, ""},
		{"a line at the bound, last, without its newline", strings.NewReader(header + strings.TrimSuffix(line(maxCSVRecord), "\n")), 0, ""},
		{"a line a byte past the bound", strings.NewReader(header + line(maxCSVRecord+1)), 2, "a line longer than"},
		{"a header past the bound", hugeField("date,views,", 'x', maxCSVRecord, "\n"), 1, "a line longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &counting{r: tc.in}
			imp, err := OwnCSV(in)
			if tc.line == 0 {
				if err != nil || len(imp.Days) == 0 {
					t.Fatalf("got %v, %d days; want days", err, len(imp.Days))
				}
				return
			}
			wantRefusal(t, err, tc.line, tc.reason)
			if in.n > 2*maxCSVRecord {
				t.Errorf("read %d bytes to refuse it, want at most %d", in.n, 2*maxCSVRecord)
			}
		})
	}
	// GoatCounter's export is read the same way.
	in := &counting{r: hugeField("2Path,Event,Bot,Session,FirstVisit,Date\n/a,false,0,", 's', 200<<20, ",true,2026-01-02T09:15:00Z\n")}
	_, err := GoatCounterCSV(in, nil)
	wantRefusal(t, err, 2, "a line longer than 131072 bytes")
	if in.n > 2*maxCSVRecord {
		t.Errorf("GoatCounter: read %d bytes to refuse it, want at most %d", in.n, 2*maxCSVRecord)
	}
}

package imports

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"hitcounter/counter"
)

// Bounds of a file of counts: a line is short, and a file names at most
// as many counters as anyone keeps.
const (
	maxCountLine = 4096
	MaxCounters  = 10_000
)

// Counts reads a file of counts: either lines of NAME COUNT (separated by
// spaces or tabs; blank lines and # comments allowed), each a counter's
// total, or a single number, as PHP and C counters keep their count in a
// text file, which names no counter. A file whose only content is one
// number is the latter.
func Counts(r io.Reader) ([]counter.Imported, error) {
	sc := bufio.NewScanner(skipBOM(r))
	sc.Buffer(make([]byte, 0, 512), maxCountLine)
	var imps []counter.Imported
	lines := map[string]int{}
	bare := 0 // the line of a lone number, 0 for none
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		switch {
		case len(fields) == 1 && len(imps) == 0 && bare == 0:
			n, ok := parseCount(fields[0])
			if !ok {
				return nil, &counter.ImportError{Line: line, Reason: "want NAME COUNT lines, or a file holding one number: the count is " + notACount, Quote: counter.Excerpt(fields[0])}
			}
			bare = line
			imps = append(imps, counter.Imported{Total: n, HasTotal: true})
		case bare != 0:
			return nil, &counter.ImportError{Line: line, Reason: fmt.Sprintf("more after the number on line %d: want NAME COUNT lines, or a file holding one number", bare)}
		case len(fields) != 2:
			return nil, &counter.ImportError{Line: line, Reason: "want NAME COUNT"}
		default:
			name := fields[0]
			if counter.CheckName(name) != nil {
				return nil, &counter.ImportError{Line: line, Reason: "not a counter name", Quote: counter.Excerpt(name)}
			}
			if first, ok := lines[name]; ok {
				return nil, &counter.ImportError{Line: line, Reason: fmt.Sprintf("a counter given twice, first on line %d", first), Quote: counter.Excerpt(name)}
			}
			n, ok := parseCount(fields[1])
			if !ok {
				return nil, &counter.ImportError{Line: line, Reason: "the count is " + notACount, Quote: counter.Excerpt(name + " " + fields[1])}
			}
			if len(imps) >= MaxCounters {
				return nil, &counter.ImportError{Line: line, Reason: fmt.Sprintf("more than %d counters", MaxCounters)}
			}
			lines[name] = line
			imps = append(imps, counter.Imported{Name: name, Total: n, HasTotal: true})
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, &counter.ImportError{Line: line + 1, Reason: fmt.Sprintf("a line longer than %d bytes", maxCountLine)}
		}
		return nil, err
	}
	if len(imps) == 0 {
		return nil, &counter.ImportError{Reason: "the file holds no count"}
	}
	return imps, nil
}

// notACount says what a count must be.
const notACount = "not a whole number from 0 to 18446744073709551615"

// parseCount reads a count: plain decimal digits, exactly, up to 2^64-1.
func parseCount(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

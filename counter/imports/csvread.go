package imports

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"hitcounter/counter"
)

// maxCSVRecord bounds a record of a CSV file before its newline, as
// maxLogLine bounds a line of a log: a line of stats.csv is a few hundred
// bytes, a row of GoatCounter's export a few kilobytes.
const maxCSVRecord = 128 << 10

// csvReader reads a CSV file a record at a time, and refuses a record
// longer than maxCSVRecord after reading at most that much of it:
// encoding/csv holds a whole record in memory, whatever its size, and a
// quoted field may run over any number of lines.
type csvReader struct {
	cr *csv.Reader
	in *boundedReader
}

func newCSVReader(r io.Reader) *csvReader {
	in := &boundedReader{r: skipBOM(r), lastNewline: -1}
	return &csvReader{cr: csv.NewReader(in), in: in}
}

// Read returns the next record, or io.EOF after the last; every other
// error is an *counter.ImportError.
func (c *csvReader) Read() ([]string, error) {
	start := c.cr.InputOffset()
	c.in.limit = start + maxCSVRecord + 1 // one byte more, to see the end
	rec, err := c.cr.Read()
	var pe *csv.ParseError
	switch {
	case err == nil || err == io.EOF:
		return rec, err
	case errors.Is(err, errRecordTooLong):
		what := "a line"
		if c.in.lastNewline >= start {
			what = "a record (a quoted field over several lines)"
		}
		return nil, &counter.ImportError{Line: c.in.lines + 1, Reason: fmt.Sprintf("%s longer than %d bytes", what, maxCSVRecord)}
	case errors.As(err, &pe):
		return nil, &counter.ImportError{Line: pe.Line, Reason: pe.Err.Error()}
	}
	return nil, err
}

// line returns the line that the last record read starts on.
func (c *csvReader) line() int {
	line, _ := c.cr.FieldPos(0)
	return line
}

var errRecordTooLong = errors.New("a record too long")

// boundedReader gives out no byte past limit, and counts the lines of
// what it gave.
type boundedReader struct {
	r           io.Reader
	read, limit int64
	lines       int   // newlines given out
	lastNewline int64 // the offset of the last newline given out, -1 for none
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.read >= b.limit {
		return 0, errRecordTooLong
	}
	if rest := b.limit - b.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.r.Read(p)
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		b.lines += bytes.Count(p[:n], []byte{'\n'})
		b.lastNewline = b.read + int64(i)
	}
	b.read += int64(n)
	return n, err
}

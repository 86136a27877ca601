package imports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"hitcounter/counter"
)

// jsonReader reads JSON a value at a time, with the line of each refusal
// and a bound on every string, number and nesting, which encoding/json's
// Decoder does not give, and reads counts as exact uint64s where
// encoding/json would make them float64s; the tests compare what it reads
// with what encoding/json reads.
type jsonReader struct {
	r     *bufio.Reader
	line  int
	depth int
}

// Bounds of what jsonReader reads.
const (
	maxJSONString = 4096
	maxJSONNumber = 32
	maxJSONDepth  = 8
)

func newJSONReader(r io.Reader) *jsonReader {
	return &jsonReader{r: bufio.NewReaderSize(r, 64<<10), line: 1}
}

func (j *jsonReader) fail(format string, args ...any) error {
	return &counter.ImportError{Line: j.line, Reason: fmt.Sprintf(format, args...)}
}

// failQuoting refuses the file at the current line for a reason, quoting
// what the file holds there, s.
func (j *jsonReader) failQuoting(s, format string, args ...any) error {
	return &counter.ImportError{Line: j.line, Reason: fmt.Sprintf(format, args...), Quote: counter.Excerpt(s)}
}

// found refuses the file for a reason that byte c, read where something
// else was expected, gives; c is 0 at the end of the file.
func (j *jsonReader) found(c byte, reason string) error {
	if c == 0 {
		return j.fail("%s, found the end of the file", reason)
	}
	return j.failQuoting(string([]byte{c}), "%s, found another character", reason)
}

// peek returns the next byte that is not white space, without reading it;
// 0 at the end.
func (j *jsonReader) peek() (byte, error) {
	for {
		c, err := j.r.ReadByte()
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		switch c {
		case '\n':
			j.line++
			continue
		case ' ', '\t', '\r':
			continue
		}
		return c, j.r.UnreadByte()
	}
}

// nextLine returns the line of the next value, after white space.
func (j *jsonReader) nextLine() int {
	j.peek()
	return j.line
}

// expect reads c, after white space.
func (j *jsonReader) expect(c byte) error {
	got, err := j.peek()
	if err != nil {
		return err
	}
	if got != c {
		return j.found(got, fmt.Sprintf("expected %q", string(c)))
	}
	j.r.ReadByte()
	return nil
}

// object reads an object, calling fn with each key; fn reads its value.
func (j *jsonReader) object(fn func(key string) error) error {
	return j.list('{', '}', func() error {
		key, err := j.str()
		if err != nil {
			return err
		}
		if err := j.expect(':'); err != nil {
			return err
		}
		return fn(key)
	})
}

// array reads an array, calling fn to read each element.
func (j *jsonReader) array(fn func() error) error {
	return j.list('[', ']', fn)
}

// list reads what stands between open and close, separated by commas,
// calling elem to read each element, nested at most maxJSONDepth deep.
func (j *jsonReader) list(open, close byte, elem func() error) error {
	if err := j.expect(open); err != nil {
		return err
	}
	if j.depth++; j.depth > maxJSONDepth {
		return j.fail("nested deeper than %d", maxJSONDepth)
	}
	defer func() { j.depth-- }()
	for first := true; ; first = false {
		c, err := j.peek()
		if err != nil {
			return err
		}
		if c == close {
			j.r.ReadByte()
			return nil
		}
		if !first {
			if err := j.expect(','); err != nil {
				return err
			}
		}
		if err := elem(); err != nil {
			return err
		}
	}
}

// str reads a string.
func (j *jsonReader) str() (string, error) {
	if err := j.expect('"'); err != nil {
		return "", err
	}
	var b strings.Builder
	for {
		if b.Len() > maxJSONString {
			return "", j.fail("a string longer than %d bytes", maxJSONString)
		}
		c, err := j.r.ReadByte()
		if err == io.EOF {
			return "", j.fail("a string not ended")
		}
		if err != nil {
			return "", err
		}
		switch {
		case c == '"':
			s := b.String()
			if !utf8.ValidString(s) {
				return "", j.fail("a string that is not UTF-8")
			}
			return s, nil
		case c < 0x20:
			return "", j.fail("a control character in a string")
		case c == '\\':
			if err := j.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
		}
	}
}

// escape reads what follows a backslash in a string.
func (j *jsonReader) escape(b *strings.Builder) error {
	c, err := j.r.ReadByte()
	if err != nil {
		return j.fail("a string not ended")
	}
	switch c {
	case '"', '\\', '/':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, err := j.hex4()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			// The second half must follow as another \u escape.
			var pair [2]byte
			if _, err := io.ReadFull(j.r, pair[:]); err != nil || pair != [2]byte{'\\', 'u'} {
				return j.fail("half of a UTF-16 surrogate pair")
			}
			r2, err := j.hex4()
			if err != nil {
				return err
			}
			if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
				return j.fail("a bad UTF-16 surrogate pair")
			}
		}
		b.WriteRune(r)
	default:
		return j.failQuoting(string([]byte{'\\', c}), "a bad escape in a string")
	}
	return nil
}

func (j *jsonReader) hex4() (rune, error) {
	var h [4]byte
	if _, err := io.ReadFull(j.r, h[:]); err != nil {
		return 0, j.fail("a string not ended")
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 16)
	if err != nil {
		return 0, j.fail("a bad \\u escape")
	}
	return rune(n), nil
}

// count reads a count: a whole number from 0 to 2^64-1, exactly.
func (j *jsonReader) count(what string) (uint64, error) {
	c, err := j.peek()
	if err != nil {
		return 0, err
	}
	if c != '-' && (c < '0' || c > '9') {
		return 0, j.found(c, what+" must be a number")
	}
	lit, err := j.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(lit, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, j.failQuoting(lit, "%s is more than 18446744073709551615", what)
		}
		return 0, j.failQuoting(lit, "%s is not a whole number from 0 up", what)
	}
	return n, nil
}

// number reads a number as JSON writes it, -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?, and returns it as written.
func (j *jsonReader) number() (string, error) {
	var lit []byte
	for len(lit) <= maxJSONNumber {
		b, err := j.r.ReadByte()
		if err != nil {
			break
		}
		if !numberByte(b) {
			j.r.UnreadByte()
			break
		}
		lit = append(lit, b)
	}
	if len(lit) > maxJSONNumber {
		return "", j.fail("a number longer than %d characters", maxJSONNumber)
	}
	if !validNumber(lit) {
		if len(lit) > 1 && lit[0] == '0' && '0' <= lit[1] && lit[1] <= '9' {
			return "", j.failQuoting(string(lit), "a number with a leading zero")
		}
		return "", j.failQuoting(string(lit), "not a number")
	}
	return string(lit), nil
}

// validNumber reports whether lit is a number of JSON's grammar.
func validNumber(lit []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(lit) && '0' <= lit[i] && lit[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	switch {
	case i < len(lit) && lit[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(lit)
}

// optionalStr reads a string, or null as "".
func (j *jsonReader) optionalStr() (string, error) {
	c, err := j.peek()
	if err != nil || c != 'n' {
		if err == nil {
			return j.str()
		}
		return "", err
	}
	return "", j.literal("null")
}

func (j *jsonReader) literal(word string) error {
	var b [5]byte
	if _, err := io.ReadFull(j.r, b[:len(word)]); err != nil || string(b[:len(word)]) != word {
		return j.fail("expected a value")
	}
	return nil
}

// skip reads any value and forgets it.
func (j *jsonReader) skip() error {
	c, err := j.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		return j.object(func(string) error { return j.skip() })
	case c == '[':
		return j.array(j.skip)
	case c == '"':
		_, err := j.str()
		return err
	case c == 't':
		return j.literal("true")
	case c == 'f':
		return j.literal("false")
	case c == 'n':
		return j.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		_, err := j.number()
		return err
	}
	return j.found(c, "expected a value")
}

// end checks that nothing but white space follows the value read.
func (j *jsonReader) end() error {
	c, err := j.peek()
	if err != nil {
		return err
	}
	if c == 0 {
		// peek's 0 is the end, or a NUL byte it left unread.
		if _, err := j.r.ReadByte(); err == io.EOF {
			return nil
		}
	}
	return j.fail("more after the end of the JSON value")
}

// numberByte reports whether c may be part of a JSON number.
func numberByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || '0' <= c && c <= '9'
}

package cgiwire

import (
	"io"
	"slices"
	"strconv"
	"strings"
)

// Field is one header of an answer.
type Field struct{ Key, Value string }

// WriteAnswer writes a whole answer in CGI form, as the gateway writes
// one that it held (the test of the hit binary compares the two byte for
// byte): a Status line, the headers sorted by key, each once, with their
// line breaks turned to spaces and the ends trimmed, a blank line and the
// body, given in pieces written one after another. h must hold
// Content-Type and Content-Length.
func WriteAnswer(w io.Writer, status int, h []Field, body ...[]byte) error {
	h = slices.Clone(h)
	slices.SortStableFunc(h, func(a, b Field) int { return strings.Compare(a.Key, b.Key) })
	n := 0
	for _, p := range body {
		n += len(p)
	}
	// A small body goes out with the headers in one write; a large one
	// (an animated GIF) as it is, which a copy into one buffer would
	// touch as many new pages again for.
	joined := n <= answerCopied
	size := 512
	if joined {
		size += n
	}
	b := make([]byte, 0, size)
	b = append(b, "Status: "...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = append(b, StatusText(status)...)
	b = append(b, "\r\n"...)
	for _, f := range h {
		b = append(b, f.Key...)
		b = append(b, ": "...)
		b = append(b, headerValue(f.Value)...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	if joined {
		for _, p := range body {
			b = append(b, p...)
		}
	}
	if _, err := w.Write(b); err != nil || joined {
		return err
	}
	for _, p := range body {
		if len(p) == 0 {
			continue
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// answerCopied is the largest body WriteAnswer copies after the headers.
const answerCopied = 8 << 10

// headerValue is v as net/http's Header.Write writes it.
func headerValue(v string) string {
	v = strings.NewReplacer("\n", " ", "\r", " ").Replace(v)
	return strings.Trim(v, " \t\n\r")
}

// StatusText is net/http's text for the statuses an image answer has.
func StatusText(status int) string {
	switch status {
	case 200:
		return "OK"
	case 400:
		return "Bad Request"
	case 404:
		return "Not Found"
	case 500:
		return "Internal Server Error"
	case 503:
		return "Service Unavailable"
	case 507:
		return "Insufficient Storage"
	}
	return ""
}

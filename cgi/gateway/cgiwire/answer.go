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
// body. h must hold Content-Type and Content-Length.
func WriteAnswer(w io.Writer, status int, h []Field, body []byte) error {
	h = slices.Clone(h)
	slices.SortStableFunc(h, func(a, b Field) int { return strings.Compare(a.Key, b.Key) })
	b := make([]byte, 0, 512+len(body))
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
	b = append(b, body...)
	_, err := w.Write(b)
	return err
}

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

package gateway

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The FastCGI 1.0 record codec: the records' header, their reading and
// writing, and the name-value pairs of the parameters, as the standard
// library's net/http/fcgi keeps them in fcgi.go apart from its responder
// (child.go; here fastcgi.go).

// Record types and values of the FastCGI specification used here.
const (
	fcgiVersion = 1

	fcgiBeginRequest    = 1
	fcgiAbortRequest    = 2
	fcgiEndRequest      = 3
	fcgiParams          = 4
	fcgiStdin           = 5
	fcgiStdout          = 6
	fcgiGetValues       = 9
	fcgiGetValuesResult = 10
	fcgiUnknownType     = 11

	fcgiResponder = 1
	fcgiKeepConn  = 1

	fcgiRequestComplete = 0
	fcgiCantMpxConn     = 1
	fcgiUnknownRole     = 3

	fcgiMaxContent = 65535
)

// fcgiRecord is one record as read.
type fcgiRecord struct {
	typ     uint8
	id      uint16
	content []byte // valid until the next read
}

// readRecord reads one record from r, its content and padding into buf,
// which must hold fcgiMaxContent+255 bytes; the content stays valid until
// buf is read into again.
func readRecord(r io.Reader, buf []byte) (fcgiRecord, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return fcgiRecord{}, io.EOF // the web server closed the connection
		}
		return fcgiRecord{}, fmt.Errorf("fastcgi: read: %w", err)
	}
	if h[0] != fcgiVersion {
		return fcgiRecord{}, fmt.Errorf("fastcgi: record of version %d", h[0])
	}
	n := int(binary.BigEndian.Uint16(h[4:6]))
	if _, err := io.ReadFull(r, buf[:n+int(h[6])]); err != nil {
		return fcgiRecord{}, fmt.Errorf("fastcgi: read: %w", err)
	}
	return fcgiRecord{typ: h[1], id: binary.BigEndian.Uint16(h[2:4]), content: buf[:n]}, nil
}

// writeRecord writes one record of at most fcgiMaxContent bytes to w,
// unpadded. Only the content's write error is reported: w is a
// bufio.Writer, which keeps the first.
func writeRecord(w io.Writer, typ uint8, id uint16, content []byte) error {
	h := [8]byte{fcgiVersion, typ}
	binary.BigEndian.PutUint16(h[2:], id)
	binary.BigEndian.PutUint16(h[4:], uint16(len(content)))
	w.Write(h[:])
	if _, err := w.Write(content); err != nil {
		return fmt.Errorf("fastcgi: write: %w", err)
	}
	return nil
}

// parseParams decodes FastCGI name-value pairs.
func parseParams(p []byte) (map[string]string, error) {
	env := make(map[string]string, 32)
	for len(p) > 0 {
		var nameLen, valueLen int
		var ok bool
		if nameLen, p, ok = paramLen(p); !ok {
			return nil, errors.New("fastcgi: bad parameter length")
		}
		if valueLen, p, ok = paramLen(p); !ok {
			return nil, errors.New("fastcgi: bad parameter length")
		}
		if nameLen > len(p) || valueLen > len(p)-nameLen {
			return nil, errors.New("fastcgi: parameter longer than its record")
		}
		env[string(p[:nameLen])] = string(p[nameLen : nameLen+valueLen])
		p = p[nameLen+valueLen:]
	}
	return env, nil
}

// paramLen decodes a length of one byte, or of four with the top bit set.
func paramLen(p []byte) (int, []byte, bool) {
	switch {
	case len(p) >= 1 && p[0] < 0x80:
		return int(p[0]), p[1:], true
	case len(p) >= 4:
		return int(binary.BigEndian.Uint32(p) & 0x7fffffff), p[4:], true
	}
	return 0, p, false
}

// appendParam encodes one name-value pair.
func appendParam(out []byte, name, value string) []byte {
	for _, s := range []string{name, value} {
		if len(s) < 0x80 {
			out = append(out, byte(len(s)))
		} else {
			out = binary.BigEndian.AppendUint32(out, uint32(len(s))|1<<31)
		}
	}
	return append(append(out, name...), value...)
}

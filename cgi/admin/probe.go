package admin

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// defaultSocket is where deploy/systemd/counter.socket puts the FastCGI
// service's socket.
const defaultSocket = "/run/counter/fastcgi.sock"

// fastCGISocket checks that the FastCGI service answers on the socket at
// path: it asks for FCGI_MPXS_CONNS with a management record
// (FCGI_GET_VALUES), which counts nothing and that every FastCGI
// responder answers. A missing socket is no problem: CGI needs none.
func (d *doctor) fastCGISocket(path string) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(d.w, "FastCGI service: no socket at %s (none is needed for CGI, or for lighttpd's and mod_fcgid's FastCGI)\n", path)
		return
	}
	start := time.Now()
	value, err := getValue(path, "FCGI_MPXS_CONNS", 5*time.Second)
	if err != nil {
		d.problem("FastCGI service at %s: %v; check it with systemctl status counter.socket counter.service", path, err)
		return
	}
	fmt.Fprintf(d.w, "FastCGI service at %s: answers in %.1f ms (FCGI_MPXS_CONNS=%s)\n", path, float64(time.Since(start))/float64(time.Millisecond), value)
}

// getValue asks the FastCGI responder on the Unix socket at path for the
// value of name, within timeout.
func getValue(path, name string, timeout time.Duration) (string, error) {
	conn, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return "", fmt.Errorf("cannot connect: %w", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	// FCGI_GET_VALUES: version 1, type 9, request id 0, the name with an
	// empty value, padded to 8 bytes.
	content := append([]byte{byte(len(name)), 0}, name...)
	pad := (8 - len(content)%8) % 8
	rec := []byte{1, 9, 0, 0, 0, 0, byte(pad), 0}
	binary.BigEndian.PutUint16(rec[4:], uint16(len(content)))
	rec = append(append(rec, content...), make([]byte, pad)...)
	if _, err := conn.Write(rec); err != nil {
		return "", fmt.Errorf("cannot send: %w", err)
	}
	r := bufio.NewReader(conn)
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", fmt.Errorf("no answer: %w", err)
	}
	if h[0] != 1 || h[1] != 10 { // FCGI_GET_VALUES_RESULT
		return "", fmt.Errorf("not a FastCGI answer (record type %d)", h[1])
	}
	body := make([]byte, int(binary.BigEndian.Uint16(h[4:]))+int(h[6]))
	if _, err := io.ReadFull(r, body); err != nil {
		return "", fmt.Errorf("answer cut short: %w", err)
	}
	body = body[:binary.BigEndian.Uint16(h[4:])]
	// Short name-value pairs: a length byte each, then name and value.
	for len(body) >= 2 {
		n, v := int(body[0]), int(body[1])
		if len(body) < 2+n+v {
			break
		}
		if string(body[2:2+n]) == name {
			return string(body[2+n : 2+n+v]), nil
		}
		body = body[2+n+v:]
	}
	return "", fmt.Errorf("the answer has no %s", strings.ToLower(name))
}

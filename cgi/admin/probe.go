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

// loginClientValue is the name under which the FastCGI service says whom
// logins count against (gateway.LoginClientValue, which this package may
// not import; the doctor test checks the two agree, through the binary).
const loginClientValue = "COUNTER_LOGIN_CLIENT"

// fastCGISocket checks that the FastCGI service answers on the socket
// that where names (a path, unix:PATH, or tcp:HOST:PORT): it asks for
// FCGI_MPXS_CONNS with a management record (FCGI_GET_VALUES), which
// counts nothing and that every FastCGI responder answers, and for whom
// logins count against. A missing Unix socket is no problem: CGI needs
// none.
func (d *doctor) fastCGISocket(where string) {
	network, addr := "unix", strings.TrimPrefix(where, "unix:")
	if a, ok := strings.CutPrefix(where, "tcp:"); ok {
		network, addr = "tcp", a
	}
	if network == "unix" {
		if _, err := os.Stat(addr); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(d.w, "FastCGI service: no socket at %s (none is needed for CGI, or for lighttpd's and mod_fcgid's FastCGI)\n", addr)
			return
		}
	}
	start := time.Now()
	values, err := getValues(network, addr, 5*time.Second, "FCGI_MPXS_CONNS", loginClientValue)
	if err == nil && values["FCGI_MPXS_CONNS"] == "" {
		err = errors.New("the answer has no fcgi_mpxs_conns")
	}
	if err != nil {
		d.problem("FastCGI service at %s: %v; check it with systemctl status counter.socket counter.service", where, err)
		return
	}
	fmt.Fprintf(d.w, "FastCGI service at %s: answers in %.1f ms (FCGI_MPXS_CONNS=%s)\n", where, float64(time.Since(start))/float64(time.Millisecond), values["FCGI_MPXS_CONNS"])
	switch mode := values[loginClientValue]; {
	case mode == "peer":
		fmt.Fprintf(d.w, "  logins: over tcp every login counts as one client, whatever REMOTE_ADDR says, as any local user may connect and claim any address;\n"+
			"  a unix: socket is the better choice, or pass -only-web-server-connects if nothing but the web server can reach the port\n")
	case mode == "remote-addr" && network == "tcp":
		fmt.Fprintf(d.w, "  logins: limited per REMOTE_ADDR, as -only-web-server-connects says nothing but the web server can reach this port;\n"+
			"  if any other local user can, they can claim any address: drop the flag, or use a unix: socket\n")
	case mode == "remote-addr":
		fmt.Fprintf(d.w, "  logins: limited per REMOTE_ADDR, which only the web server can send on a Unix socket\n")
	default:
		fmt.Fprintf(d.w, "  logins: the service does not say whom they count against (a build from before %s)\n", loginClientValue)
	}
}

// getValues asks the FastCGI responder at addr on network for the values
// of names, within timeout, and returns those it answers.
func getValues(network, addr string, timeout time.Duration, names ...string) (map[string]string, error) {
	conn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("cannot connect: %w", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	// FCGI_GET_VALUES: version 1, type 9, request id 0, each name with an
	// empty value, padded to 8 bytes.
	var content []byte
	for _, name := range names {
		content = append(append(content, byte(len(name)), 0), name...)
	}
	pad := (8 - len(content)%8) % 8
	rec := []byte{1, 9, 0, 0, 0, 0, byte(pad), 0}
	binary.BigEndian.PutUint16(rec[4:], uint16(len(content)))
	rec = append(append(rec, content...), make([]byte, pad)...)
	if _, err := conn.Write(rec); err != nil {
		return nil, fmt.Errorf("cannot send: %w", err)
	}
	r := bufio.NewReader(conn)
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("no answer: %w", err)
	}
	if h[0] != 1 || h[1] != 10 { // FCGI_GET_VALUES_RESULT
		return nil, fmt.Errorf("not a FastCGI answer (record type %d)", h[1])
	}
	body := make([]byte, int(binary.BigEndian.Uint16(h[4:]))+int(h[6]))
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("answer cut short: %w", err)
	}
	body = body[:binary.BigEndian.Uint16(h[4:])]
	// Short name-value pairs: a length byte each, then name and value.
	values := map[string]string{}
	for len(body) >= 2 {
		n, v := int(body[0]), int(body[1])
		if n >= 0x80 || v >= 0x80 || len(body) < 2+n+v {
			break
		}
		values[string(body[2:2+n])] = string(body[2+n : 2+n+v])
		body = body[2+n+v:]
	}
	return values, nil
}

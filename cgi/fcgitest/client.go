// Package fcgitest plays the web server's side of a FastCGI connection,
// for tests: it sends requests record by record, as lighttpd's mod_fastcgi
// and Apache's mod_fcgid do, and reads the answers. It is written from the
// FastCGI 1.0 specification, apart from the responder it tests, and is
// imported by tests and by the benchmarks' clients.
package fcgitest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Record types and values of the FastCGI specification.
const (
	Version = 1

	BeginRequest    = 1
	AbortRequest    = 2
	EndRequest      = 3
	Params          = 4
	Stdin           = 5
	Stdout          = 6
	GetValues       = 9
	GetValuesResult = 10

	Responder = 1
	KeepConn  = 1

	RequestComplete = 0
	CantMpxConn     = 1
	UnknownRole     = 3
)

// Client is one connection to a FastCGI responder.
type Client struct {
	Conn net.Conn
	R    *bufio.Reader
	// Pause, if set, is how long Request waits after each stdin record
	// but the last, as a slow client's body trickles in.
	Pause time.Duration
}

// Dial connects to the responder on the unix socket at addr, with a
// deadline that keeps a test from hanging on a responder that never
// answers.
func Dial(addr string) (*Client, error) {
	return DialNetwork("unix", addr)
}

// DialNetwork is Dial on another network: "tcp" and HOST:PORT.
func DialNetwork(network, addr string) (*Client, error) {
	conn, err := net.Dial(network, addr)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	return &Client{Conn: conn, R: bufio.NewReader(conn)}, nil
}

// Send writes one record, padded to 8 bytes as web servers pad them.
func (c *Client) Send(typ uint8, id uint16, content []byte) error {
	_, err := c.Conn.Write(Record(typ, id, content))
	return err
}

// Record encodes one record, padded to 8 bytes as web servers pad them.
func Record(typ uint8, id uint16, content []byte) []byte {
	h := [8]byte{Version, typ}
	binary.BigEndian.PutUint16(h[2:], id)
	binary.BigEndian.PutUint16(h[4:], uint16(len(content)))
	pad := (8 - len(content)%8) % 8
	h[6] = byte(pad)
	return append(append(h[:], content...), make([]byte, pad)...)
}

// Recv reads one record.
func (c *Client) Recv() (typ uint8, id uint16, content []byte, err error) {
	var h [8]byte
	if _, err := io.ReadFull(c.R, h[:]); err != nil {
		return 0, 0, nil, err
	}
	content = make([]byte, int(binary.BigEndian.Uint16(h[4:]))+int(h[6]))
	if _, err := io.ReadFull(c.R, content); err != nil {
		return 0, 0, nil, err
	}
	return h[1], binary.BigEndian.Uint16(h[2:]), content[:binary.BigEndian.Uint16(h[4:])], nil
}

// Begin sends a responder's begin-request record.
func (c *Client) Begin(id uint16, keep bool) error {
	flags := byte(0)
	if keep {
		flags = KeepConn
	}
	return c.Send(BeginRequest, id, []byte{0, Responder, flags, 0, 0, 0, 0, 0})
}

// Request sends one whole request, its body in stdin records of at most
// chunk bytes, and reads its answer: the CGI-form output and the
// end-request's protocol status.
func (c *Client) Request(id uint16, keep bool, env map[string]string, body []byte, chunk int) ([]byte, uint8, error) {
	if err := c.Begin(id, keep); err != nil {
		return nil, 0, err
	}
	for _, rec := range [][]byte{Pairs(env), nil} {
		if err := c.Send(Params, id, rec); err != nil {
			return nil, 0, err
		}
	}
	for len(body) > 0 {
		n := min(len(body), chunk)
		if err := c.Send(Stdin, id, body[:n]); err != nil {
			return nil, 0, err
		}
		body = body[n:]
		if c.Pause > 0 {
			time.Sleep(c.Pause)
		}
	}
	if err := c.Send(Stdin, id, nil); err != nil {
		return nil, 0, err
	}
	return c.Answer(id)
}

// PostForm sends a same-origin form POST of form to pathInfo from the
// client address addr, as request 1 on a connection it asks not to keep,
// and returns the answer in CGI form.
func (c *Client) PostForm(pathInfo, addr string, form []byte) ([]byte, error) {
	env := Env("POST", pathInfo, "", "REMOTE_ADDR", addr,
		"CONTENT_TYPE", "application/x-www-form-urlencoded", "CONTENT_LENGTH", strconv.Itoa(len(form)),
		"HTTP_SEC_FETCH_SITE", "same-origin")
	out, _, err := c.Request(1, false, env, form, len(form))
	return out, err
}

// Answer reads the stdout records of request id up to its end-request.
func (c *Client) Answer(id uint16) ([]byte, uint8, error) {
	var out []byte
	for {
		typ, rid, content, err := c.Recv()
		if err != nil {
			return out, 0, err
		}
		if rid != id {
			return out, 0, fmt.Errorf("record for request %d, want %d", rid, id)
		}
		switch typ {
		case Stdout:
			out = append(out, content...)
		case EndRequest:
			return out, content[4], nil
		default:
			return out, 0, fmt.Errorf("unexpected record type %d", typ)
		}
	}
}

// Env is the environment lighttpd's mod_fastcgi sends for a request
// under /cgi-bin/counter.cgi, with extra KEY, VALUE pairs.
func Env(method, pathInfo, query string, extra ...string) map[string]string {
	env := map[string]string{
		"GATEWAY_INTERFACE": "CGI/1.1",
		"SERVER_PROTOCOL":   "HTTP/1.1",
		"SERVER_SOFTWARE":   "lighttpd/1.4.69",
		"SERVER_NAME":       "127.0.0.1",
		"SERVER_PORT":       "80",
		"REMOTE_ADDR":       "127.0.0.1",
		"REQUEST_METHOD":    method,
		"SCRIPT_NAME":       "/cgi-bin/counter.cgi",
		"PATH_INFO":         pathInfo,
		"QUERY_STRING":      query,
		"REQUEST_URI":       "/cgi-bin/counter.cgi" + pathInfo,
		"HTTP_HOST":         "127.0.0.1",
		"HTTP_USER_AGENT":   BrowserUA,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

// BrowserUA is a browser's User-Agent, which Env sends: without one, a
// hit is a bot's and does not count.
const BrowserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"

// Pairs encodes env as the content of params records.
func Pairs(env map[string]string) []byte {
	var p []byte
	for k, v := range env {
		p = AppendPair(p, k, v)
	}
	return p
}

// AppendPair appends one name-value pair in the specification's encoding:
// a length under 128 in one byte, a longer one in four with the top bit
// set.
func AppendPair(b []byte, name, value string) []byte {
	for _, n := range []int{len(name), len(value)} {
		if n < 0x80 {
			b = append(b, byte(n))
		} else {
			b = binary.BigEndian.AppendUint32(b, uint32(n)|1<<31)
		}
	}
	return append(append(b, name...), value...)
}

// Answer is an answer in CGI form: what a CGI program writes, and what a
// FastCGI responder sends in its stdout records.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// ParseAnswer reads an answer in CGI form: a Status header, the others, a
// blank line and the body.
func ParseAnswer(out []byte) (Answer, error) {
	head, body, ok := bytes.Cut(out, []byte("\r\n\r\n"))
	if !ok {
		return Answer{}, fmt.Errorf("no end of headers in %.200q", out)
	}
	mh, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(head, "\r\n\r\n"...)))).ReadMIMEHeader()
	if err != nil {
		return Answer{}, fmt.Errorf("headers: %v in %.200q", err, out)
	}
	h := http.Header(mh)
	status, err := strconv.Atoi(strings.Fields(h.Get("Status") + " x")[0])
	if err != nil {
		return Answer{}, fmt.Errorf("Status header %q", h.Get("Status"))
	}
	return Answer{status, h, body}, nil
}

// MustDial connects to the responder at sock until the test ends.
func MustDial(tb testing.TB, sock string) *Client {
	tb.Helper()
	c, err := Dial(sock)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Conn.Close() })
	return c
}

// MustParse reads an answer in CGI form, or fails the test.
func MustParse(tb testing.TB, out []byte) Answer {
	tb.Helper()
	ans, err := ParseAnswer(out)
	if err != nil {
		tb.Fatal(err)
	}
	return ans
}

package gateway

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/internal/logline"
)

// pieces answers with size bytes of a known pattern, written in pieces of
// piece bytes as an export writes them. With cutAt, it fails after that
// many: it cuts the answer off, and answers afresh with a 503 when Cut
// says nothing had gone out. With length, it says the length first.
type pieces struct {
	size, piece, cutAt int
	length             bool
}

// pattern is the body pieces writes, or the start of it.
func pattern(n int) []byte {
	return bytes.Repeat([]byte("0123456789abcde\n"), n/16+1)[:n]
}

func (p pieces) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/csv")
	if p.length {
		w.Header().Set("Content-Length", strconv.Itoa(p.size))
	}
	body := pattern(p.size)
	for sent := 0; sent < p.size; sent += p.piece {
		if p.cutAt > 0 && sent >= p.cutAt {
			if !Cut(w) {
				http.Error(w, "busy", http.StatusServiceUnavailable)
			}
			return
		}
		if _, err := w.Write(body[sent:min(sent+p.piece, p.size)]); err != nil {
			return
		}
	}
}

// fetched is an answer as the client of a transport got it.
type fetched struct {
	status  int
	length  int64 // -1 when the answer gave none
	chunked bool
	body    []byte
	err     error // the answer did not end as a whole one does
}

// transport serves one request with h and returns what its client got.
type transport struct {
	name  string
	fetch func(t *testing.T, h http.Handler, method, path string) fetched
}

var transports = []transport{
	{"CGI", fetchCGI},
	{"HTTP", fetchHTTP},
	{"FastCGI", fetchFastCGI},
}

func cgiEnviron(method, path string) []string {
	var environ []string
	for k, v := range fcgitest.Env(method, path, "") {
		environ = append(environ, k+"="+v)
	}
	return environ
}

func fetchCGI(t *testing.T, h http.Handler, method, path string) fetched {
	t.Helper()
	var out bytes.Buffer
	if err := ServeCGI(h, cgiEnviron(method, path), strings.NewReader(""), &out, Options{Log: logline.New(io.Discard)}); err != nil {
		return fetched{err: err}
	}
	return parsedCGI(t, out.Bytes(), nil)
}

// parsedCGI reads an answer in CGI form.
func parsedCGI(t *testing.T, out []byte, err error) fetched {
	t.Helper()
	ans, perr := fcgitest.ParseAnswer(out)
	if perr != nil {
		return fetched{err: perr}
	}
	f := fetched{status: ans.Status, length: -1, body: ans.Body, err: err}
	if cl := ans.Header.Get("Content-Length"); cl != "" {
		f.length, _ = strconv.ParseInt(cl, 10, 64)
	}
	return f
}

func fetchHTTP(t *testing.T, h http.Handler, method, path string) fetched {
	t.Helper()
	addr := startHTTP(t, h)
	req, _ := http.NewRequest(method, "http://"+addr+path, nil)
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		return fetched{err: err}
	}
	defer resp.Body.Close()
	f := fetched{status: resp.StatusCode, length: resp.ContentLength, chunked: len(resp.TransferEncoding) > 0}
	f.body, f.err = io.ReadAll(resp.Body)
	return f
}

// startHTTP serves h over HTTP on a free loopback port until the test
// ends, and returns its address.
func startHTTP(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, ln, h, Options{Log: logline.New(io.Discard)}) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

func fetchFastCGI(t *testing.T, h http.Handler, method, path string) fetched {
	t.Helper()
	c := fcgitest.MustDial(t, startFastCGI(t, h))
	out, _, err := c.Request(1, false, fcgitest.Env(method, path, ""), nil, 0)
	return parsedCGI(t, out, err)
}

// TestAnswersStreamPastTheBound serves answers short and long over each
// transport: a short one goes whole with its length, as every hit does;
// a long one streams and arrives whole, in chunks to an HTTP/1.1 client;
// HEAD sends no body; and one cut off halfway is seen cut, where the
// transport can show it.
func TestAnswersStreamPastTheBound(t *testing.T) {
	const long = 1 << 20
	tests := []struct {
		name    string
		method  string
		h       pieces
		status  int
		length  int64 // -1 for none
		chunked bool  // over HTTP
		body    []byte
		cut     bool // the client can tell the answer is not whole (not under CGI)
	}{
		{"short", "GET", pieces{size: 1000, piece: 100}, 200, 1000, false, pattern(1000), false},
		{"at the bound", "GET", pieces{size: streamAfter, piece: 4096}, 200, streamAfter, false, pattern(streamAfter), false},
		{"one write past the bound", "GET", pieces{size: streamAfter + 1, piece: streamAfter + 1}, 200, -1, true, pattern(streamAfter + 1), false},
		{"long", "GET", pieces{size: long, piece: 32 << 10}, 200, -1, true, pattern(long), false},
		{"long, in small pieces", "GET", pieces{size: long, piece: 1000}, 200, -1, true, pattern(long), false},
		{"long with its length", "GET", pieces{size: long, piece: 32 << 10, length: true}, 200, long, false, pattern(long), false},
		{"long HEAD", "HEAD", pieces{size: long, piece: 32 << 10}, 200, -1, false, nil, false},
		{"cut before any went", "GET", pieces{size: 1000, piece: 100, cutAt: 500}, 503, int64(len("busy\n")), false, []byte("busy\n"), false},
		{"cut after some went", "GET", pieces{size: long, piece: 32 << 10, cutAt: long / 2}, 200, -1, true, pattern(long / 2), true},
	}
	for _, tr := range transports {
		for _, tc := range tests {
			t.Run(tr.name+"/"+tc.name, func(t *testing.T) {
				f := tr.fetch(t, tc.h, tc.method, "/big/stats.csv")
				if tc.cut && tr.name != "CGI" {
					if f.err == nil {
						t.Errorf("answer cut off after %d bytes arrived as a whole one of %d bytes", tc.h.cutAt, len(f.body))
					}
				} else if f.err != nil {
					t.Fatalf("got %v after %d bytes", f.err, len(f.body))
				}
				if f.status != tc.status || f.length != tc.length {
					t.Errorf("status %d, length %d; want %d, %d", f.status, f.length, tc.status, tc.length)
				}
				if tr.name == "HTTP" && f.chunked != tc.chunked {
					t.Errorf("chunked %v, want %v", f.chunked, tc.chunked)
				}
				if tc.cut {
					if !bytes.HasPrefix(tc.body, f.body) {
						t.Errorf("the %d bytes of the cut answer are not its start", len(f.body))
					}
				} else if !bytes.Equal(f.body, tc.body) {
					t.Errorf("body of %d bytes, want the handler's %d", len(f.body), len(tc.body))
				}
			})
		}
	}
}

// flusher writes a line, flushes, and waits for the test to have read
// it before it writes another.
type flusher struct{ read chan struct{} }

func (f flusher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.WriteString(w, "first\n")
	http.NewResponseController(w).Flush()
	select {
	case <-f.read:
	case <-time.After(10 * time.Second):
	}
	io.WriteString(w, "second\n")
}

// TestFlushSendsTheHead: a handler that flushes has its head and what it
// wrote sent before it returns, over each transport.
func TestFlushSendsTheHead(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T, h http.Handler) io.Reader // the answer as it arrives
	}{
		{"CGI", func(t *testing.T, h http.Handler) io.Reader {
			pr, pw := io.Pipe()
			go func() {
				pw.CloseWithError(ServeCGI(h, cgiEnviron("GET", "/x"), strings.NewReader(""), pw, Options{Log: logline.New(io.Discard)}))
			}()
			return pr
		}},
		{"HTTP", func(t *testing.T, h http.Handler) io.Reader {
			conn, err := net.Dial("tcp", startHTTP(t, h))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			conn.SetDeadline(time.Now().Add(20 * time.Second))
			io.WriteString(conn, "GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n")
			return conn
		}},
		{"FastCGI", func(t *testing.T, h http.Handler) io.Reader {
			c := fcgitest.MustDial(t, startFastCGI(t, h))
			c.Begin(1, false)
			c.Send(fcgitest.Params, 1, fcgitest.Pairs(fcgitest.Env("GET", "/x", "")))
			c.Send(fcgitest.Params, 1, nil)
			c.Send(fcgitest.Stdin, 1, nil)
			pr, pw := io.Pipe()
			go func() {
				for {
					typ, _, content, err := c.Recv()
					if err != nil || typ != fcgitest.Stdout || len(content) == 0 {
						pw.CloseWithError(err)
						return
					}
					pw.Write(content)
				}
			}()
			return pr
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := make(chan struct{})
			r := bufio.NewReader(tc.open(t, flusher{read}))
			var head []string
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("after %q: %v", head, err)
				}
				if line == "first\n" {
					break
				}
				head = append(head, line)
			}
			if !strings.Contains(strings.Join(head, ""), " 200 OK\r\n") {
				t.Errorf("head %q, want a 200", head)
			}
			close(read)
			rest, err := io.ReadAll(r)
			if err != nil || !strings.Contains(string(rest), "second\n") {
				t.Errorf("after the flush: %q, %v; want the second line", rest, err)
			}
		})
	}
}

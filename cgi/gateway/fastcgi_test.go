package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hitcounter/store"
)

// fcgiClient plays the web server's side of a FastCGI connection.
type fcgiClient struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialFastCGI(t testing.TB, addr string) *fcgiClient {
	t.Helper()
	c, err := newFCGIClient(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.conn.Close() })
	return c
}

func newFCGIClient(addr string) (*fcgiClient, error) {
	conn, err := net.Dial("unix", addr)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	return &fcgiClient{conn: conn, r: bufio.NewReader(conn)}, nil
}

func (c *fcgiClient) send(typ uint8, id uint16, content []byte) error {
	h := [8]byte{fcgiVersion, typ}
	binary.BigEndian.PutUint16(h[2:], id)
	binary.BigEndian.PutUint16(h[4:], uint16(len(content)))
	pad := (8 - len(content)%8) % 8 // web servers pad to 8 bytes
	h[6] = byte(pad)
	_, err := c.conn.Write(append(append(h[:], content...), make([]byte, pad)...))
	return err
}

func (c *fcgiClient) recv() (typ uint8, id uint16, content []byte, err error) {
	var h [8]byte
	if _, err := io.ReadFull(c.r, h[:]); err != nil {
		return 0, 0, nil, err
	}
	content = make([]byte, int(binary.BigEndian.Uint16(h[4:]))+int(h[6]))
	if _, err := io.ReadFull(c.r, content); err != nil {
		return 0, 0, nil, err
	}
	return h[1], binary.BigEndian.Uint16(h[2:]), content[:binary.BigEndian.Uint16(h[4:])], nil
}

// begin sends a responder's begin-request record.
func (c *fcgiClient) begin(id uint16, keep bool) error {
	flags := byte(0)
	if keep {
		flags = fcgiKeepConn
	}
	return c.send(fcgiBeginRequest, id, []byte{0, fcgiResponder, flags, 0, 0, 0, 0, 0})
}

// request sends one whole request, its body in stdin records of at most
// chunk bytes, and reads its answer: the CGI-form output and the
// end-request's protocol status.
func (c *fcgiClient) request(id uint16, keep bool, env map[string]string, body []byte, chunk int) ([]byte, uint8, error) {
	if err := c.begin(id, keep); err != nil {
		return nil, 0, err
	}
	for _, rec := range [][]byte{appendPairs(env), nil} {
		if err := c.send(fcgiParams, id, rec); err != nil {
			return nil, 0, err
		}
	}
	for len(body) > 0 {
		n := min(len(body), chunk)
		if err := c.send(fcgiStdin, id, body[:n]); err != nil {
			return nil, 0, err
		}
		body = body[n:]
	}
	if err := c.send(fcgiStdin, id, nil); err != nil {
		return nil, 0, err
	}
	return c.answer(id)
}

func (c *fcgiClient) answer(id uint16) ([]byte, uint8, error) {
	var out []byte
	for {
		typ, rid, content, err := c.recv()
		if err != nil {
			return out, 0, err
		}
		if rid != id {
			return out, 0, fmt.Errorf("record for request %d, want %d", rid, id)
		}
		switch typ {
		case fcgiStdout:
			out = append(out, content...)
		case fcgiEndRequest:
			return out, content[4], nil
		default:
			return out, 0, fmt.Errorf("unexpected record type %d", typ)
		}
	}
}

// fcgiEnv is the environment lighttpd's mod_fastcgi sends for a request
// under /cgi-bin/counter.cgi.
func fcgiEnv(method, pathInfo, query string, extra ...string) map[string]string {
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
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

// startFastCGI serves a's handler as FastCGI on a unix socket until the
// test ends, and returns the socket's path.
func startFastCGI(t testing.TB, a *app) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	closeApp := a.longLived()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveFastCGI(ctx, ln, a.handler(), a.log) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveFastCGI returned %v after cancel, want nil", err)
		}
		closeApp()
	})
	return sock
}

func TestFastCGIServesTheHandler(t *testing.T) {
	a, _ := testApp(t, "demo")
	c := dialFastCGI(t, startFastCGI(t, a))
	// Three requests on one kept connection, with ids as lighttpd and
	// mod_fcgid use them.
	for i, tc := range []struct {
		env    map[string]string
		status int
		ctype  string
	}{
		{fcgiEnv("GET", "/demo.png", "digits=4"), 200, "image/png"},
		{fcgiEnv("GET", "/demo.json", ""), 200, "application/json"},
		{fcgiEnv("GET", "/nope.png", ""), 404, "image/png"},
	} {
		out, status, err := c.request(uint16(i+1), true, tc.env, nil, 0)
		if err != nil || status != fcgiRequestComplete {
			t.Fatalf("request %d: %v, protocol status %d", i, err, status)
		}
		ans := parseCGI(t, out)
		if ans.status != tc.status || ans.header.Get("Content-Type") != tc.ctype {
			t.Errorf("%s: status %d %q, want %d %q", tc.env["PATH_INFO"], ans.status, ans.header.Get("Content-Type"), tc.status, tc.ctype)
		}
		if got := ans.header.Get("Content-Length"); got != fmt.Sprint(len(ans.body)) {
			t.Errorf("%s: Content-Length %s for %d bytes", tc.env["PATH_INFO"], got, len(ans.body))
		}
	}
	if n := a.total(t, "demo"); n != 1 {
		t.Errorf("count %d after one image and one JSON request, want 1", n)
	}
}

// TestFastCGIReadsBodyRecords posts a login form split over many stdin
// records, then a second request on the same connection: the body is read
// whole, and the next request starts where it should.
func TestFastCGIReadsBodyRecords(t *testing.T) {
	a, logs := testApp(t, "demo")
	protect(t, a, "demo", 4)
	c := dialFastCGI(t, startFastCGI(t, a))
	form := []byte("password=wrong+password&next=stats")
	env := fcgiEnv("POST", "/demo/login", "",
		"CONTENT_TYPE", "application/x-www-form-urlencoded",
		"CONTENT_LENGTH", fmt.Sprint(len(form)),
		"HTTP_ORIGIN", "http://127.0.0.1",
		"HTTP_SEC_FETCH_SITE", "same-origin")
	out, _, err := c.request(7, true, env, form, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ans := parseCGI(t, out); ans.status != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401; log %s", ans.status, logs)
	}
	if !strings.Contains(logs.String(), "login failed") {
		t.Errorf("no failed-login line in %q", logs)
	}
	out, _, err = c.request(8, false, fcgiEnv("GET", "/demo.json", ""), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ans := parseCGI(t, out); ans.status != 200 {
		t.Errorf("request after the post: status %d", ans.status)
	}
}

// TestFastCGIProtocol covers what a web server may send besides plain
// requests, and what must close the connection.
func TestFastCGIProtocol(t *testing.T) {
	a, _ := testApp(t, "demo")
	sock := startFastCGI(t, a)

	t.Run("get values", func(t *testing.T) {
		c := dialFastCGI(t, sock)
		q := appendParam(appendParam(nil, "FCGI_MPXS_CONNS", ""), "FCGI_MAX_CONNS", "")
		if err := c.send(fcgiGetValues, 0, q); err != nil {
			t.Fatal(err)
		}
		typ, _, content, err := c.recv()
		if err != nil || typ != fcgiGetValuesResult {
			t.Fatalf("type %d, %v", typ, err)
		}
		got, err := parseParams(content)
		if err != nil || got["FCGI_MPXS_CONNS"] != "0" || got["FCGI_MAX_CONNS"] != fmt.Sprint(maxConns) {
			t.Errorf("values %v, %v", got, err)
		}
	})
	t.Run("no multiplexing", func(t *testing.T) {
		c := dialFastCGI(t, sock)
		c.begin(1, true)
		c.begin(2, true)
		typ, id, content, err := c.recv()
		if err != nil || typ != fcgiEndRequest || id != 2 || content[4] != fcgiCantMpxConn {
			t.Errorf("second request: type %d id %d %v %v, want end-request 2, cannot multiplex", typ, id, content, err)
		}
	})
	t.Run("begin again for the request in hand", func(t *testing.T) {
		c := dialFastCGI(t, sock)
		c.begin(3, true)
		out, status, err := c.request(3, false, fcgiEnv("GET", "/demo.json", ""), nil, 0)
		if err != nil || status != fcgiRequestComplete {
			t.Fatalf("request 3: %v, protocol status %d, want complete", err, status)
		}
		if ans := parseCGI(t, out); ans.status != 200 {
			t.Errorf("request 3: status %d, want 200", ans.status)
		}
	})
	t.Run("unknown role", func(t *testing.T) {
		c := dialFastCGI(t, sock)
		c.send(fcgiBeginRequest, 1, []byte{0, 2, 0, 0, 0, 0, 0, 0}) // authorizer
		typ, _, content, err := c.recv()
		if err != nil || typ != fcgiEndRequest || content[4] != fcgiUnknownRole {
			t.Errorf("authorizer: type %d %v %v, want end-request, unknown role", typ, content, err)
		}
	})
	for _, tc := range []struct {
		name string
		send func(c *fcgiClient)
	}{
		{"bad version", func(c *fcgiClient) { c.conn.Write([]byte{9, 1, 0, 1, 0, 8, 0, 0}) }},
		{"parameters over the bound", func(c *fcgiClient) {
			c.begin(1, true)
			big := appendParam(nil, "HTTP_X", strings.Repeat("x", 60000))
			for range 3 {
				c.send(fcgiParams, 1, big)
			}
		}},
		{"truncated parameter", func(c *fcgiClient) {
			c.begin(1, true)
			c.send(fcgiParams, 1, []byte{5, 200, 'A', 'B'})
			c.send(fcgiParams, 1, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialFastCGI(t, sock)
			tc.send(c)
			// Closed, by a FIN or, with unread data, a reset; not left open.
			_, err := io.ReadAll(c.r)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Errorf("connection left open: %v", err)
			}
		})
	}
	if n := a.total(t, "demo"); n != 0 {
		t.Errorf("count %d, want 0", n)
	}
}

// TestFastCGILongAnswer fetches a stats.json of over 64 KiB, more than one
// record holds, through the responder: it arrives whole, split over
// several stdout records, and is the very answer the handler made.
func TestFastCGILongAnswer(t *testing.T) {
	a, _ := testApp(t, "demo")
	const days = 2500 // about 31 bytes a day in stats.json
	b := store.NewBatcher(a.cfg.DB, store.Options{})
	var wg sync.WaitGroup
	for i := range days {
		wg.Go(func() {
			if _, err := b.Hit("demo", testNow.AddDate(0, 0, -i), ""); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b.Close()
	want := a.serve("GET", "/demo/stats.json")
	if want.Code != 200 || want.Body.Len() <= fcgiMaxContent {
		t.Fatalf("handler: %d with %d bytes, want 200 with over %d", want.Code, want.Body.Len(), fcgiMaxContent)
	}

	c := dialFastCGI(t, startFastCGI(t, a))
	if err := c.begin(1, false); err != nil {
		t.Fatal(err)
	}
	for _, rec := range [][]byte{appendPairs(fcgiEnv("GET", "/demo/stats.json", "")), nil} {
		c.send(fcgiParams, 1, rec)
	}
	c.send(fcgiStdin, 1, nil)
	var out []byte
	records := 0
	for {
		typ, id, content, err := c.recv()
		if err != nil || id != 1 {
			t.Fatalf("record %d: id %d, %v", records, id, err)
		}
		if typ == fcgiEndRequest {
			break
		}
		if typ != fcgiStdout {
			t.Fatalf("record %d: type %d, want stdout", records, typ)
		}
		out = append(out, content...)
		records++
	}
	ans := parseCGI(t, out)
	if ans.status != 200 || !bytes.Equal(ans.body, want.Body.Bytes()) || ans.header.Get("Content-Length") != fmt.Sprint(want.Body.Len()) {
		t.Errorf("through FastCGI: %d, %d bytes (Content-Length %s); want 200 and the handler's %d bytes",
			ans.status, len(ans.body), ans.header.Get("Content-Length"), want.Body.Len())
	}
	// Two or more with output, and the empty one that ends stdout.
	if records < 3 {
		t.Errorf("%d stdout records for %d bytes, want at least 3", records, len(out))
	}
}

// TestFastCGIAbort aborts requests at each stage: each abort is answered
// with an end-request record for its id and no output, the connection
// carries the next request when the web server asked to keep it, and the
// aborted requests count nothing.
func TestFastCGIAbort(t *testing.T) {
	a, _ := testApp(t, "demo")
	sock := startFastCGI(t, a)
	post := fcgiEnv("POST", "/demo/login", "", "CONTENT_TYPE", "application/x-www-form-urlencoded", "CONTENT_LENGTH", "40")
	params := appendPairs(fcgiEnv("GET", "/demo.png", ""))
	for _, tc := range []struct {
		name string
		keep bool
		send func(c *fcgiClient)
	}{
		{"in the parameters", true, func(c *fcgiClient) {
			c.send(fcgiParams, 1, params[:len(params)/2])
		}},
		{"in the body", true, func(c *fcgiClient) {
			c.send(fcgiParams, 1, appendPairs(post))
			c.send(fcgiParams, 1, nil)
			c.send(fcgiStdin, 1, []byte("password="))
		}},
		{"not kept", false, func(c *fcgiClient) {
			c.send(fcgiParams, 1, params[:len(params)/2])
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialFastCGI(t, sock)
			c.begin(1, tc.keep)
			tc.send(c)
			c.send(fcgiAbortRequest, 1, nil)
			typ, id, content, err := c.recv()
			if err != nil || typ != fcgiEndRequest || id != 1 || content[4] != fcgiRequestComplete {
				t.Fatalf("after abort: record type %d id %d %v, %v; want end-request 1, complete", typ, id, content, err)
			}
			if !tc.keep {
				if _, err := c.r.ReadByte(); err != io.EOF {
					t.Errorf("connection not kept: read %v, want EOF", err)
				}
				return
			}
			out, _, err := c.request(2, false, fcgiEnv("GET", "/demo.json", ""), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ans := parseCGI(t, out); ans.status != 200 {
				t.Errorf("request after the abort: status %d, want 200", ans.status)
			}
		})
	}
	if n := a.total(t, "demo"); n != 0 {
		t.Errorf("count %d, want 0", n)
	}
}

// appendPairs encodes env as FastCGI parameters.
func appendPairs(env map[string]string) []byte {
	var p []byte
	for k, v := range env {
		p = appendParam(p, k, v)
	}
	return p
}

func TestParseParams(t *testing.T) {
	long := strings.Repeat("v", 300)
	for _, tc := range []struct {
		name string
		in   []byte
		want map[string]string
		ok   bool
	}{
		{"empty", nil, map[string]string{}, true},
		{"short", []byte{1, 2, 'A', 'x', 'y'}, map[string]string{"A": "xy"}, true},
		{"long value", append([]byte{1, 0x80, 0, 1, 44, 'B'}, long...), map[string]string{"B": long}, true},
		{"value past the end", []byte{1, 9, 'A', 'x'}, nil, false},
		{"huge length", []byte{1, 0xff, 0xff, 0xff, 0xff, 'A'}, nil, false},
		{"cut length", []byte{1, 0x80, 0}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseParams(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok=%v", err, tc.ok)
			}
			if tc.ok && fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFastCGIListenerOnlyOnAListeningSocket(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	lf, err := ln.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	conn, err := net.Dial("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cf, _ := conn.(*net.UnixConn).File()
	defer cf.Close()
	pr, pw, _ := os.Pipe()
	defer pr.Close()
	defer pw.Close()
	for _, tc := range []struct {
		name  string
		stdin io.Reader
		want  bool
	}{
		{"listening socket", lf, true},
		{"connected socket", cf, false},
		{"pipe", pr, false},
		{"not a file", strings.NewReader(""), false},
	} {
		l := fastCGIListener(tc.stdin)
		if (l != nil) != tc.want {
			t.Errorf("%s: listener %v, want %v", tc.name, l != nil, tc.want)
		}
		if l != nil {
			l.Close()
		}
	}
}

// startFastCGIBinary starts the built binary as a web server does, on a
// listening socket as its stdin, with the database at db and the extra
// environment, and returns the socket's path and the process.
func startFastCGIBinary(t *testing.T, db string, extra ...string) (string, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(counterBinary(t))
	cmd.Env = extra
	return startFastCGICommand(t, db, cmd)
}

// startFastCGICommand is startFastCGIBinary with the command that runs
// the binary (under strace, say), and the environment it already has.
func startFastCGICommand(t *testing.T, db string, cmd *exec.Cmd) (string, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "fcgi.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := ln.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append([]string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}, cmd.Env...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = lf, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the child has its own copy, as under a web server
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return sock, cmd, &stderr
}

// fcgiHits sends n image hits from the given number of clients, a
// connection each, and returns how many were answered with 200.
func fcgiHits(t *testing.T, sock string, n, clients int) int64 {
	var answered, next atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				c, err := newFCGIClient(sock)
				if err != nil {
					t.Error(err)
					return
				}
				out, _, err := c.request(1, false, fcgiEnv("GET", "/demo.png", ""), nil, 0)
				c.conn.Close()
				if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
					t.Errorf("hit: %v %.80q", err, out)
					return
				}
				answered.Add(1)
			}
		}()
	}
	wg.Wait()
	return answered.Load()
}

func countIn(t *testing.T, db string) uint64 {
	t.Helper()
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info, err := s.Counter("demo")
	if err != nil {
		t.Fatal(err)
	}
	return info.Count
}

// TestFastCGIKillLosesNoAnsweredHit sends 1,000 hits at 16 at a time to
// the built binary, then kills it with SIGKILL: every hit that was
// answered is in the file.
func TestFastCGIKillLosesNoAnsweredHit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db)
	const hits = 1000
	answered := fcgiHits(t, sock, hits, 16)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("server ended with %v, want killed", err)
	}
	if n := countIn(t, db); n != uint64(answered) || answered != hits {
		t.Errorf("count %d after %d answered hits (of %d sent) and SIGKILL; stderr %s", n, answered, hits, stderr)
	}
}

// TestFastCGISharesTheFile runs a FastCGI server, CGI processes and admin
// commands against one file at once: every hit of both kinds is counted,
// and each admin command finishes within the wait, though the server is
// busy throughout.
func TestFastCGISharesTheFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db)
	env := append(readEnv(t, "../testdata/cgienv/lighttpd-direct.env"), "COUNTER_DB="+db)
	var cgiHits atomic.Int64
	var fcgiAnswered int64
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); fcgiAnswered = fcgiHits(t, sock, 600, 8) }()
	go func() {
		defer wg.Done()
		for range 30 {
			c := exec.Command(counterBinary(t))
			c.Env = env
			out, err := c.Output()
			if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
				t.Errorf("CGI hit: %v %.80q", err, out)
				return
			}
			cgiHits.Add(1)
		}
	}()
	go func() {
		defer wg.Done()
		for range 5 {
			start := time.Now()
			if out, err := adminRun(t, db, "list"); err != nil || !strings.Contains(out, "demo") {
				t.Errorf("list while busy: %v %s", err, out)
			}
			if d := time.Since(start); d > store.DefaultWait {
				t.Errorf("list took %v, over the wait of %v", d, store.DefaultWait)
			}
		}
	}()
	wg.Wait()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("server after SIGTERM: %v; stderr %s", err, stderr)
	}
	if n, want := countIn(t, db), uint64(fcgiAnswered+cgiHits.Load()); n != want {
		t.Errorf("count %d, want %d FastCGI + %d CGI hits", n, fcgiAnswered, cgiHits.Load())
	}
}

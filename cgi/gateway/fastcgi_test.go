package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
)

// echo is the handler the transport tests serve: it answers with what it
// was given, so a test sees what the transport made of a request. A query
// of size=N asks for a body of N bytes instead.
type echo struct {
	calls atomic.Int64
}

func (e *echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.calls.Add(1)
	if n, err := strconv.Atoi(r.URL.Query().Get("size")); err == nil {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(bytes.Repeat([]byte("0123456789abcdef"), n/16))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "%s %s mount=%s query=%s body=%s", r.Method, r.URL.Path, Mount(r), r.URL.RawQuery, body)
}

// startFastCGI serves h as FastCGI on a unix socket until the test ends,
// and returns the socket's path.
func startFastCGI(t testing.TB, h http.Handler) string {
	t.Helper()
	sock, _ := fastCGIUntil(t, h)
	return sock
}

// TestFastCGIServesTheHandler sends requests on one kept connection, with
// ids as lighttpd and mod_fcgid use them, one of them a body split over
// many stdin records: the handler sees each as CGI would show it, and
// each answer comes back whole, with its length.
func TestFastCGIServesTheHandler(t *testing.T) {
	h := new(echo)
	c := fcgitest.MustDial(t, startFastCGI(t, h))
	form := "password=wrong+password&next=stats"
	for i, tc := range []struct {
		env  map[string]string
		body string
		want string
	}{
		{fcgitest.Env("GET", "/demo.png", "digits=4"), "", "GET /demo.png mount=/cgi-bin/counter.cgi query=digits=4 body="},
		{fcgitest.Env("POST", "/demo/login", "", "CONTENT_TYPE", "application/x-www-form-urlencoded", "CONTENT_LENGTH", fmt.Sprint(len(form))),
			form, "POST /demo/login mount=/cgi-bin/counter.cgi query= body=" + form},
		{fcgitest.Env("GET", "/demo.json", ""), "", "GET /demo.json mount=/cgi-bin/counter.cgi query= body="},
	} {
		out, status, err := c.Request(uint16(i+1), true, tc.env, []byte(tc.body), 3)
		if err != nil || status != fcgitest.RequestComplete {
			t.Fatalf("request %d: %v, protocol status %d", i, err, status)
		}
		ans := fcgitest.MustParse(t, out)
		if ans.Status != 200 || string(ans.Body) != tc.want {
			t.Errorf("request %d: %d %q, want 200 %q", i, ans.Status, ans.Body, tc.want)
		}
		if got := ans.Header.Get("Content-Length"); got != fmt.Sprint(len(ans.Body)) {
			t.Errorf("request %d: Content-Length %s for %d bytes", i, got, len(ans.Body))
		}
	}
}

// TestFastCGIProtocol covers what a web server may send besides plain
// requests, and what must close the connection.
func TestFastCGIProtocol(t *testing.T) {
	h := new(echo)
	sock := startFastCGI(t, h)

	t.Run("get values", func(t *testing.T) {
		c := fcgitest.MustDial(t, sock)
		q := fcgitest.AppendPair(fcgitest.AppendPair(nil, "FCGI_MPXS_CONNS", ""), "FCGI_MAX_CONNS", "")
		if err := c.Send(fcgitest.GetValues, 0, q); err != nil {
			t.Fatal(err)
		}
		typ, _, content, err := c.Recv()
		if err != nil || typ != fcgitest.GetValuesResult {
			t.Fatalf("type %d, %v", typ, err)
		}
		got, err := parseParams(content)
		if err != nil || got["FCGI_MPXS_CONNS"] != "0" || got["FCGI_MAX_CONNS"] != "128" {
			t.Errorf("values %v, %v; want no multiplexing and 128 connections", got, err)
		}
	})
	t.Run("no multiplexing", func(t *testing.T) {
		c := fcgitest.MustDial(t, sock)
		c.Begin(1, true)
		c.Begin(2, true)
		typ, id, content, err := c.Recv()
		if err != nil || typ != fcgitest.EndRequest || id != 2 || content[4] != fcgitest.CantMpxConn {
			t.Errorf("second request: type %d id %d %v %v, want end-request 2, cannot multiplex", typ, id, content, err)
		}
	})
	t.Run("begin again for the request in hand", func(t *testing.T) {
		c := fcgitest.MustDial(t, sock)
		c.Begin(3, true)
		out, status, err := c.Request(3, false, fcgitest.Env("GET", "/demo.json", ""), nil, 0)
		if err != nil || status != fcgitest.RequestComplete {
			t.Fatalf("request 3: %v, protocol status %d, want complete", err, status)
		}
		if ans := fcgitest.MustParse(t, out); ans.Status != 200 {
			t.Errorf("request 3: status %d, want 200", ans.Status)
		}
	})
	t.Run("unknown role", func(t *testing.T) {
		c := fcgitest.MustDial(t, sock)
		c.Send(fcgitest.BeginRequest, 1, []byte{0, 2, 0, 0, 0, 0, 0, 0}) // authorizer
		typ, _, content, err := c.Recv()
		if err != nil || typ != fcgitest.EndRequest || content[4] != fcgitest.UnknownRole {
			t.Errorf("authorizer: type %d %v %v, want end-request, unknown role", typ, content, err)
		}
	})
	calls := h.calls.Load()
	for _, tc := range []struct {
		name string
		send func(c *fcgitest.Client)
	}{
		{"bad version", func(c *fcgitest.Client) { c.Conn.Write([]byte{9, 1, 0, 1, 0, 8, 0, 0}) }},
		{"parameters over the bound", func(c *fcgitest.Client) {
			c.Begin(1, true)
			big := fcgitest.AppendPair(nil, "HTTP_X", strings.Repeat("x", 60000))
			for range 3 {
				c.Send(fcgitest.Params, 1, big)
			}
		}},
		{"truncated parameter", func(c *fcgitest.Client) {
			c.Begin(1, true)
			c.Send(fcgitest.Params, 1, []byte{5, 200, 'A', 'B'})
			c.Send(fcgitest.Params, 1, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fcgitest.MustDial(t, sock)
			tc.send(c)
			// Closed, by a FIN or, with unread data, a reset; not left open.
			_, err := io.ReadAll(c.R)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Errorf("connection left open: %v", err)
			}
		})
	}
	if n := h.calls.Load() - calls; n != 0 {
		t.Errorf("the handler served %d of the refused requests, want none", n)
	}
}

// TestFastCGILongAnswer fetches an answer of over 64 KiB, more than one
// record holds: it streams, and arrives whole, without a length, split
// over several stdout records.
func TestFastCGILongAnswer(t *testing.T) {
	const size = 200_000
	c := fcgitest.MustDial(t, startFastCGI(t, new(echo)))
	if err := c.Begin(1, false); err != nil {
		t.Fatal(err)
	}
	for _, rec := range [][]byte{fcgitest.Pairs(fcgitest.Env("GET", "/demo/stats.json", "size="+fmt.Sprint(size))), nil} {
		c.Send(fcgitest.Params, 1, rec)
	}
	c.Send(fcgitest.Stdin, 1, nil)
	var out []byte
	records := 0
	for {
		typ, id, content, err := c.Recv()
		if err != nil || id != 1 {
			t.Fatalf("record %d: id %d, %v", records, id, err)
		}
		if typ == fcgitest.EndRequest {
			break
		}
		if typ != fcgitest.Stdout {
			t.Fatalf("record %d: type %d, want stdout", records, typ)
		}
		out = append(out, content...)
		records++
	}
	ans := fcgitest.MustParse(t, out)
	want := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	if ans.Status != 200 || !bytes.Equal(ans.Body, want) || ans.Header.Get("Content-Length") != "" {
		t.Errorf("through FastCGI: %d, %d bytes (Content-Length %q); want 200 and the handler's %d bytes, no length",
			ans.Status, len(ans.Body), ans.Header.Get("Content-Length"), len(want))
	}
	// Four or more with output, and the empty one that ends stdout.
	if records < 5 {
		t.Errorf("%d stdout records for %d bytes, want at least 5", records, len(out))
	}
}

// TestFastCGIAbort aborts requests at each stage: each abort is answered
// with an end-request record for its id and no output, the connection
// carries the next request when the web server asked to keep it.
func TestFastCGIAbort(t *testing.T) {
	h := new(echo)
	sock := startFastCGI(t, h)
	post := fcgitest.Env("POST", "/demo/login", "", "CONTENT_TYPE", "application/x-www-form-urlencoded", "CONTENT_LENGTH", "40")
	params := fcgitest.Pairs(fcgitest.Env("GET", "/demo.png", ""))
	for _, tc := range []struct {
		name string
		keep bool
		send func(c *fcgitest.Client)
	}{
		{"in the parameters", true, func(c *fcgitest.Client) {
			c.Send(fcgitest.Params, 1, params[:len(params)/2])
		}},
		{"in the body", true, func(c *fcgitest.Client) {
			c.Send(fcgitest.Params, 1, fcgitest.Pairs(post))
			c.Send(fcgitest.Params, 1, nil)
			c.Send(fcgitest.Stdin, 1, []byte("password="))
		}},
		{"not kept", false, func(c *fcgitest.Client) {
			c.Send(fcgitest.Params, 1, params[:len(params)/2])
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fcgitest.MustDial(t, sock)
			c.Begin(1, tc.keep)
			tc.send(c)
			c.Send(fcgitest.AbortRequest, 1, nil)
			typ, id, content, err := c.Recv()
			if err != nil || typ != fcgitest.EndRequest || id != 1 || content[4] != fcgitest.RequestComplete {
				t.Fatalf("after abort: record type %d id %d %v, %v; want end-request 1, complete", typ, id, content, err)
			}
			if !tc.keep {
				if _, err := c.R.ReadByte(); err != io.EOF {
					t.Errorf("connection not kept: read %v, want EOF", err)
				}
				return
			}
			out, _, err := c.Request(2, false, fcgitest.Env("GET", "/demo.json", ""), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ans := fcgitest.MustParse(t, out); ans.Status != 200 {
				t.Errorf("request after the abort: status %d, want 200", ans.Status)
			}
		})
	}
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
		l := FastCGIListener(tc.stdin)
		if (l != nil) != tc.want {
			t.Errorf("%s: listener %v, want %v", tc.name, l != nil, tc.want)
		}
		if l != nil {
			l.Close()
		}
	}
}

// TestFastCGIBodySlotFreedWhenTheBodyIsIn sends more requests with a body
// at once than there are body slots, each whole, to a handler that reads
// the body and then takes its time, as a login held back for a refused
// client does: a slot is kept only while a body is on its way, so none is
// refused.
func TestFastCGIBodySlotFreedWhenTheBodyIsIn(t *testing.T) {
	const requests = 96 // over the 64 body slots
	release := make(chan struct{})
	var read atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		read.Add(1)
		<-release
		fmt.Fprint(w, "done")
	})
	sock := startFastCGI(t, h)
	form := []byte("password=x")
	env := fcgitest.Env("POST", "/demo/login", "", "CONTENT_TYPE", "application/x-www-form-urlencoded", "CONTENT_LENGTH", fmt.Sprint(len(form)))
	statuses := make(chan int, requests)
	for range requests {
		go func() {
			c, err := fcgitest.Dial(sock)
			if err != nil {
				statuses <- 0
				return
			}
			defer c.Conn.Close()
			out, _, err := c.Request(1, false, env, form, len(form))
			ans, perr := fcgitest.ParseAnswer(out)
			if err != nil || perr != nil {
				statuses <- 0
				return
			}
			statuses <- ans.Status
		}()
	}
	// Every handler has its body before any answers.
	for deadline := time.Now().Add(10 * time.Second); read.Load() < requests; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d handlers got their body while the others were in hand", read.Load(), requests)
		}
	}
	close(release)
	got := map[int]int{}
	for range requests {
		got[<-statuses]++
	}
	if got[200] != requests {
		t.Errorf("got %v, want %d × 200", got, requests)
	}
}

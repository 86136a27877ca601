package cgiwire

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestPeerAsTheGateway: the gateway gives a handler REMOTE_ADDR through
// net.JoinHostPort and net.SplitHostPort; Peer must give the same.
func TestPeerAsTheGateway(t *testing.T) {
	for _, addr := range []string{"192.0.2.1", "2001:db8::1", "::ffff:192.0.2.1", "", "x", "fe80::1%eth0",
		"[2001:db8::1]", "a]b", "[x", "1.2.3.4:5", "[::1]:80"} {
		for _, port := range []string{"", "80", "x"} {
			env := Env{"REMOTE_ADDR": addr, "REMOTE_PORT": port}
			p, _ := strconv.Atoi(port)
			ra := net.JoinHostPort(addr, strconv.Itoa(p))
			want := ra
			if h, _, err := net.SplitHostPort(ra); err == nil {
				want = h
			}
			if got := env.Peer(); got != want {
				t.Errorf("REMOTE_ADDR %q REMOTE_PORT %q: got %q, want %q", addr, port, got, want)
			}
		}
	}
}

// TestParseVersionAsNetHTTP compares ParseVersion with net/http's.
func TestParseVersionAsNetHTTP(t *testing.T) {
	for _, v := range []string{"HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTP/1", "HTTP/1.10", "http/1.1", "HTTP/a.b", "HTTP/+.1", "", "INCLUDED"} {
		M, m, ok := ParseVersion(v)
		wM, wm, wok := http.ParseHTTPVersion(v)
		if M != wM || m != wm || ok != wok {
			t.Errorf("%q: got %d %d %v, want %d %d %v", v, M, m, ok, wM, wm, wok)
		}
	}
}

// TestHeaderAsTheGateway: the gateway makes a header of every HTTP_
// variable, as net/http/cgi does; Header reads the same value back.
func TestHeaderAsTheGateway(t *testing.T) {
	env := Env{"HTTP_USER_AGENT": "UA", "HTTP_X_FORWARDED_FOR": "192.0.2.1, 192.0.2.2", "HTTP_COOKIE": "a=b",
		"HTTP_SEC_CH_UA": `"x"`, "HTTP_HOST": "example.org", "CONTENT_TYPE": "text/plain", "HTTP_EMPTY": ""}
	h := http.Header{}
	h.Set("Content-Type", env["CONTENT_TYPE"])
	for k, v := range env {
		if name, ok := strings.CutPrefix(k, "HTTP_"); ok && k != "HTTP_HOST" {
			h.Add(strings.ReplaceAll(name, "_", "-"), v)
		}
	}
	for _, name := range []string{"User-Agent", "X-Forwarded-For", "Cookie", "Sec-Ch-Ua", "Host", "Content-Type", "Empty", "Referer", "From"} {
		got, ok := env.Header(name)
		_, want := h[name]
		if got != h.Get(name) || ok != want {
			t.Errorf("%s: got %q %v, want %q %v", name, got, ok, h.Get(name), want)
		}
	}
}

// countingWriter counts the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestWriteAnswerInPieces: a body given in pieces is written as the same
// body given whole; one at most answerCopied long goes out in one write
// with the headers, a longer one in a write of the headers and one of
// each piece that is not empty, not copied.
func TestWriteAnswerInPieces(t *testing.T) {
	fields := []Field{{"Content-Type", "image/gif"}, {"Content-Length", "0"}}
	piece := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	for _, tc := range []struct {
		name   string
		pieces [][]byte
		writes int
	}{
		{"none", nil, 1},
		{"one small", [][]byte{piece(100, 'a')}, 1},
		{"small pieces", [][]byte{piece(100, 'a'), nil, piece(200, 'b')}, 1},
		{"at the bound", [][]byte{piece(answerCopied-1, 'a'), piece(1, 'b')}, 1},
		{"past the bound", [][]byte{piece(answerCopied, 'a'), {}, piece(1, 'b')}, 3},
		{"chunks of a GIF", [][]byte{piece(4<<10, 'a'), piece(8<<10, 'b'), piece(16<<10, 'c'), piece(5, 'd')}, 5},
	} {
		var whole, got bytes.Buffer
		if err := WriteAnswer(&whole, 200, fields, bytes.Join(tc.pieces, nil)); err != nil {
			t.Fatal(err)
		}
		w := &countingWriter{}
		if err := WriteAnswer(w, 200, fields, tc.pieces...); err != nil {
			t.Fatal(err)
		}
		got.Write(w.Bytes())
		if !bytes.Equal(got.Bytes(), whole.Bytes()) {
			t.Errorf("%s: %d bytes in pieces, %d whole, not the same", tc.name, got.Len(), whole.Len())
		}
		if w.writes != tc.writes {
			t.Errorf("%s: %d writes, want %d", tc.name, w.writes, tc.writes)
		}
	}
}

// TestWriteAnswerAsTheGateway: an answer in the form the gateway writes
// a held one (response.writeWhole): the Status line with net/http's text,
// the headers as http.Header.Write writes them.
func TestWriteAnswerAsTheGateway(t *testing.T) {
	for _, status := range []int{200, 400, 404, 500, 503, 507} {
		fields := []Field{{"X-Counter-Error", " bad\r\nfg \t"}, {"Content-Type", "image/png"}, {"Content-Length", "3"}, {"Cache-Control", "no-cache"}}
		var got bytes.Buffer
		if err := WriteAnswer(&got, status, fields, []byte("abc")); err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		for _, f := range fields {
			h.Set(f.Key, f.Value)
		}
		var want bytes.Buffer
		fmt.Fprintf(&want, "Status: %d %s\r\n", status, http.StatusText(status))
		h.Write(&want)
		want.WriteString("\r\nabc")
		if got.String() != want.String() {
			t.Errorf("status %d: got %q, want %q", status, got.String(), want.String())
		}
	}
}

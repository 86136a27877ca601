package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/gateway"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/store"
)

// exportPages and exportDays make a site whose page-days take five
// pieces of pageDaysPiece, whose exports are longer than the 64 KiB a
// transport holds back, and whose pages are more than its statistics
// list, with days before the last 30.
const (
	exportPages = 110
	exportDays  = 40
)

// exportPage is page i of the export site, as a visitor may write it: the
// keys come out with commas that CSV quotes, letters beyond ASCII, a kept
// query with "&" and escapes that JSON escapes, the longest key, and an
// index page.
func exportPage(i int) string {
	switch i % 6 {
	case 1:
		return fmt.Sprintf("/a,b/%03d", i)
	case 2:
		return fmt.Sprintf("/caf%%C3%%A9/%03d", i)
	case 3:
		return fmt.Sprintf("/q/%03d?q=<x>&p=1&utm=no", i)
	case 4:
		return "/" + strings.Repeat("long-", 49) + fmt.Sprintf("%03d", i)
	case 5:
		return fmt.Sprintf("/x/%03d/index.html", i)
	}
	return fmt.Sprintf("/posts/%03d", i)
}

// exportApp is an App of mode on a file holding the site "blog" with
// exportDays days of exportPages pages, each day with every column, and
// three referring hosts, made by one import.
func exportApp(t *testing.T, mode Mode) (*App, *bytes.Buffer) {
	t.Helper()
	a, logs := siteApp(t, mode, "keep-query=p,q")
	imp := counter.Imported{Name: "blog", Referrers: []counter.Referrer{{Host: "news.example", Hits: 9}, {Host: "a.example", Hits: 3}, {Host: "b&c.example", Hits: 1}}}
	for d := range exportDays {
		date := testNow.AddDate(0, 0, d-exportDays).Format(time.DateOnly)
		tally := counter.Tally{Views: uint64(1000 + d), Visitors: uint64(d), GitHub: uint64(d % 3)}
		for i, k := range counter.NotCountedKinds {
			tally.NotCounted[k] = uint64((d + i) % 5)
		}
		imp.Days = append(imp.Days, counter.Day{Date: date, Tally: tally})
		for p := range exportPages {
			imp.PageDays = append(imp.PageDays, counter.PageDay{Date: date, Page: exportPage(p), Views: uint64(p%7 + d%3 + 1), Visitors: uint64(p % 3)})
		}
	}
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Import([]counter.Imported{imp}, store.ImportOptions{Now: testNow}); err != nil {
		t.Fatal(err)
	}
	return a, logs
}

// talliedSince is the one field of an export that a new file's clock
// sets.
var talliedSince = regexp.MustCompile(`"tallied_since":"[^"]*"`)

// exportHash is the SHA-256 of an export, its tallied_since written as
// "T".
func exportHash(body []byte) string {
	sum := sha256.Sum256(talliedSince.ReplaceAll(body, []byte(`"tallied_since":"T"`)))
	return hex.EncodeToString(sum[:])
}

// TestExportBytesAsBefore pins the exports of a site of five pieces to
// the hashes of what the code before streaming (06a4b93, which built them
// whole) answered for the same file: streaming changed no byte.
func TestExportBytesAsBefore(t *testing.T) {
	a, _ := exportApp(t, OneRequest)
	for _, tc := range []struct {
		target string
		size   int
		hash   string
	}{
		{"/blog/stats.csv", 327469, "f38fa27c7e197bdbd0bf5d9c7cae04ebac5899bc12bed8b184f5a3faa37d0b57"},
		{"/blog/stats.json", 469942, "709402d63444b41dad296c635e89fb6bdec0cdc0e7a7ac14ae0b4d2b924b0a17"},
	} {
		w := serve(a, "GET", tc.target)
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", tc.target, w.Code, w.Body)
		}
		if got := exportHash(w.Body.Bytes()); w.Body.Len() != tc.size || got != tc.hash {
			f := filepath.Join(t.TempDir(), filepath.Base(tc.target))
			os.WriteFile(f, w.Body.Bytes(), 0o644)
			t.Errorf("%s: %d bytes of hash %s, want %d of %s; written to %s", tc.target, w.Body.Len(), got, tc.size, tc.hash, f)
		}
	}
}

// TestExportsStreamWhole fetches the exports of the site over each
// transport: each arrives whole, the bytes the handler writes, without a
// length since it streams; HEAD answers the same head and no body.
func TestExportsStreamWhole(t *testing.T) {
	a, _ := exportApp(t, OneRequest)
	sock, base := startFastCGI(t, a), startServer(t, a)
	for _, target := range []string{"/blog/stats.csv", "/blog/stats.json"} {
		want := serve(a, "GET", target)
		if want.Code != 200 || want.Body.Len() < 2*64<<10 {
			t.Fatalf("%s: %d, %d bytes: not long enough to stream", target, want.Code, want.Body.Len())
		}
		for _, method := range []string{"GET", "HEAD"} {
			t.Run(method+" "+target+" over CGI", func(t *testing.T) {
				var out bytes.Buffer
				environ := cgiEnviron(method, target)
				if err := gateway.ServeCGI(a.Handler(), environ, strings.NewReader(""), &out, gateway.Options{Log: a.log, Refuse: a.Refuse}); err != nil {
					t.Fatal(err)
				}
				ans := fcgitest.MustParse(t, out.Bytes())
				checkStreamed(t, method, ans.Status, ans.Header, ans.Body, want)
			})
			t.Run(method+" "+target+" over FastCGI", func(t *testing.T) {
				c := fcgitest.MustDial(t, sock)
				out, status, err := c.Request(1, false, fcgitest.Env(method, target, ""), nil, 0)
				if err != nil || status != fcgitest.RequestComplete {
					t.Fatalf("%v, protocol status %d", err, status)
				}
				ans := fcgitest.MustParse(t, out)
				checkStreamed(t, method, ans.Status, ans.Header, ans.Body, want)
			})
			t.Run(method+" "+target+" over HTTP", func(t *testing.T) {
				req, _ := http.NewRequest(method, base+target, nil)
				resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("after %d bytes: %v", len(body), err)
				}
				if method == "GET" && (len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked") {
					t.Errorf("Transfer-Encoding %q, want chunked", resp.TransferEncoding)
				}
				checkStreamed(t, method, resp.StatusCode, resp.Header, body, want)
			})
		}
	}
}

// checkStreamed fails t unless an answer to method is the export in want,
// streamed: the same status and headers without a length, and the same
// body, or none for HEAD.
func checkStreamed(t *testing.T, method string, status int, h http.Header, body []byte, want *httptest.ResponseRecorder) {
	t.Helper()
	if status != want.Code {
		t.Errorf("status %d, want %d", status, want.Code)
	}
	for _, k := range []string{"Content-Type", "Content-Disposition", "Cache-Control", "X-Content-Type-Options"} {
		if h.Get(k) != want.Header().Get(k) {
			t.Errorf("%s %q, want %q", k, h.Get(k), want.Header().Get(k))
		}
	}
	if cl := h.Get("Content-Length"); cl != "" {
		t.Errorf("Content-Length %s on a streamed answer", cl)
	}
	if method == "HEAD" {
		if len(body) != 0 {
			t.Errorf("HEAD: %d bytes of body", len(body))
		}
	} else if !bytes.Equal(body, want.Body.Bytes()) {
		t.Errorf("body of %d bytes differs from the handler's %d", len(body), want.Body.Len())
	}
}

// cgiEnviron is the CGI environment of a request for target.
func cgiEnviron(method, target string) []string {
	var environ []string
	for k, v := range fcgitest.Env(method, target, "") {
		environ = append(environ, k+"="+v)
	}
	return environ
}

// hookWriter calls fn before each write, as a client does something
// while it reads an answer.
type hookWriter struct {
	w      io.Writer
	fn     func() error
	writes int
	err    error
}

func (h *hookWriter) Write(p []byte) (int, error) {
	h.writes++
	if err := h.fn(); err != nil && h.err == nil {
		h.err = err
	}
	return h.w.Write(p)
}

// TestExportHoldsNoLockWhileWriting serves an export as CGI to a client
// that, each time a piece reaches it, opens the file to write, as a hit
// does, with a wait of 50 ms: the export never holds the file across a
// write to the client, so every open gets it at once.
func TestExportHoldsNoLockWhileWriting(t *testing.T) {
	a, _ := exportApp(t, OneRequest)
	for _, target := range []string{"/blog/stats.csv", "/blog/stats.json"} {
		want := serve(a, "GET", target).Body.Bytes()
		var out bytes.Buffer
		w := &hookWriter{w: &out, fn: func() error {
			db, err := store.Open(a.cfg.DB, store.Options{Wait: 50 * time.Millisecond})
			if err == nil {
				err = db.Close()
			}
			return err
		}}
		if err := gateway.ServeCGI(a.Handler(), cgiEnviron("GET", target), strings.NewReader(""), w, gateway.Options{Log: a.log, Refuse: a.Refuse}); err != nil {
			t.Fatal(err)
		}
		if w.err != nil {
			t.Errorf("%s: a writer's open while the export was written: %v", target, w.err)
		}
		if w.writes < 3 {
			t.Errorf("%s: %d writes to the client, want the export in pieces", target, w.writes)
		}
		if ans := fcgitest.MustParse(t, out.Bytes()); !bytes.Equal(ans.Body, want) {
			t.Errorf("%s: %d bytes, want the whole export's %d", target, len(ans.Body), len(want))
		}
	}
}

// TestExportCutWhenTheFileFailsHalfway deletes the site once its export
// has begun to go out: the next piece cannot be read, and the answer is
// cut short, not ended as if whole, with one line in the log. A failure
// before anything went out is a plain refusal.
func TestExportCutWhenTheFileFailsHalfway(t *testing.T) {
	for _, target := range []string{"/blog/stats.csv", "/blog/stats.json"} {
		a, logs := exportApp(t, OneRequest)
		want := serve(a, "GET", target).Body.Bytes()
		var out bytes.Buffer
		deleted := false
		w := &hookWriter{w: &out, fn: func() error {
			if deleted {
				return nil
			}
			deleted = true
			db, err := store.Open(a.cfg.DB, store.Options{})
			if err != nil {
				return err
			}
			defer db.Close()
			return db.Delete("blog")
		}}
		if err := gateway.ServeCGI(a.Handler(), cgiEnviron("GET", target), strings.NewReader(""), w, gateway.Options{Log: a.log, Refuse: a.Refuse}); err != nil || w.err != nil {
			t.Fatalf("%s: %v, %v", target, err, w.err)
		}
		ans := fcgitest.MustParse(t, out.Bytes())
		if ans.Status != 200 || len(ans.Body) >= len(want) || !bytes.HasPrefix(want, ans.Body) {
			t.Errorf("%s: %d with %d bytes, want 200 with the start of the export's %d", target, ans.Status, len(ans.Body), len(want))
		}
		if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "export cut short") {
			t.Errorf("%s: log %q, want one line of the cut", target, logs.String())
		}
		// Now the file has no site: refused before a byte went out.
		if w := serve(a, "GET", target); w.Code != http.StatusNotFound {
			t.Errorf("%s after the delete: %d, want 404", target, w.Code)
		}
	}
}

// TestPanicWhileStreamingCutsTheAnswer: a handler that panics after part
// of a long answer went out has it cut, not ended with an error page as if
// whole; one that panics with a short answer held back is a clean 500.
func TestPanicWhileStreamingCutsTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		written int
		status  int
		body    string // "" for the written bytes, cut
	}{
		{"short answer held", 10, 500, "internal error\n"},
		{"long answer streaming", 200 << 10, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			a := newApp(config.Config{}, logline.New(&logs))
			h := a.recoverPanics(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Write(bytes.Repeat([]byte("x"), tc.written))
				panic("secret detail")
			}))
			var out bytes.Buffer
			if err := gateway.ServeCGI(h, cgiEnviron("GET", "/x/stats.csv"), strings.NewReader(""), &out, gateway.Options{Log: a.log}); err != nil {
				t.Fatal(err)
			}
			ans := fcgitest.MustParse(t, out.Bytes())
			want := tc.body
			if want == "" {
				want = strings.Repeat("x", tc.written)
			}
			if ans.Status != tc.status || string(ans.Body) != want {
				t.Errorf("status %d, %d bytes %.40q; want %d, %d bytes %.40q", ans.Status, len(ans.Body), ans.Body, tc.status, len(want), want)
			}
			if n := strings.Count(logs.String(), "\n"); n != 1 || strings.Contains(logs.String(), "secret") {
				t.Errorf("log %q, want one line without the panic's text", logs.String())
			}
		})
	}
}

package web

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"hitcounter/cgi/imagehit"
	"hitcounter/store"
)

// panicking is a hitter with a bug: it panics where the hit would be
// written.
type panicking struct{ imagehit.Hitter }

func (panicking) Visit(store.Visit) (store.Counted, error) { panic("a bug in the hit") }

// TestPanicInAHitIs500: a panic in the web code of a hit answers 500 (an
// image), never 503 "damaged"; the log has one line with where it
// happened; the database is byte for byte as it was, and the next hit
// counts.
func TestPanicInAHitIs500(t *testing.T) {
	a, logs := testApp(t, "page")
	noCosts(a)
	before, err := os.ReadFile(a.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	real := a.proc.Hits
	a.proc.Hits = panicking{a.proc.Hits}
	w := serve(a, "GET", "/page.png")
	if w.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", w.Code)
	}
	checkImage(t, w, "image/png")
	line := logs.String()
	if strings.Count(line, "\n") != 1 || !strings.Contains(line, "panic") || !strings.Contains(line, "panic_test.go:") ||
		!strings.Contains(line, "hit.go:") || strings.Contains(line, "damaged") {
		t.Errorf("log %q, want one line with the panic and its stack, not damage", line)
	}
	after, err := os.ReadFile(a.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("the database changed")
	}
	a.proc.Hits = real
	if w := serve(a, "GET", "/page.png"); w.Code != http.StatusOK || total(t, a, "page") != 1 {
		t.Errorf("next hit: status %d, total %d; want 200 and 1", w.Code, total(t, a, "page"))
	}
}

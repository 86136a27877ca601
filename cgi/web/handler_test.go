package web

import (
	"bytes"
	"image"
	"image/gif"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/counter/draw"
	"hitcounter/store"
)

var testNow = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// testApp returns an app on a fresh database holding the named counters,
// and the buffer its log goes to.
func testApp(tb testing.TB, names ...string) (*App, *bytes.Buffer) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "counter.db")
	db, err := store.Open(path, store.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	// Every hit of these tests counts: they send a browser's User-Agent
	// (serve) and their counters have no reload window. The counting
	// rules have tests of their own (rules_test.go).
	everyHit := counter.DefaultSettings()
	everyHit.Reload = 0
	for _, n := range names {
		if err := db.CreateWith(n, 0, testNow, everyHit); err != nil {
			tb.Fatal(err)
		}
	}
	db.Close()
	var logs bytes.Buffer
	cfg := config.Config{DB: path, Wait: 200 * time.Millisecond, RunDir: tb.TempDir(), BcryptSlots: 1, Now: func() time.Time { return testNow }}
	return newApp(cfg, logline.New(&logs)), &logs
}

// serve sends a request as a browser, with more headers as name, value
// pairs, and returns the answer.
func serve(a *App, method, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	r.Header.Set("User-Agent", firefoxUA)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	return w
}

func total(tb testing.TB, a *App, name string) uint64 {
	tb.Helper()
	g, err := a.proc.Server().Glance(name, imagehit.SiteHit{})
	if err != nil {
		tb.Fatal(err)
	}
	return g.Shown
}

// checkImage fails unless w is a complete, uncacheable image of type ct
// that the standard decoder reads.
func checkImage(t *testing.T, w *httptest.ResponseRecorder, ct string) {
	t.Helper()
	h := w.Header()
	if got := h.Get("Content-Type"); got != ct {
		t.Fatalf("Content-Type %q, want %q", got, ct)
	}
	wantHeaders := map[string]string{
		"Cache-Control":          "no-cache, no-store, must-revalidate, max-age=0",
		"Pragma":                 "no-cache",
		"Expires":                "0",
		"X-Content-Type-Options": "nosniff",
		"Content-Length":         itoa(w.Body.Len()),
	}
	for k, v := range wantHeaders {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	var err error
	switch ct {
	case "image/png":
		_, err = png.Decode(bytes.NewReader(w.Body.Bytes()))
	case "image/gif":
		_, err = gif.Decode(bytes.NewReader(w.Body.Bytes()))
	case "image/svg+xml":
		if !strings.HasPrefix(w.Body.String(), "<svg ") {
			t.Errorf("SVG body starts %.30q", w.Body.String())
		}
	}
	if err != nil {
		t.Errorf("body does not decode as %s: %v", ct, err)
	}
}

func TestImageHitsCount(t *testing.T) {
	a, _ := testApp(t, "page")
	tests := []struct {
		target, ct string
	}{
		{"/page.png", "image/png"},
		{"/page.gif", "image/gif"},
		{"/page.svg", "image/svg+xml"},
		{"/page.png?digits=8&fg=0f0&bg=000&size=40&font=bold&v=2", "image/png"},
	}
	for i, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			w := serve(a, "GET", tc.target, "Referer", "https://blog.example/post")
			if w.Code != http.StatusOK {
				t.Fatalf("status %d, want 200", w.Code)
			}
			checkImage(t, w, tc.ct)
			if got := total(t, a, "page"); got != uint64(i+1) {
				t.Errorf("total %d after %d hits", got, i+1)
			}
		})
	}
	db, _ := store.Open(a.cfg.DB, store.Options{ReadOnly: true})
	defer db.Close()
	refs, _ := db.Referrers("page")
	days, _ := db.Days("page", testNow)
	if len(refs) != 1 || refs[0].Host != "blog.example" || refs[0].Hits != 4 {
		t.Errorf("referrers %v, want blog.example: 4", refs)
	}
	if len(days) != 1 || days[0].Date != "2026-05-04" || days[0].Views != 4 {
		t.Errorf("days %v, want 2026-05-04: 4", days)
	}
}

func TestImageSizeFollowsStyle(t *testing.T) {
	a, _ := testApp(t, "page")
	w := serve(a, "GET", "/page.png?digits=9&size=30")
	img, err := png.Decode(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := counter.ParseStyle("digits=9&size=30")
	d, _ := draw.NewDrawing(counter.Digits(1, 9), s)
	if wd, ht := d.Size(); img.Bounds() != image.Rect(0, 0, wd, ht) {
		t.Errorf("image %v, want %dx%d", img.Bounds(), wd, ht)
	}
}

func TestRequestsThatCountNothing(t *testing.T) {
	tests := []struct {
		name, method, target string
		status               int
		ct                   string
		reason               string // in X-Counter-Error; "" for none
		body                 string // expected body, for JSON
	}{
		{"json", "GET", "/page.json", 200, "application/json", "", `{"name":"page","count":0,"show":"views","views":0,"visitors":0,"today":"2026-05-04","today_views":0,"today_visitors":0}` + "\n"},
		{"json in capitals", "GET", "/page.JSON", 200, "application/json", "", ""},
		{"shields", "GET", "/page.shields.json", 200, "application/json", "", `{"schemaVersion":1,"label":"views","message":"0","color":"blue"}` + "\n"},
		{"shields unknown", "GET", "/nope.shields.json", 200, "application/json", "404 no such counter", `{"schemaVersion":1,"label":"views","message":"no such counter","color":"lightgrey","isError":true}` + "\n"},
		{"count=0", "GET", "/page.png?count=0", 200, "image/png", "", ""},
		{"count=0 svg", "GET", "/page.svg?digits=3&count=0", 200, "image/svg+xml", "", ""},
		{"bad count", "GET", "/page.png?count=no", 400, "image/png", "count: must be 0 (show without counting) or 1", ""},
		{"count twice", "GET", "/page.png?count=0&count=1", 400, "image/png", "count: given more than once", ""},
		{"theme=auto on a PNG", "GET", "/page.png?theme=auto", 400, "image/png", "theme: auto needs .svg: only an SVG can follow the viewer's dark mode", ""},
		{"badge without counting", "GET", "/page.svg?style=badge&count=0", 200, "image/svg+xml", "", ""},
		{"label too long", "GET", "/page.png?style=badge&label=" + strings.Repeat("a", 33), 400, "image/png", "label: longer than 32 characters", ""},
		{"label without a glyph", "GET", "/page.png?style=badge&label=%E2%9C%93ok", 400, "image/png", `label: character 1 ('✓') has no glyph: use letters, digits and punctuation of Latin-1`, ""},
		{"head", "HEAD", "/page.png", 200, "image/png", "", ""},
		{"unknown png", "GET", "/nope.png", 404, "image/png", "no such counter", ""},
		{"unknown svg", "GET", "/nope.svg", 404, "image/svg+xml", "no such counter", ""},
		{"unknown json", "GET", "/nope.json", 404, "application/json", "", `{"error":"no such counter"}` + "\n"},
		{"bad size", "GET", "/page.png?size=1e309", 400, "image/png", "size: must be a whole number from 8 to 128 (1024 with a digit set)", ""},
		{"bad colour gif", "GET", "/page.gif?fg=12345", 400, "image/gif", "fg: must be a CSS colour name (red, rebeccapurple, transparent) or hex RGB, RGBA, RRGGBB or RRGGBBAA", ""},
		{"semicolon", "GET", "/page.png?digits=3;size=9", 400, "image/png", "query: ';' is not a separator, use '&'", ""},
		{"bad name", "GET", "/-page.png", 400, "image/png", "invalid counter name", ""},
		{"long name", "GET", "/" + strings.Repeat("a", 65) + ".png", 400, "image/png", "invalid counter name", ""},
		{"bad name json", "GET", "/a%20b.json", 400, "application/json", "", `{"error":"invalid counter name"}` + "\n"},
		{"unknown type", "GET", "/page.txt", 404, "text/plain; charset=utf-8", "", ""},
		{"post", "POST", "/page.png", 405, "text/plain; charset=utf-8", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, logs := testApp(t, "page")
			before, _ := os.ReadFile(a.cfg.DB)
			w := serve(a, tc.method, tc.target)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if strings.HasPrefix(tc.ct, "image/") && tc.method == "GET" {
				checkImage(t, w, tc.ct)
			} else if got := w.Header().Get("Content-Type"); got != tc.ct {
				t.Errorf("Content-Type %q, want %q", got, tc.ct)
			}
			if got := w.Header().Get(errorHeader); got != tc.reason {
				t.Errorf("%s: %q, want %q", errorHeader, got, tc.reason)
			}
			if cors := w.Header().Get("Access-Control-Allow-Origin"); strings.HasSuffix(strings.ToLower(tc.target), ".json") != (cors == "*") {
				t.Errorf("Access-Control-Allow-Origin %q", cors)
			}
			if tc.body != "" && w.Body.String() != tc.body {
				t.Errorf("body %q, want %q", w.Body.String(), tc.body)
			}
			if tc.method == "HEAD" && (w.Body.Len() != 0 || w.Header().Get("Content-Length") == "") {
				t.Errorf("HEAD: body of %d bytes, Content-Length %q", w.Body.Len(), w.Header().Get("Content-Length"))
			}
			after, _ := os.ReadFile(a.cfg.DB)
			if !bytes.Equal(before, after) {
				t.Errorf("the database file changed")
			}
			if tc.status >= 400 && tc.status != 405 && strings.Count(logs.String(), "\n") != 1 {
				t.Errorf("log %q, want one line", logs.String())
			}
		})
	}
}

// TestBusyDatabaseStillAnswersWithAnImage holds the database lock longer
// than the wait: the hit is not counted, the visitor gets a placeholder in
// time, and the owner one log line.
func TestBusyDatabaseStillAnswersWithAnImage(t *testing.T) {
	a, logs := testApp(t, "page")
	holder, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w := serve(a, "GET", "/page.png")
	took := time.Since(start)
	holder.Close()
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", w.Code)
	}
	checkImage(t, w, "image/png")
	if took > a.cfg.Wait+time.Second {
		t.Errorf("answered after %v, wait is %v", took, a.cfg.Wait)
	}
	if got := total(t, a, "page"); got != 0 {
		t.Errorf("total %d, want 0", got)
	}
	if !strings.Contains(logs.String(), `"page" not counted`) || strings.Count(logs.String(), "\n") != 1 {
		t.Errorf("log %q, want one line saying the hit was not counted", logs.String())
	}
}

// TestLockLinkedToDatabaseIsNamed makes counter.db.lock a link to the
// database: the hit is refused with the dashes, and the one log line says
// what is wrong instead of "database busy".
func TestLockLinkedToDatabaseIsNamed(t *testing.T) {
	a, logs := testApp(t, "page")
	os.Remove(store.LockPath(a.cfg.DB))
	if err := os.Symlink(a.cfg.DB, store.LockPath(a.cfg.DB)); err != nil {
		t.Fatal(err)
	}
	w := serve(a, "GET", "/page.png")
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", w.Code)
	}
	checkImage(t, w, "image/png")
	log := logs.String()
	if !strings.Contains(log, "is the database itself") || strings.Contains(log, "busy") || strings.Count(log, "\n") != 1 {
		t.Errorf("log %q, want one line saying the lock file is the database", log)
	}
}

func TestMissingDatabaseIsNotCreated(t *testing.T) {
	a, logs := testApp(t)
	a.cfg.DB = filepath.Join(t.TempDir(), "typo.db")
	w := serve(a, "GET", "/page.png")
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503: an owner's mistake is not the visitor's 404", w.Code)
	}
	checkImage(t, w, "image/png")
	if img, err := png.Decode(w.Body); err != nil || img.Bounds().Dx() < 10 {
		t.Errorf("got %v (%v), want the counter drawn as dashes", img.Bounds(), err)
	}
	if _, err := os.Stat(a.cfg.DB); err == nil {
		t.Errorf("a hit created %s", a.cfg.DB)
	}
	if !strings.Contains(logs.String(), "typo.db") {
		t.Errorf("log %q does not name the file", logs.String())
	}
}

func TestPanicIsA500(t *testing.T) {
	for _, target := range []string{"/x.png", "/x.json", "/"} {
		var logs bytes.Buffer
		a := newApp(config.Config{}, logline.New(&logs))
		h := a.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret detail") }))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		if w.Code != 500 || strings.Contains(w.Body.String(), "secret") {
			t.Errorf("%s: status %d body %q, want 500 without the panic's text", target, w.Code, w.Body.String())
		}
		if target == "/x.png" {
			checkImage(t, w, "image/png")
		}
		if strings.Count(logs.String(), "\n") != 1 {
			t.Errorf("%s: log %q, want one line", target, logs.String())
		}
	}
}

// TestUncleanPathsAreRefused: ServeMux would redirect these, and under CGI
// the redirect would leave the script; an <img> must get an image.
func TestUncleanPathsAreRefused(t *testing.T) {
	for _, target := range []string{"//page.png", "/./page.png", "/x/../page.png", "/page.png/", "//page.json"} {
		a, _ := testApp(t, "page")
		w := serve(a, "GET", target)
		if w.Code != http.StatusBadRequest || w.Header().Get("Location") != "" {
			t.Errorf("%s: status %d, Location %q; want 400 and no redirect", target, w.Code, w.Header().Get("Location"))
		}
		if strings.HasSuffix(target, ".png") {
			checkImage(t, w, "image/png")
		}
		if total(t, a, "page") != 0 {
			t.Errorf("%s counted a hit", target)
		}
	}
}

func TestIndexShowsCounters(t *testing.T) {
	a, _ := testApp(t, "demo")
	a.demo, a.openToAll = true, true // the demo's own file: open to httptest's 192.0.2.1
	w := serve(a, "GET", "/")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `<img src="demo.png"`) {
		t.Errorf("index: %d %.200q", w.Code, w.Body.String())
	}
	if got := total(t, a, "demo"); got != 0 {
		t.Errorf("the index counted %d hits itself", got)
	}
}

// A badge says what it counts: views, or visitors where the counter shows
// them, unless its label says otherwise; colours come by CSS names.
func TestBadgeLabelFollowsTheCounter(t *testing.T) {
	a, _ := testApp(t, "page")
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := counter.DefaultSettings()
	s.Show = counter.ShowVisitors
	if err := db.CreateWith("people", 0, testNow, s); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, tc := range []struct{ target, title string }{
		{"/page.svg?style=badge&fg=white&color=green", "<title>views: 1</title>"},
		{"/people.SVG?style=badge&bg=transparent", "<title>visitors: 1</title>"},
		{"/people.svg?style=badge&label=readers&count=0", "<title>readers: 1</title>"},
	} {
		w := serve(a, "GET", tc.target, "User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")
		if w.Code != 200 || !strings.Contains(w.Body.String(), tc.title) {
			t.Errorf("%s: %d, want %s in %.200s", tc.target, w.Code, tc.title, w.Body)
		}
	}
	if w := serve(a, "GET", "/page.png?style=badge&fg=red&bg=transparent"); w.Code != 200 {
		t.Errorf("a badge with named colours: %d %s", w.Code, w.Header().Get(errorHeader))
	}
}

// A counter whose statistics have a password tells any page what its
// image shows, and nothing of its day.
func TestJSONOfAProtectedCounter(t *testing.T) {
	a, _ := testApp(t, "page")
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetPasswordHash("page", []byte("$2a$10$abcdefghijklmnopqrstuu5Q0XGqgR5Ar7s0zK9zcWq8bY0LuI1m")); err != nil {
		t.Fatal(err)
	}
	db.Close()
	w := serve(a, "GET", "/page.json")
	if want := `{"name":"page","count":0,"show":"views"}` + "\n"; w.Code != 200 || w.Body.String() != want {
		t.Errorf("%d %s; want %s", w.Code, w.Body, want)
	}
	if w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Error("no CORS header")
	}
}

// longLived turns a CGI App into a long-lived one with the same
// configuration, as New(..., LongLived) makes it; call the function it
// returns once every request is answered.
func (a *App) longLived() (closeApp func()) {
	a.proc.Close()
	b := New(*a.cfg, a.log, LongLived)
	a.proc, a.cfg, a.low, a.pacer = b.proc, b.cfg, b.low, b.pacer
	return func() {
		b.Close()
		// Back to a CGI App, which the test's own clean-up closes.
		c := newApp(*a.cfg, a.log)
		a.proc, a.cfg, a.low, a.pacer = c.proc, c.cfg, nil, nil
	}
}

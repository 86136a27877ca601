package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/counter/draw"
	"hitcounter/store"
)

// siteApp is an App of mode on a fresh database holding the site "blog"
// for blog.example, with no reload window and the settings given.
func siteApp(t *testing.T, mode Mode, settings ...string) (*App, *bytes.Buffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "counter.db")
	db, err := store.Open(path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := counter.NewSite("blog.example,www.blog.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range append([]string{"reload=off"}, settings...) {
		if err := s.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateWith("blog", 0, testNow, s); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var logs bytes.Buffer
	cfg := config.Config{DB: path, Wait: time.Second, RunDir: t.TempDir(), BcryptSlots: 1, Now: func() time.Time { return testNow }}
	a := New(cfg, logline.New(&logs), mode)
	t.Cleanup(a.Close)
	return a, &logs
}

// pngOf is the default PNG of n.
func pngOf(t *testing.T, n uint64) []byte {
	t.Helper()
	d, err := draw.NewDrawing(counter.Digits(n, counter.DefaultStyle().Digits), counter.DefaultStyle())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.Encode(&b, counter.PNG); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pagesNow(t *testing.T, a *App) map[string]counter.Page {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.Pages("blog", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]counter.Page{}
	for _, p := range list {
		m[p.Page] = p
	}
	return m
}

func TestSiteCountsThePageThatShowedIt(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		a, logs := siteApp(t, mode)
		hits := []struct {
			target, referer string
			shown           uint64
		}{
			{"/blog.png", "https://blog.example/posts/hello/", 1},
			{"/blog.png", "https://www.blog.example/posts/hello/index.html?utm_source=feed#top", 2},
			{"/blog.png", "https://blog.example/about", 1},
			{"/blog.png?show=site", "https://blog.example/about/", 4},
			// The tag names the page; the Referer, the site's host.
			{"/blog.png?page=%2Fposts%2Fhello%2F", "https://blog.example/", 3},
			{"/blog.png?page=/posts/new/&digits=6", "https://blog.example/", 1},
			// A page on another host counts nothing and makes no page: the
			// image shows the site's total.
			{"/blog.png", "https://elsewhere.example/posts/hello/", 6},
			// No Referer, no page: the site's total, counted.
			{"/blog.png", "", 7},
			// No Referer, a page that exists: counted on it.
			{"/blog.png?page=/about", "", 3},
			// No Referer, a page that does not: the site alone.
			{"/blog.png?page=/nowhere", "", 9},
		}
		for i, h := range hits {
			var hdr []string
			if h.referer != "" {
				hdr = []string{"Referer", h.referer}
			}
			w := serve(a, "GET", h.target, hdr...)
			if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), pngOf(t, h.shown)) {
				t.Errorf("hit %d (%s from %q): status %d, not the image of %d", i, h.target, h.referer, w.Code, h.shown)
			}
		}
		pages := pagesNow(t, a)
		want := map[string]uint64{"/posts/hello": 3, "/about": 3, "/posts/new": 1}
		if len(pages) != len(want) {
			t.Errorf("pages %v; want %v", pages, want)
		}
		for p, n := range want {
			if pages[p].Views != n {
				t.Errorf("%s: %d views; want %d", p, pages[p].Views, n)
			}
		}
		if n := total(t, a, "blog"); n != 9 {
			t.Errorf("site total %d; want 9", n)
		}
		for _, bad := range []string{"/blog.png?show=all", "/blog.png?page=%zz"} {
			if w := serve(a, "GET", bad); w.Code != 400 {
				t.Errorf("%s: status %d; want 400", bad, w.Code)
			}
		}
		if strings.Contains(logs.String(), "elsewhere") {
			t.Errorf("a foreign host in the log: %s", logs)
		}
	})
}

// The site's image shows its total when the site says so, and a tag can
// ask for the page's all the same.
func TestSiteImageSetting(t *testing.T) {
	a, _ := siteApp(t, OneRequest, "image=site")
	ref := []string{"Referer", "https://blog.example/a"}
	serve(a, "GET", "/blog.png", ref...)
	serve(a, "GET", "/blog.png", "Referer", "https://blog.example/b")
	if w := serve(a, "GET", "/blog.png", ref...); !bytes.Equal(w.Body.Bytes(), pngOf(t, 3)) {
		t.Error("image=site: not the site's total")
	}
	if w := serve(a, "GET", "/blog.png?show=page", ref...); !bytes.Equal(w.Body.Bytes(), pngOf(t, 3)) {
		t.Error("show=page: not the page's count")
	}
}

// Past the cap, new pages count under one row, said once a day in the log;
// from foreign hosts, 3,000 made-up pages make none and grow the file by
// no more than the day's tally.
func TestSiteBoundsWhatHitsCanMake(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		a, logs := siteApp(t, mode, "max-pages=20")
		inUse := func() int64 {
			r, err := store.Check(a.cfg.DB, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return r.InUse
		}
		for i := range 50 {
			serve(a, "GET", "/blog.png", "Referer", fmt.Sprintf("https://blog.example/made-up/%d", i))
		}
		pages := pagesNow(t, a)
		if len(pages) != 21 || pages[counter.OtherPages].Views != 30 {
			t.Errorf("%d rows, %d views under %s; want 21, 30", len(pages), pages[counter.OtherPages].Views, counter.OtherPages)
		}
		if n := strings.Count(logs.String(), "max-pages"); n != 1 {
			t.Errorf("%d log lines on the cap; want 1:\n%s", n, logs)
		}
		before := inUse()
		for i := range 3000 {
			serve(a, "GET", fmt.Sprintf("/blog.png?page=/spam/%d", i), "Referer", fmt.Sprintf("https://spam%d.example/p/%d?x=%d", i, i, i))
		}
		if grew := inUse() - before; grew > 16<<10 {
			t.Errorf("3,000 foreign hits grew the file by %d bytes", grew)
		}
		if got := len(pagesNow(t, a)); got != 21 {
			t.Errorf("%d rows after the foreign hits; want 21", got)
		}
	})
}

func TestSiteStatsPage(t *testing.T) {
	a, _ := siteApp(t, OneRequest)
	for i, p := range []string{"/", "/posts/hello/", "/posts/hello/", "/caf%C3%A9/", "/a&b/<x>"} {
		w := serve(a, "GET", "/blog.png", "Referer", "https://blog.example"+p)
		if w.Code != 200 {
			t.Fatalf("hit %d: %d", i, w.Code)
		}
	}
	w := serve(a, "GET", "/blog/stats")
	body := w.Body.String()
	for _, want := range []string{
		`<a href="stats?page=%2Fposts%2Fhello">/posts/hello</a></td><td class="n">2</td>`,
		`<a href="stats?page=%2Fcaf%C3%A9">/café</a>`,
		`<b>last 30 days</b>`, `<a href="stats?period=all">all time</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("stats page lacks %s", want)
		}
	}
	if strings.Contains(body, "<x>") {
		t.Error("a page's path is not escaped")
	}
	for _, period := range []string{"7", "90", "all"} {
		if w := serve(a, "GET", "/blog/stats?period="+period); w.Code != 200 || !strings.Contains(w.Body.String(), "/posts/hello") {
			t.Errorf("period %s: %d", period, w.Code)
		}
	}
	w = serve(a, "GET", "/blog/stats?page="+url.QueryEscape("/posts/hello"))
	if w.Code != 200 || !strings.Contains(w.Body.String(), "blog /posts/hello") || !strings.Contains(w.Body.String(), `<svg class="chart"`) {
		t.Errorf("page view: %d %s", w.Code, w.Body)
	}
	for _, bad := range []string{"/blog/stats?period=5", "/blog/stats?page=/nowhere", "/blog/stats?page=..%2F"} {
		if w := serve(a, "GET", bad); w.Code < 400 {
			t.Errorf("%s: %d", bad, w.Code)
		}
	}
}

func TestSiteExportsCarryAPageColumn(t *testing.T) {
	a, _ := siteApp(t, OneRequest)
	serve(a, "GET", "/blog.png", "Referer", "https://blog.example/a,b")
	serve(a, "GET", "/blog.png", "Referer", "https://blog.example/c")
	serve(a, "GET", "/blog.png", "Referer", "https://blog.example/c")
	csv := serve(a, "GET", "/blog/stats.csv").Body.String()
	day := testNow.Format(time.DateOnly)
	want := "date,page,views,visitors,github,reloads,bots,prefetches,owner,foreign,ignored\r\n" +
		day + ",,3,1,0,0,0,0,0,0,0\r\n" +
		day + `,"/a,b",1,1,,,,,,,` + "\r\n" +
		day + ",/c,2,1,,,,,,,\r\n"
	if csv != want {
		t.Errorf("CSV:\n%q\nwant:\n%q", csv, want)
	}
	json := serve(a, "GET", "/blog/stats.json").Body.String()
	if !strings.Contains(json, `"page_days":[{"date":"`+day+`","page":"/a,b","views":1,"visitors":1},{"date":"`+day+`","page":"/c","views":2,"visitors":1}]}`) {
		t.Errorf("JSON: %s", json)
	}
}

// A protected site's pages are neither read nor shown without a session:
// a stranger cannot make the Pi add them up.
func TestSiteStatsBehindTheLogin(t *testing.T) {
	a, _ := siteApp(t, OneRequest)
	serve(a, "GET", "/blog.png", "Referer", "https://blog.example/secret-post/")
	setHash(t, a, "blog", []byte("$2a$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234"))
	for _, target := range []string{"/blog/stats", "/blog/stats?period=all", "/blog/stats?page=/secret-post"} {
		w := serve(a, "GET", target)
		if body := w.Body.String(); w.Code != 200 || !strings.Contains(body, `action="login"`) || strings.Contains(body, "secret-post") {
			t.Errorf("%s without a session: %d\n%s", target, w.Code, body)
		}
	}
	for _, target := range []string{"/blog/stats.csv", "/blog/stats.json"} {
		if w := serve(a, "GET", target); w.Code != 401 && w.Code != 403 || strings.Contains(w.Body.String(), "secret-post") {
			t.Errorf("%s without a session: %d %s", target, w.Code, w.Body)
		}
	}
}

// An index page shows each post's count with count=0 and page=, and a
// script reads it as JSON: neither counts, and both show the page's
// figure where the site's image shows pages. One visitor read two pages.
func TestSiteShownWithoutCounting(t *testing.T) {
	eachMode(t, func(t *testing.T, mode Mode) {
		a, _ := siteApp(t, mode)
		for range 3 {
			serve(a, "GET", "/blog.png", "Referer", "https://blog.example/posts/hello/")
		}
		serve(a, "GET", "/blog.png", "Referer", "https://blog.example/about")
		for _, tc := range []struct {
			target, referer string
			shown           uint64
		}{
			{"/blog.png?count=0&page=/posts/hello/", "https://blog.example/", 3},
			{"/blog.png?count=0&page=/posts/hello/index.html", "", 3},
			{"/blog.png?count=0&page=/about&show=site", "https://blog.example/", 4},
			{"/blog.png?count=0&page=/nowhere", "https://blog.example/", 4},
			{"/blog.png?count=0", "https://blog.example/about", 1},
			{"/blog.png?count=0", "", 4},
		} {
			var hdr []string
			if tc.referer != "" {
				hdr = []string{"Referer", tc.referer}
			}
			w := serve(a, "GET", tc.target, hdr...)
			if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), pngOf(t, tc.shown)) {
				t.Errorf("%s from %q: status %d, not the image of %d", tc.target, tc.referer, w.Code, tc.shown)
			}
		}
		w := serve(a, "GET", "/blog.json?page=/posts/hello/")
		want := `{"name":"blog","count":3,"show":"views","views":4,"visitors":1,"today":"2026-05-04","today_views":4,"today_visitors":1,` +
			`"page":"/posts/hello","page_views":3,"page_visitors":1,"page_today_views":3,"page_today_visitors":1,` +
			`"pages":[{"page":"/posts/hello/","views":3,"visitors":1}]}` + "\n"
		if w.Code != 200 || w.Body.String() != want {
			t.Errorf("JSON: %d %s; want %s", w.Code, w.Body, want)
		}
		if n := total(t, a, "blog"); n != 4 {
			t.Errorf("site total %d after reading; want 4", n)
		}
		if p := pagesNow(t, a)["/posts/hello"]; p.Views != 3 {
			t.Errorf("page %+v after reading; want 3 views", p)
		}
	})
}

// TestSitePagesTableAsBefore pins the table of pages of a site whose
// page-days take five pieces, for each period, to the hashes of what the
// code before it was read in pieces (06a4b93, one read of the file)
// showed for the same file.
func TestSitePagesTableAsBefore(t *testing.T) {
	a, _ := exportApp(t, OneRequest)
	a.cfg.NoCosts = true
	for _, tc := range []struct{ query, hash string }{
		{"", "7bbffab4fcd5fccc5b4c714352ff3c0045b15baa74f20a1c0ae6aabc04fad6fd"},
		{"?period=7", "c3f4011019c9e4f0a6cc95da7e27c0d3937306f2b7862db2ee29fb39277eaa9a"},
		{"?period=90", "48585a4f81e1345f73684474c6df93917f513190d25b866adf61eedc6e6d6c00"},
		{"?period=all", "7f161ef1edd790ac8500bd83be6f0e1e5f6b4a836f24b6ee9b85c28f02cb68ae"},
	} {
		w := serve(a, "GET", "/blog/stats"+tc.query)
		body := w.Body.String()
		start, end := strings.Index(body, "<h2>Pages</h2>"), strings.Index(body, "<h2>Hits not counted</h2>")
		if w.Code != 200 || start < 0 || end < start {
			t.Fatalf("%s: %d, no table of pages in\n%s", tc.query, w.Code, body)
		}
		table := body[start:end]
		if sum := sha256.Sum256([]byte(table)); hex.EncodeToString(sum[:]) != tc.hash {
			t.Errorf("stats%s: table of pages of hash %x, want %s:\n%.3000s", tc.query, sum, tc.hash, table)
		}
	}
}

// A day over keeps its most viewed pages; the stats of a period show the
// others' views under (other pages), and say why. All time, every page
// keeps its views, and there is no such row.
func TestSiteStatsShowADaysTrimmedPages(t *testing.T) {
	a, _ := siteApp(t, OneRequest)
	for i := range store.KeptPagesADay + 3 {
		if w := serve(a, "GET", "/blog.png", "Referer", fmt.Sprintf("https://blog.example/p/%03d", i)); w.Code != 200 {
			t.Fatalf("hit %d: %d", i, w.Code)
		}
	}
	a.cfg.Now = func() time.Time { return testNow.AddDate(0, 0, 1) }
	serve(a, "GET", "/blog.png", "Referer", "https://blog.example/p/000") // folds the day before
	week := serve(a, "GET", "/blog/stats?period=7").Body.String()
	want := fmt.Sprintf(`(other pages)<small>new pages past the site’s max-pages, and each past day’s pages past its %d most viewed</small></td><td class="n">3</td>`, store.KeptPagesADay)
	if !strings.Contains(week, want) {
		t.Errorf("the week's pages lack %s", want)
	}
	all := serve(a, "GET", "/blog/stats?period=all").Body.String()
	if strings.Contains(all, "(other pages)") || !strings.Contains(all, "and 103 more pages with 103 views") {
		t.Errorf("all time: an (other pages) row, or not every page:\n%s", all)
	}
	if p := pagesNow(t, a); len(p) != store.KeptPagesADay+3 || p["/p/202"].Views != 1 {
		t.Errorf("%d pages all time, /p/202 %+v; want %d, with its view", len(p), p["/p/202"], store.KeptPagesADay+3)
	}
}

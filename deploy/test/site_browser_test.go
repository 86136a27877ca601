package test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hitcounter/counter"
	"hitcounter/store"
)

// chromeUA is the User-Agent of a desktop Chrome. Headless Chromium says
// "HeadlessChrome" in its own, which the counter's crawler list judges a
// bot, so the browser of TestBrowserSite sends this one instead.
const chromeUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// siteTag is the one tag every page of the test site carries, as the
// README's "A whole site with one tag" tells owners to paste it.
const siteTag = `<img src="/cgi-bin/counter.cgi/site.png" alt="views">`

// sitePage is a page of the test site: the file under htdocs, the address
// the browser opens, the row the counter must make of it, and how many
// times the browser opens it.
type sitePage struct {
	file, open, key string
	times           int
}

// testSite returns the 50 pages of the test site. The addresses opened
// name the files themselves (Apache's test config has no mod_dir), so
// "/posts/07/index.html" must count as "/posts/07".
func testSite() []sitePage {
	pages := []sitePage{
		{"index.html", "/index.html", "/", 2},
		// On disk as UTF-8: the servers decode the path Chromium sends.
		{"café/index.html", "/caf%C3%A9/index.html", "/café", 2},
		{"about.html", "/about.html?utm_source=x", "/about.html", 3},
	}
	for i := 1; len(pages) < 25; i++ {
		f := fmt.Sprintf("posts/%02d/index.html", i)
		pages = append(pages, sitePage{f, "/" + f, fmt.Sprintf("/posts/%02d", i), 1 + 2*btoi(i%5 == 0)})
	}
	for i := 1; len(pages) < 50; i++ {
		f := fmt.Sprintf("page-%02d.html", i)
		pages = append(pages, sitePage{f, "/" + f, "/" + f, 1 + btoi(i%4 == 0)})
	}
	return pages
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestBrowserSite counts a static site of 50 pages that share one tag, in
// Debian's Chromium, under each server set-up: every page opened a known
// number of times, one with a tracking query, one with a non-ASCII path.
// Then the database must hold one row per page with its exact count, the
// site the sum, and the site's statistics page must list them all. One
// browser serves the four set-ups.
func TestBrowserSite(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	pages := testSite()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	// Headless Chromium names itself "HeadlessChrome", a bot to the
	// counter: the override makes it a desktop Chrome to the servers.
	setUserAgent(t, ctx, chromeUA)
	shots := t.TempDir()
	eachStaticServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		writeSite(t, srv, pages)
		admin(t, cgiDir, dbPath, "create", "site", "-site", "-hosts", "127.0.0.1,localhost", "reload=off")
		openPages(t, ctx, srv.URL, pages)
		checkSiteRows(t, dbPath, "site", pages)
		checkSiteStats(t, ctx, srv.URL, pages)
		saveScreenshot(t, ctx, shots, "site-stats-"+filepath.Base(t.Name())+".png")
		if t.Failed() {
			if log, err := srv.CGIStderr(); err == nil {
				t.Logf("counter.cgi's stderr:\n%s", log)
			}
		}
	})
}

// htmlType is what lighttpd's test config lacks to serve pages: without
// a mimetype.assign it sends .html as application/octet-stream, which
// Chromium downloads instead of showing. Apache's has Debian's mime.types.
const htmlType = `mimetype.assign = ( ".html" => "text/html; charset=utf-8" )`

// eachStaticServer is eachServer for a check that also serves pages from
// the document root: lighttpd gets htmlType beside its config.
func eachStaticServer(t *testing.T, check func(t *testing.T, srv *webServer, cgiDir, dbPath string)) {
	t.Helper()
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			bin := serverBinary(t, s.pkg, s.bins...)
			for _, f := range s.needs {
				needFile(t, s.modPkg, f)
			}
			cgiDir, dbPath := installCounter(t)
			var srv *webServer
			switch s.name {
			case "lighttpd", "lighttpd-fastcgi":
				srv = startLighttpdWith(t, bin, cgiDir, dbPath, s.name == "lighttpd-fastcgi", nil, htmlType)
			default:
				srv = s.start(t, bin, cgiDir, dbPath)
			}
			check(t, srv, cgiDir, dbPath)
		})
	}
}

// writeSite writes the pages into the document root of srv, the htdocs
// that serverDir made beside its log.
func writeSite(t *testing.T, srv *webServer, pages []sitePage) {
	t.Helper()
	htdocs := filepath.Join(filepath.Dir(srv.CGILog), "htdocs")
	if _, err := os.Stat(filepath.Join(htdocs, "ok.txt")); err != nil {
		t.Fatalf("the document root of %s is not beside its log: %v", srv.Name, err)
	}
	for _, p := range pages {
		path := filepath.Join(htdocs, filepath.FromSlash(p.file))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("<!doctype html>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<h1>%[1]s</h1>\n<p>%s</p>\n", p.key, siteTag)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openPages opens each page its number of times, round by round, waiting
// each time until the counter's image has loaded.
func openPages(t *testing.T, ctx context.Context, baseURL string, pages []sitePage) {
	t.Helper()
	loaded := `document.images.length === 1 && document.images[0].complete && document.images[0].naturalWidth > 1`
	for round := 1; ; round++ {
		opened := 0
		for _, p := range pages {
			if p.times < round {
				continue
			}
			opened++
			resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(baseURL+p.open))
			if err != nil {
				t.Fatalf("open %s: %v", p.open, err)
			}
			if resp.Status != 200 {
				t.Fatalf("open %s: got status %d, want 200", p.open, resp.Status)
			}
			wait, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err = chromedp.Run(wait, chromedp.Poll[bool](loaded, chromedp.WithPollingInterval(5*time.Millisecond)))
			cancel()
			if err != nil {
				t.Fatalf("open %s (time %d): the counter's image did not load: %v", p.open, round, err)
			}
		}
		if opened == 0 {
			return
		}
	}
}

// checkSiteRows reads site name's rows in the database: one row per page
// with the times it was opened, one visitor each, no other row, and the
// site's total their sum.
func checkSiteRows(t *testing.T, dbPath, name string, pages []sitePage) {
	t.Helper()
	db, err := store.Open(dbPath, store.Options{ReadOnly: true, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Pages(name, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]counter.Page{}
	for _, r := range rows {
		got[r.Page] = r
	}
	var sum uint64
	for _, p := range pages {
		sum += uint64(p.times)
		r, ok := got[p.key]
		if !ok {
			t.Errorf("page %s (opened as %s): no row, want %d views", p.key, p.open, p.times)
			continue
		}
		if r.Views != uint64(p.times) || r.Visitors != 1 {
			t.Errorf("page %s: got %d views, %d visitors, want %d, 1", p.key, r.Views, r.Visitors, p.times)
		}
		delete(got, p.key)
	}
	for _, r := range got {
		t.Errorf("row %q (%d views) is no page of the site", r.Page, r.Views)
	}
	if len(rows) != len(pages) {
		t.Errorf("got %d page rows, want %d", len(rows), len(pages))
	}
	info, err := db.Counter(name)
	if err != nil {
		t.Fatal(err)
	}
	if info.Count != sum || info.Visitors != 1 {
		t.Errorf("%s: got %d views, %d visitors, want %d, 1", name, info.Count, info.Visitors, sum)
	}
}

// checkSiteStats opens the site's statistics page in the browser: its
// table of pages must list every page.
func checkSiteStats(t *testing.T, ctx context.Context, baseURL string, pages []sitePage) {
	t.Helper()
	url := baseURL + "/cgi-bin/counter.cgi/site/stats"
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	if resp.Status != 200 {
		t.Fatalf("open %s: got status %d, want 200", url, resp.Status)
	}
	listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("table.pages tbody tr td:first-child")].map(td => td.textContent)`))
	if err != nil {
		t.Fatalf("read the table of pages: %v", err)
	}
	var want []string
	for _, p := range pages {
		want = append(want, p.key)
	}
	slices.Sort(want)
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("the stats page lists %d pages:\n%s\nwant %d:\n%s", len(listed), strings.Join(listed, " "), len(want), strings.Join(want, " "))
	}
}

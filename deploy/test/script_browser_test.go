package test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hitcounter/counter"
	"hitcounter/store"
)

// scriptCSP is the strict policy the test pages are served under, as
// deploy/doc/script.md tells owners: scripts, requests and images of the
// page's own origin alone, no inline code, no eval, no inline styles.
const scriptCSP = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'"

// scriptTags are what a post of the test site carries: the counter's
// image, its script, its elements and busuanzi's spans, as a theme with
// a busuanzi setting writes them.
const scriptTags = `<img src="/cgi-bin/counter.cgi/site.png" alt="views">
<script src="/cgi-bin/counter.cgi/site.js" defer></script>
<p><span id="views" data-counter="views">?</span> reads, <span id="visitors" data-counter="visitors">?</span> readers;
site <span id="site-views" data-counter="site-views">?</span> views, <span id="site-visitors" data-counter="site-visitors">?</span> visitors</p>
<p><span id="busuanzi_container_site_pv">site pv <span id="busuanzi_value_site_pv"></span></span>
<span id="busuanzi_container_site_uv">site uv <span id="busuanzi_value_site_uv"></span></span>
<span id="busuanzi_container_page_pv">page pv <span id="busuanzi_value_page_pv"></span></span></p>
<p><span id="vercount_container_page_pv">vercount page pv <span id="vercount_value_page_pv"></span></span>
<span id="vercount_container_site_uv">vercount site uv <span id="vercount_value_site_uv"></span></span>
soxft site pv <span id="busuanzi_site_pv"></span> page uv <span id="busuanzi_page_uv"></span></p>
`

// scriptTwice is a post whose theme loads the script for its busuanzi
// setting and whose owner pasted the snippet too: the script twice, no
// image.
const scriptTwice = `<script src="/cgi-bin/counter.cgi/site.js" async></script>
<p><span id="views" data-counter="views">?</span> reads, page pv <span id="busuanzi_value_page_pv"></span></p>
<script src="/cgi-bin/counter.cgi/site.js" defer></script>
`

// scriptIndex is the index page: the script alone, each post's count.
const scriptIndex = `<script src="/cgi-bin/counter.cgi/site.js" defer></script>
<ul><li><a href="/posts/one.html">one</a> <span id="one" data-counter-page="/posts/one.html">?</span></li>
<li><a href="/posts/two.html">two</a> <span id="two" data-counter-page="/posts/two.html">?</span> read by <span id="two-visitors" data-counter-page="/posts/two.html" data-counter="visitors">?</span></li></ul>
<ol id="top" data-counter="top" data-counter-top="3"></ol>
`

// scriptNoReferrer is a post whose page sends no Referer, as blogs that
// show images of hosts that refuse hotlinking have it (busuanzi's script
// asks for the Referer back on its own request).
const scriptNoReferrer = `<meta name="referrer" content="no-referrer">
<script src="/cgi-bin/counter.cgi/site.js" defer></script>
<p><span id="views" data-counter="views">?</span> reads, page pv <span id="busuanzi_value_page_pv"></span></p>
`

// TestBrowserScript opens a small site under lighttpd in Chromium, its
// pages served under a strict Content-Security-Policy: a post that
// carries the counter's image and its script is one view (the count rises
// by one, no reload is tallied, the page shows the view); busuanzi's spans
// are filled and shown inline; the index fills each post's count from one
// request; a reload of a post is a reload of both requests; and a page
// change by the history API counts the new page.
func TestBrowserScript(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: chromeUA})
		return err
	}))
	if err != nil {
		t.Fatalf("set the User-Agent: %v", err)
	}
	bin := serverBinary(t, "lighttpd", lighttpdBins...)
	cgiDir, dbPath := installCounter(t)
	csp := `$HTTP["url"] =~ "\.html$" { setenv.add-response-header = ( "Content-Security-Policy" => "` + scriptCSP + `" ) }`
	srv := startLighttpdWith(t, bin, cgiDir, dbPath, false, nil, htmlType, csp)
	admin(t, cgiDir, dbPath, "create", "site", "-site", "-hosts", "127.0.0.1,localhost")
	admin(t, cgiDir, dbPath, "config", "site", "public-pages=on")
	htdocs := filepath.Join(filepath.Dir(srv.CGILog), "htdocs")
	for file, body := range map[string]string{
		"posts/one.html": scriptTags, "posts/two.html": scriptTags, "posts/three.html": scriptTags, "index.html": scriptIndex,
		"posts/twice.html": scriptTwice, "posts/private.html": scriptNoReferrer,
	} {
		path := filepath.Join(htdocs, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		page := "<!doctype html>\n<meta charset=\"utf-8\">\n<title>" + file + "</title>\n" + body
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if t.Failed() {
			if log, err := srv.CGIStderr(); err == nil {
				t.Logf("counter.cgi's stderr:\n%s", log)
			}
		}
	}()
	// open opens path and waits until the element of id says want.
	open := func(path, id, want string) {
		t.Helper()
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(srv.URL+path))
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		if got := resp.Headers["Content-Security-Policy"]; got != scriptCSP {
			t.Fatalf("open %s: Content-Security-Policy %v, want %q", path, got, scriptCSP)
		}
		waitText(t, ctx, path, id, want)
	}
	shots := t.TempDir()

	open("/posts/one.html", "views", "1")
	checkTexts(t, ctx, map[string]string{"visitors": "1", "site-views": "1", "site-visitors": "1",
		"busuanzi_value_site_pv": "1", "busuanzi_value_site_uv": "1", "busuanzi_value_page_pv": "1",
		"vercount_value_page_pv": "1", "vercount_value_site_uv": "1", "busuanzi_site_pv": "1", "busuanzi_page_uv": "1"})
	shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`["busuanzi_container_site_pv","busuanzi_container_site_uv","busuanzi_container_page_pv",
		"vercount_container_page_pv","vercount_container_site_uv"].map(id => document.getElementById(id).style.display).join()`))
	if shown != "inline,inline,inline,inline,inline" {
		t.Errorf("busuanzi's and vercount's containers' display: %q, want inline each", shown)
	}
	saveScreenshot(t, ctx, shots, "script-post.png")
	checkScriptDB(t, dbPath, 1, 0, map[string]uint64{"/posts/one.html": 1})

	// data-counter-abbreviated writes a figure short by the rule that
	// abbreviated=1 draws an image by: counter.Abbreviate is its oracle.
	for _, n := range []uint64{0, 7, 999, 1000, 1049, 1050, 1234, 9999, 12345, 99949, 99950, 999949, 999950,
		1_000_000, 1_250_000, 999_950_000, 1_234_567_890, 1e12, 1e15, 1_234_000_000_000_000, 9_007_199_254_740_991} {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf("String(hitcounter.short(%d))", n)))
		if err != nil {
			t.Fatal(err)
		}
		if want := counter.Abbreviate(n); got != want {
			t.Errorf("hitcounter.short(%d) = %q, want %q as counter.Abbreviate writes it", n, got, want)
		}
	}

	open("/posts/two.html", "site-views", "2")
	checkScriptDB(t, dbPath, 2, 0, map[string]uint64{"/posts/one.html": 1, "/posts/two.html": 1})

	open("/index.html", "two", "1")
	checkTexts(t, ctx, map[string]string{"one": "1", "two-visitors": "1"})
	// The top list, from its own request: links to the site's own paths.
	wait, cancelWait := context.WithTimeout(ctx, 10*time.Second)
	_, err = chromedp.Run(wait, chromedp.Poll[bool](`document.querySelectorAll("#top li").length === 3`, chromedp.WithPollingInterval(10*time.Millisecond)))
	cancelWait()
	if err != nil {
		t.Fatalf("the top list was not filled: %v", err)
	}
	links, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#top li a")].map(a => a.getAttribute("href") + "=" + a.textContent).sort().join(" ")`))
	if err != nil || links != "/=/ /posts/one.html=/posts/one.html /posts/two.html=/posts/two.html" {
		t.Errorf("top list links %q (%v), want the index and the two posts", links, err)
	}
	saveScreenshot(t, ctx, shots, "script-index.png")
	checkScriptDB(t, dbPath, 3, 0, map[string]uint64{"/": 1, "/posts/one.html": 1, "/posts/two.html": 1})

	// A reload within the window: the image and the count, one reload.
	open("/posts/one.html", "views", "1")
	checkScriptDB(t, dbPath, 3, 1, map[string]uint64{"/posts/one.html": 1})

	// A single-page site's change of page: counted, by the script alone.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`history.pushState({}, "", "/posts/three.html"), true`)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "/posts/three.html by pushState", "site-views", "4")
	checkScriptDB(t, dbPath, 4, 1, map[string]uint64{"/posts/three.html": 1})

	// A pjax library: it pushes the new address, swaps the content in and
	// calls hitcounter.count(), as deploy/doc/script.md says, before the
	// script's own look at the address: one view, the new element filled.
	swap := `history.pushState({}, "", "/posts/four.html");
		document.body.insertAdjacentHTML("beforeend", '<span id="swapped" data-counter="site-views"></span>');
		hitcounter.count(), true`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](swap)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "/posts/four.html by pjax", "swapped", "5")
	// Called again on a page it counted, it fills and counts nothing.
	again := `document.body.insertAdjacentHTML("beforeend", '<span id="again" data-counter="site-views"></span>');
		hitcounter.count(), true`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](again)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "hitcounter.count() again", "again", "5")
	time.Sleep(500 * time.Millisecond) // for a count it should not have sent
	checkScriptDB(t, dbPath, 5, 1, map[string]uint64{"/posts/four.html": 1})

	// A theme's pjax (Butterfly's and NexT's) pushes the new address,
	// swaps the content in, and runs the page's scripts again: a fresh
	// copy of the script's element. Each change of page is one view, the
	// script's copies never a second request for it (a reload), however
	// many pages the reader goes through.
	for i, page := range []string{"/posts/five.html", "/posts/six.html"} {
		rerun := `history.pushState({}, "", "` + page + `");
			document.body.insertAdjacentHTML("beforeend", '<span id="rerun` + fmt.Sprint(i) + `" data-counter="site-views"></span>');
			const old = document.querySelector('script[src$="/site.js"]'), copy = document.createElement("script");
			for (const a of old.attributes) copy.setAttribute(a.name, a.value);
			old.replaceWith(copy), true`
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("{"+rerun+"}")); err != nil {
			t.Fatal(err)
		}
		waitText(t, ctx, page+" by a theme's pjax", "rerun"+fmt.Sprint(i), fmt.Sprint(6+i))
		time.Sleep(500 * time.Millisecond) // for a count it should not have sent
		checkScriptDB(t, dbPath, uint64(6+i), 1, map[string]uint64{page: 1})
	}

	// The script twice on one page (a theme's busuanzi setting and the
	// owner's snippet): one view, no reload.
	open("/posts/twice.html", "views", "1")
	checkTexts(t, ctx, map[string]string{"busuanzi_value_page_pv": "1"})
	time.Sleep(500 * time.Millisecond) // for a count it should not have sent
	checkScriptDB(t, dbPath, 8, 1, map[string]uint64{"/posts/twice.html": 1})

	// A page that sends no Referer: its post is still counted, and shows
	// its view; the count's request names only the page's origin.
	open("/posts/private.html", "views", "1")
	checkTexts(t, ctx, map[string]string{"busuanzi_value_page_pv": "1"})
	checkScriptDB(t, dbPath, 9, 1, map[string]uint64{"/posts/private.html": 1})
}

// waitText waits until the element of id on the page says want.
func waitText(t *testing.T, ctx context.Context, what, id, want string) {
	t.Helper()
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	js := `(document.getElementById("` + id + `")||{}).textContent === "` + want + `"`
	if _, err := chromedp.Run(wait, chromedp.Poll[bool](js, chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`String((document.getElementById("`+id+`")||{}).textContent)`))
		t.Fatalf("%s: #%s says %q, want %q", what, id, got, want)
	}
}

// checkTexts checks that each element says what want says of it.
func checkTexts(t *testing.T, ctx context.Context, want map[string]string) {
	t.Helper()
	for id, w := range want {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String((document.getElementById("`+id+`")||{}).textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(got) != w {
			t.Errorf("#%s says %q, want %q", id, got, w)
		}
	}
}

// checkScriptDB checks the site's views, today's reloads and some pages'
// views in the database.
func checkScriptDB(t *testing.T, dbPath string, views, reloads uint64, pages map[string]uint64) {
	t.Helper()
	db, err := store.Open(dbPath, store.Options{ReadOnly: true, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := db.Glance("site", "", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if g.Count != views || g.Today.NotCounted[counter.Reload] != reloads {
		t.Errorf("site: %d views, %d reloads; want %d, %d", g.Count, g.Today.NotCounted[counter.Reload], views, reloads)
	}
	rows, err := db.Pages("site", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, r := range rows {
		got[r.Page] = r.Views
	}
	for p, n := range pages {
		if got[p] != n {
			t.Errorf("page %s: %d views, want %d (pages %v)", p, got[p], n, got)
		}
	}
}

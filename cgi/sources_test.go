package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSourcesFromImports brings sources in through the built command
// from each program that keeps them (GoatCounter's Referrer column,
// Plausible's imported_sources, the Referer of an access log's page
// requests), and shows them on the statistics page and in both exports,
// escaped; with a password, a stranger sees none of them.
func TestSourcesFromImports(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	file := func(name string) string { return filepath.Join("..", "testdata", "import", name) }
	admin := func(args ...string) string {
		t.Helper()
		out, err := adminRun(t, db, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	admin("create", "goat", "-site", "-hosts", "blog.example")
	admin("create", "plaus", "-site", "-hosts", "blog.example")
	admin("create", "logs", "referrers=blog.example")
	if out := admin("import", "-name", "goat", file("goatcounter-v2.csv.gz")); !strings.Contains(out, "sources (where readers came from): 2 changed") {
		t.Errorf("GoatCounter's import:\n%s", out)
	}
	if out := admin("import", "-name", "plaus", file("plausible-export.zip")); !strings.Contains(out, "sources (where readers came from): 2 changed") ||
		!strings.Contains(out, "1 visits from sources that name no host") {
		t.Errorf("Plausible's import:\n%s", out)
	}
	line := func(addr, when, referer string) string {
		return addr + ` - - [` + when + ` +0000] "GET / HTTP/1.1" 200 5120 "` + referer + `" "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"` + "\n"
	}
	log := filepath.Join(dir, "access.log")
	os.WriteFile(log, []byte(line("198.51.100.1", "02/Jan/2026:10:00:00", "https://www.bing.com/search?q=private")+
		line("198.51.100.2", "02/Jan/2026:10:01:00", "https://blog.example/other/")+
		line("198.51.100.3", "02/Jan/2026:10:02:00", "https://news.ycombinator.com/item?id=1")), 0o644)
	if out := admin("import", "-log", log, "-path", "/", "logs"); !strings.Contains(out, "sources (where readers came from): 2 changed") {
		t.Errorf("the log's import:\n%s", out)
	}
	for _, tc := range []struct {
		name string
		page []string // on the statistics page
		json string
		csv  string
	}{
		{"goat", []string{`<tr><td>Hacker News <span class="tag">social</span></td><td class="n">1</td></tr>`, "<td>news.example</td>"},
			`"sources":[{"source":"Hacker News","views":1},{"source":"news.example","views":1}]`, "\r\n,,1,,,,,,,,,Hacker News\r\n"},
		{"plaus", []string{`<tr><td>Google <span class="tag">search</span></td><td class="n">1</td></tr>`},
			`"sources":[{"source":"Google","views":1},{"source":"news.example","views":1}]`, ",source\r\n"},
		{"logs", []string{`<tr><td>Bing <span class="tag">search</span></td><td class="n">1</td></tr>`},
			`"sources":[{"source":"Bing","views":1},{"source":"Hacker News","views":1}]`, "\r\n,1,,,,,,,,,Bing\r\n"},
	} {
		page := string(get(t, db, "/"+tc.name+"/stats"))
		for _, want := range append(tc.page, "<h2>Where readers came from</h2>") {
			if !strings.Contains(page, want) {
				t.Errorf("%s's statistics lack %q", tc.name, want)
			}
		}
		if strings.Contains(page, "private") || strings.Contains(page, "blog.example/other") {
			t.Errorf("%s's statistics show a Referer's path or query", tc.name)
		}
		if js := string(get(t, db, "/"+tc.name+"/stats.json")); !strings.Contains(js, tc.json) {
			t.Errorf("%s's stats.json lacks %s:\n%.600s", tc.name, tc.json, js)
		}
		if csv := string(get(t, db, "/"+tc.name+"/stats.csv")); !strings.Contains(csv, tc.csv) {
			t.Errorf("%s's stats.csv lacks %q:\n%.600s", tc.name, tc.csv, csv)
		}
	}
	// With a password, the statistics and the exports are the login's.
	if out, code := adminStdin(t, db, "a password of the owner\n", "passwd", "logs"); code != 0 {
		t.Fatalf("passwd: %d %s", code, out)
	}
	for _, path := range []string{"/logs/stats", "/logs/stats.json", "/logs/stats.csv"} {
		ans, _ := runCGI(t, append(hitEnv(t, db), "PATH_INFO="+path, "REQUEST_METHOD=GET", "QUERY_STRING="))
		if body := string(ans.body); strings.Contains(body, "Bing") || strings.Contains(body, "Hacker News") {
			t.Errorf("a stranger's GET %s shows a source (%d)", path, ans.status)
		}
	}
}

// TestTitlesCommandBinary stores a site's titles from Hugo's feed through
// the built command, and refuses its sitemap, which has none.
func TestTitlesCommandBinary(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "blog", "-site", "-hosts", "blog.example"); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	feeds := filepath.Join("..", "testdata", "feeds")
	out, err := adminRun(t, db, "titles", "blog", filepath.Join(feeds, "hugo-index.xml"))
	if err != nil || !strings.Contains(out, "blog: 3 titles from the RSS file") {
		t.Errorf("titles: %v\n%s", err, out)
	}
	out, err = adminRun(t, db, "titles", "blog", filepath.Join(feeds, "hugo-sitemap.xml"))
	if err == nil || !strings.Contains(out, "no title") || !strings.Contains(out, "index.xml") {
		t.Errorf("titles of a sitemap: %v\n%s", err, out)
	}
}

// TestTopPagesTitled gives blog's pages titles from an Atom feed with the
// built titles command: the top list shows each page's title (escaped by
// the JSON encoder), and a page without one only its path.
func TestTopPagesTitled(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	topSite(t, db, time.Now().UTC())
	feed := filepath.Join(t.TempDir(), "atom.xml")
	os.WriteFile(feed, []byte(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">`+
		`<entry><title type="html">A &amp;lt;script&amp;gt; &amp;amp; more</title><link href="https://blog.example/a/"/></entry>`+
		`<entry><title>Bee</title><link rel="alternate" href="https://blog.example/b/"/></entry>`+
		`<entry><title>Elsewhere</title><link href="https://other.example/d/"/></entry></feed>`), 0o644)
	out, err := adminRun(t, db, "titles", "blog", feed)
	if err != nil || !strings.Contains(out, "blog: 2 titles from the Atom file") || !strings.Contains(out, "left out 1 on other hosts") {
		t.Fatalf("titles: %v\n%s", err, out)
	}
	if out, err := adminRun(t, db, "config", "blog", "public-pages=on"); err != nil {
		t.Fatalf("config: %v\n%s", err, out)
	}
	status, v, stderr := getTop(t, db, "/blog.json", "top=3")
	if got, want := topList(v), `/a 9 "A <script> & more", /d 9, /b 7 "Bee"`; status != 200 || got != want {
		t.Errorf("top=3: status %d, %s, want %s; %s", status, got, want, stderr)
	}
	ans, _ := runCGI(t, append(hitEnv(t, db), "PATH_INFO=/blog.json", "REQUEST_METHOD=GET", "QUERY_STRING=top=1"))
	if body := string(ans.body); strings.Contains(body, "<script>") || !strings.Contains(body, `\u003cscript\u003e`) {
		t.Errorf("the title is not escaped in the JSON: %s", body)
	}
}

// TestScriptSources counts views through the script's request of the
// built binary, each with the host of its page's own referrer: a search
// engine's is grouped, the counter's own page's host is none, and the
// statistics list them.
func TestScriptSources(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "page", "reload=off"); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	for i, ref := range []string{"www.google.de", "google.com:443", "me.example", "forum.example", ""} {
		ans, stderr := runCGI(t, append(hitEnv(t, db), "PATH_INFO=/page.count", "REQUEST_METHOD=GET", "QUERY_STRING=page=/&ref="+ref,
			"HTTP_REFERER=https://me.example/", fmt.Sprintf("REMOTE_ADDR=192.0.2.%d", i+1)))
		if ans.status != 200 || ans.header.Get("X-Counter-Error") != "" {
			t.Fatalf("count with ref=%s: %d %q; %s", ref, ans.status, ans.header.Get("X-Counter-Error"), stderr)
		}
	}
	page := string(get(t, db, "/page/stats"))
	for _, want := range []string{`<tr><td>Google <span class="tag">search</span></td><td class="n">2</td></tr>`, `<tr><td>forum.example</td><td class="n">1</td></tr>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the statistics lack %q", want)
		}
	}
	// me.example, the page's own host, is no source.
	if js := string(get(t, db, "/page/stats.json")); !strings.Contains(js, `"sources":[{"source":"Google","views":2},{"source":"forum.example","views":1}]}`) {
		t.Errorf("stats.json: %.400s", js)
	}
}

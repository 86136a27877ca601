package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/counter"
	"hitcounter/store"
)

// scriptWorld makes a database with a site, a plain counter and a site
// whose statistics have a password, and its run directory.
func scriptWorld(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	mustAdmin(t, db, "create", "blog", "-site", "-hosts", "blog.example")
	mustAdmin(t, db, "create", "page")
	mustAdmin(t, db, "create", "locked", "-site", "-hosts", "blog.example")
	if out, code := adminStdin(t, db, "s3cret words\n", "passwd", "locked"); code != 0 {
		t.Fatalf("passwd: %s", out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	return db
}

// scriptBinaries are the two programs that serve the script and its
// count under CGI: the hit binary itself, and the full tool.
func scriptBinaries(t *testing.T) map[string]string {
	return map[string]string{"hit": hitBinary(t), "full": counterBinary(t)}
}

// cgiRun runs bin on request r against db and parses its answer.
func cgiRun(t *testing.T, bin, db string, r hitRequest) cgiAnswer {
	t.Helper()
	out, errOut, _ := runPlain(t, bin, r.cgiEnv(db), "")
	ans, err := parseAnswer([]byte(out))
	if err != nil {
		t.Fatalf("%s %s?%.80s: %v; stderr %s", bin, r.path, r.query, err, errOut)
	}
	return ans
}

// countAnswer is the JSON of NAME.count.
type countAnswer struct {
	Views, Visitors uint64
	PageViews       uint64 `json:"page_views"`
	PageVisitors    uint64 `json:"page_visitors"`
	Pages           []struct {
		Page            string
		Views, Visitors uint64
	}
}

func decodeCount(t *testing.T, a cgiAnswer) countAnswer {
	t.Helper()
	var c countAnswer
	if a.status != 200 {
		t.Fatalf("count: status %d, %s", a.status, a.body)
	}
	if err := json.Unmarshal(a.body, &c); err != nil {
		t.Fatalf("count: %v in %s", err, a.body)
	}
	return c
}

// glanceAt reads counter name and the tally of today.
func glanceAt(t *testing.T, db, name, page string) store.Glance {
	t.Helper()
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g, err := s.Glance(name, page, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestScriptAndImageAreOneView: a page that carries the image and the
// script is one view, whichever request comes first, in both binaries: the
// count rises by one, no reload is tallied for it, and the count's answer
// includes the view. A reload of the page after it is one reload, the
// image's: the script's request joins it.
func TestScriptAndImageAreOneView(t *testing.T) {
	const post = "/posts/one/"
	referer := "HTTP_REFERER=https://blog.example" + post
	image := hitRequest{path: "/blog.png", env: []string{referer}}
	script := hitRequest{path: "/blog.count", query: "page=" + url.QueryEscape(post) + "&p=/posts/one/&p=/posts/two/", env: []string{referer}}
	for binName, bin := range scriptBinaries(t) {
		for _, order := range []string{"image first", "script first"} {
			t.Run(binName+"/"+order, func(t *testing.T) {
				db := scriptWorld(t)
				first, second := image, script
				if order == "script first" {
					first, second = script, image
				}
				a1, a2 := cgiRun(t, bin, db, first), cgiRun(t, bin, db, second)
				count := a1
				if order == "image first" {
					count = a2
				}
				c := decodeCount(t, count)
				if c.Views != 1 || c.PageViews != 1 || c.Visitors != 1 || c.PageVisitors != 1 {
					t.Errorf("count answered %+v; want the one view in it", c)
				}
				if len(c.Pages) != 2 || c.Pages[0].Page != "/posts/one/" || c.Pages[0].Views != 1 || c.Pages[1].Views != 0 {
					t.Errorf("pages %+v; want /posts/one/ 1, /posts/two/ 0", c.Pages)
				}
				for _, a := range []cgiAnswer{a1, a2} {
					if a.status != 200 {
						t.Errorf("status %d: %s", a.status, a.header.Get("X-Counter-Error"))
					}
				}
				g := glanceAt(t, db, "blog", post)
				if g.Count != 1 || g.Page == nil || g.Page.Views != 1 || g.Today.NotCounted[counter.Reload] != 0 {
					t.Fatalf("after both: views %d, page %+v, reloads %d; want 1, 1, 0", g.Count, g.Page, g.Today.NotCounted[counter.Reload])
				}
				// The visitor reloads: both requests again, one reload;
				// and again, in the other order.
				cgiRun(t, bin, db, first)
				cgiRun(t, bin, db, second)
				g = glanceAt(t, db, "blog", post)
				if g.Count != 1 || g.Today.NotCounted[counter.Reload] != 1 {
					t.Errorf("after a reload: views %d, reloads %d; want 1, 1", g.Count, g.Today.NotCounted[counter.Reload])
				}
				cgiRun(t, bin, db, second)
				cgiRun(t, bin, db, first)
				g = glanceAt(t, db, "blog", post)
				if g.Count != 1 || g.Today.NotCounted[counter.Reload] != 2 {
					t.Errorf("after two reloads: views %d, reloads %d; want 1, 2", g.Count, g.Today.NotCounted[counter.Reload])
				}
			})
		}
	}
}

// TestScriptCountsByTheImagesRules: the script's count is judged as an
// image's hit: a reload, a bot, a prefetch, a page on a host the site
// does not allow are not views, and another visitor is.
func TestScriptCountsByTheImagesRules(t *testing.T) {
	referer := "HTTP_REFERER=https://blog.example/a/"
	for binName, bin := range scriptBinaries(t) {
		t.Run(binName, func(t *testing.T) {
			db := scriptWorld(t)
			for _, tc := range []struct {
				name  string
				env   []string
				views uint64
				kind  counter.Kind
			}{
				{"a view", nil, 1, counter.View},
				{"a reload", nil, 1, counter.Reload},
				{"a bot", []string{"HTTP_USER_AGENT=Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, 1, counter.Bot},
				{"a prefetch", []string{"HTTP_SEC_PURPOSE=prefetch", "REMOTE_ADDR=192.0.2.30"}, 1, counter.Prefetch},
				{"a foreign host", []string{"HTTP_REFERER=https://other.example/a/", "REMOTE_ADDR=192.0.2.31"}, 1, counter.Foreign},
				{"another visitor", []string{"REMOTE_ADDR=192.0.2.32"}, 2, counter.View},
			} {
				r := hitRequest{path: "/blog.count", query: "page=/a/", env: append([]string{referer}, tc.env...)}
				a := cgiRun(t, bin, db, r)
				if a.status != 200 {
					t.Fatalf("%s: status %d", tc.name, a.status)
				}
				g := glanceAt(t, db, "blog", "/a/")
				if g.Count != tc.views {
					t.Errorf("%s: views %d, want %d", tc.name, g.Count, tc.views)
				}
				if tc.kind != counter.View && g.Today.NotCounted[tc.kind] != 1 {
					t.Errorf("%s: %s tallied %d, want 1", tc.name, tc.kind, g.Today.NotCounted[tc.kind])
				}
			}
		})
	}
}

// TestManyPagesBounds: NAME.json and NAME.count take 100 pages, not
// 101, and a query of a few KiB, not more; an image keeps its own
// bounds, a repeated key among them.
func TestManyPagesBounds(t *testing.T) {
	pages := func(key string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "&%s=/posts/%03d/", key, i)
		}
		return b.String()[1:]
	}
	long := "page=/a/&p=/" + strings.Repeat("x", counter.MaxListQueryLen)
	db := scriptWorld(t)
	for _, tc := range []struct {
		name, path, query string
		status            int
		pages             int
	}{
		{"json of 100 pages", "/blog.json", pages("page", 100), 200, 100},
		{"json of 101 pages", "/blog.json", pages("page", 101), 400, 0},
		{"json of a long query", "/blog.json", "page=/" + strings.Repeat("x", counter.MaxListQueryLen), 400, 0},
		{"count of 100 pages", "/blog.count", "page=/a/&" + pages("p", 100), 200, 100},
		{"count of 101 pages", "/blog.count", "page=/a/&" + pages("p", 101), 400, 0},
		{"count of a long query", "/blog.count", long, 400, 0},
		{"count naming its page twice", "/blog.count", "page=/a/&page=/b/", 400, 0},
		{"an image's repeated page", "/blog.png", "page=/a/&page=/b/", 400, 0},
		{"an image's query of 2 KiB", "/blog.png", "page=/" + strings.Repeat("x", 2048), 400, 0},
	} {
		for binName, bin := range scriptBinaries(t) {
			t.Run(tc.name+"/"+binName, func(t *testing.T) {
				a := cgiRun(t, bin, db, hitRequest{path: tc.path, query: tc.query, env: []string{"HTTP_REFERER=https://blog.example/a/"}})
				if a.status != tc.status {
					t.Fatalf("status %d, want %d (%s)", a.status, tc.status, a.header.Get("X-Counter-Error"))
				}
				if tc.status != 200 {
					return
				}
				var doc struct{ Pages []json.RawMessage }
				if err := json.Unmarshal(a.body, &doc); err != nil || len(doc.Pages) != tc.pages {
					t.Errorf("%d pages (%v), want %d", len(doc.Pages), err, tc.pages)
				}
			})
		}
	}
}

// TestManyPagesBehindAPassword: a site whose statistics have a password
// still gives its views and visitors and its pages' in NAME.json (as its
// images can show them), but not its days; the count answers alike.
func TestManyPagesBehindAPassword(t *testing.T) {
	db := scriptWorld(t)
	bin := counterBinary(t)
	cgiRun(t, bin, db, hitRequest{path: "/locked.png", env: []string{"HTTP_REFERER=https://blog.example/a/"}})
	a := cgiRun(t, bin, db, hitRequest{path: "/locked.json", query: "page=/a/&page=/b/"})
	want := `{"name":"locked","count":1,"show":"views","views":1,"visitors":1,"pages":[{"page":"/a/","views":1,"visitors":1},{"page":"/b/","views":0,"visitors":0}]}` + "\n"
	if a.status != 200 || string(a.body) != want {
		t.Errorf("json: %d %s; want %s", a.status, a.body, want)
	}
	a = cgiRun(t, bin, db, hitRequest{path: "/locked.json", query: "page=/a/"})
	if strings.Contains(string(a.body), "today") {
		t.Errorf("json of one page tells today's figures behind a password: %s", a.body)
	}
	c := decodeCount(t, cgiRun(t, hitBinary(t), db, hitRequest{path: "/locked.count", query: "page=/a/&p=/a/", env: []string{"REMOTE_ADDR=192.0.2.40", "HTTP_REFERER=https://blog.example/a/"}}))
	if c.Views != 2 || c.PageViews != 2 || len(c.Pages) != 1 || c.Pages[0].Views != 2 {
		t.Errorf("count: %+v; want 2 views of the site and of /a/", c)
	}
}

// TestScriptServed: NAME.js is at most 2 KiB, the same for every
// counter, kept by caches, and needs nothing a strict
// Content-Security-Policy forbids.
func TestScriptServed(t *testing.T) {
	db := scriptWorld(t)
	var bodies []string
	for binName, bin := range scriptBinaries(t) {
		for _, name := range []string{"blog", "page", "nosuch"} {
			a := cgiRun(t, bin, db, hitRequest{path: "/" + name + ".js"})
			if a.status != 200 {
				t.Fatalf("%s %s.js: status %d", binName, name, a.status)
			}
			if len(a.body) > 2048 {
				t.Errorf("%s %s.js: %d bytes, more than 2 KiB", binName, name, len(a.body))
			}
			if ct, cc := a.header.Get("Content-Type"), a.header.Get("Cache-Control"); !strings.HasPrefix(ct, "text/javascript") || !strings.Contains(cc, "max-age=") || strings.Contains(cc, "no-store") {
				t.Errorf("%s %s.js: Content-Type %q, Cache-Control %q", binName, name, ct, cc)
			}
			bodies = append(bodies, string(a.body))
		}
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Fatal("the script differs between counters or binaries")
		}
	}
	// What 'unsafe-eval' or 'unsafe-inline' would be needed for, and
	// what would write markup.
	for _, bad := range []string{"eval(", "Function(", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "setTimeout(\"", "setAttribute(\"on", "javascript:"} {
		if strings.Contains(bodies[0], bad) {
			t.Errorf("the script holds %q", bad)
		}
	}
	if a := cgiRun(t, hitBinary(t), db, hitRequest{path: "/bad!name.js"}); a.status != 400 {
		t.Errorf("a bad name's script: status %d, want 400", a.status)
	}
}

// TestScriptAndImageOneViewAcrossProcesses: the image served by a
// FastCGI process and the count by a CGI process of the hit binary, or
// the other way round, on one file and one run directory, are one view
// too: the process that comes second finds the first's mark in the
// visitor table.
func TestScriptAndImageOneViewAcrossProcesses(t *testing.T) {
	const post = "/posts/one/"
	referer := "https://blog.example" + post
	image := hitRequest{path: "/blog.png", env: []string{"HTTP_REFERER=" + referer}}
	script := hitRequest{path: "/blog.count", query: "page=" + post, env: []string{"HTTP_REFERER=" + referer}}
	for _, tc := range []struct {
		name       string
		fcgi, cgi  hitRequest
		fcgiFirst  bool
		countByCGI bool
	}{
		{"image by FastCGI first", image, script, true, true},
		{"count by CGI first", image, script, false, true},
		{"count by FastCGI first", script, image, true, false},
		{"image by CGI first", script, image, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := scriptWorld(t)
			sock, _, stderr := startFastCGIBinary(t, db, "COUNTER_RUN_DIR="+filepath.Join(filepath.Dir(db), "run"))
			viaFCGI := func() cgiAnswer {
				c, err := fcgitest.Dial(sock)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Conn.Close()
				env := fcgitest.Env("GET", tc.fcgi.path, tc.fcgi.query, "REMOTE_ADDR", "192.0.2.1",
					"HTTP_USER_AGENT", firefoxUA, "HTTP_REFERER", referer)
				out, _, err := c.Request(1, false, env, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				a, err := parseAnswer(out)
				if err != nil {
					t.Fatalf("%v; stderr %s", err, stderr)
				}
				return a
			}
			var fa, ca cgiAnswer
			if tc.fcgiFirst {
				fa, ca = viaFCGI(), cgiRun(t, hitBinary(t), db, tc.cgi)
			} else {
				ca, fa = cgiRun(t, hitBinary(t), db, tc.cgi), viaFCGI()
			}
			count := fa
			if tc.countByCGI {
				count = ca
			}
			if c := decodeCount(t, count); c.Views != 1 || c.PageViews != 1 {
				t.Errorf("count answered %+v; want the one view", c)
			}
			g := glanceAt(t, db, "blog", post)
			if g.Count != 1 || g.Today.NotCounted[counter.Reload] != 0 {
				t.Errorf("views %d, reloads %d; want 1, 0", g.Count, g.Today.NotCounted[counter.Reload])
			}
		})
	}
}

// TestJoinedScriptKeepsItsSource: the source a page's script sends is
// kept whichever of the page's two requests comes first, under CGI (both
// binaries) and FastCGI: the usual order, the image in the HTML before
// the script runs, used to lose it. The view counts once, with no reload,
// the count's answer has it; a HEAD of the count writes nothing, and a
// bot's count after the image is a bot's, with no source.
func TestJoinedScriptKeepsItsSource(t *testing.T) {
	const post = "/posts/one/"
	referer := "https://blog.example" + post
	image := hitRequest{path: "/blog.png", env: []string{"HTTP_REFERER=" + referer}}
	script := hitRequest{path: "/blog.count", query: "page=" + url.QueryEscape(post) + "&ref=news.ycombinator.com&p=" + post, env: []string{"HTTP_REFERER=" + referer}}
	head := script
	head.method = "HEAD"
	bot := script
	bot.env = append(slices.Clone(script.env), "HTTP_USER_AGENT=Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	type run func(t *testing.T, db string, r hitRequest) cgiAnswer
	servers := map[string]func(t *testing.T, db string) run{
		"fastcgi": func(t *testing.T, db string) run {
			sock, _, stderr := startFastCGIBinary(t, db, "COUNTER_RUN_DIR="+filepath.Join(filepath.Dir(db), "run"))
			return func(t *testing.T, db string, r hitRequest) cgiAnswer {
				t.Helper()
				c, err := fcgitest.Dial(sock)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Conn.Close()
				method := r.method
				if method == "" {
					method = "GET"
				}
				extra := []string{"REMOTE_ADDR", "192.0.2.1", "HTTP_USER_AGENT", firefoxUA}
				for _, kv := range r.env {
					k, v, _ := strings.Cut(kv, "=")
					extra = append(extra, k, v)
				}
				env := fcgitest.Env(method, r.path, r.query, extra...)
				out, _, err := c.Request(1, false, env, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				a, err := parseAnswer(out)
				if err != nil {
					t.Fatalf("%v; stderr %s", err, stderr)
				}
				return a
			}
		},
	}
	for name, bin := range scriptBinaries(t) {
		servers["cgi "+name] = func(*testing.T, string) run {
			return func(t *testing.T, db string, r hitRequest) cgiAnswer { return cgiRun(t, bin, db, r) }
		}
	}
	for server, start := range servers {
		for _, tc := range []struct {
			name    string
			order   []hitRequest
			sources string
		}{
			{"image first", []hitRequest{image, script}, "[{Hacker News 1}]"},
			{"script first", []hitRequest{script, image}, "[{Hacker News 1}]"},
			{"image, then a HEAD", []hitRequest{image, head}, "[]"},
			// Judged before it could be joined: a bot's, not the view's.
			{"image, then a bot's count", []hitRequest{image, bot}, "[]"},
		} {
			t.Run(server+"/"+tc.name, func(t *testing.T) {
				db := scriptWorld(t)
				serve := start(t, db)
				for _, r := range tc.order {
					a := serve(t, db, r)
					if a.status != 200 {
						t.Fatalf("%s %s: status %d, %s", r.method, r.path, a.status, a.header.Get("X-Counter-Error"))
					}
					if r.path == script.path && r.method == "" {
						if c := decodeCount(t, a); c.Views != 1 || c.PageViews != 1 || c.Visitors != 1 || len(c.Pages) != 1 || c.Pages[0].Views != 1 {
							t.Errorf("count answered %+v; want the one view in it", c)
						}
					}
				}
				g := glanceAt(t, db, "blog", post)
				if g.Count != 1 || g.Visitors != 1 || g.Page == nil || g.Page.Views != 1 || g.Today.NotCounted[counter.Reload] != 0 {
					t.Errorf("views %d, visitors %d, page %+v, reloads %d; want 1, 1, 1, 0", g.Count, g.Visitors, g.Page, g.Today.NotCounted[counter.Reload])
				}
				s, err := store.Open(db, store.Options{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				h, err := s.History("blog", time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(h.Sources); got != tc.sources {
					t.Errorf("sources %s, want %s", got, tc.sources)
				}
			})
		}
	}
}

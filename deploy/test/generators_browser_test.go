package test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hitcounter/counter"
)

// generatorsDir holds each generator's small site; its templates carry
// "COUNTER-SNIPPET name" lines where the snippets of generatorsDoc go.
const (
	generatorsDir = "testdata/generators"
	generatorsDoc = kitDir + "/doc/generators.md"
)

// generatorTypes are the types lighttpd's test config lacks for a
// generated site: pages, a theme's stylesheets and scripts, its fonts.
const generatorTypes = `mimetype.assign = (
	".html" => "text/html; charset=utf-8", ".css" => "text/css",
	".js" => "text/javascript", ".json" => "application/json",
	".xml" => "application/xml", ".svg" => "image/svg+xml",
	".png" => "image/png", ".woff2" => "font/woff2",
)
index-file.names = ( "index.html" )`

// genPost is a post of every test site: its address as each generator
// writes it, its title, and how many times the browser opens it, all
// different so that a figure shown on the wrong post is seen.
type genPost struct {
	path, title string
	times       int
}

var genPosts = []genPost{
	{"/posts/first-post/", "First post", 1},
	{"/posts/second-post/", "Second post", 2},
	{"/posts/third-post/", "Third post", 3},
}

// siteGenerator builds one generator's test site from src into a new
// folder and returns it. feed names the feed it writes without a plugin,
// which the owner gives to "counter titles" for the popular list's
// titles; without one the list shows paths.
type siteGenerator struct {
	name  string
	build func(t *testing.T, src string) string
	feed  string
}

// TestGeneratorSites builds a small real site with each of Hugo, Jekyll,
// Hexo and Eleventy, its templates holding deploy/doc/generators.md's
// snippets verbatim, serves it with lighttpd and the counter, and opens
// it in Chromium: each post shows its own count after every opening, the
// index shows every listed post's count, all of them from one request of
// the counter's script (lighttpd's access log says), the popular list
// puts the most viewed first, and the database holds exactly the views
// the browser made. One browser serves the four sites.
func TestGeneratorSites(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	snippets := docSnippets(t)
	// A bound, not the time it takes (about a minute): the first run on
	// a machine also installs Hexo and Eleventy from npm meanwhile.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	ctx = newDesktopBrowser(t, ctx)
	shots := t.TempDir()
	for _, g := range []siteGenerator{
		{"hugo", buildHugo, "index.xml"},
		{"jekyll", buildJekyll, ""},
		{"hexo", func(t *testing.T, src string) string { return buildHexo(t, filepath.Join(src, "mini")) }, ""},
		{"eleventy", buildEleventy, ""},
	} {
		t.Run(g.name, func(t *testing.T) {
			src := siteSource(t, filepath.Join(generatorsDir, g.name), snippets)
			out := g.build(t, src)
			srv, cgiDir, dbPath, accessLog := serveGenerated(t, out, true)
			if g.feed != "" {
				admin(t, cgiDir, dbPath, "titles", "blog", filepath.Join(out, g.feed))
			}
			for _, p := range genPosts {
				for n := 1; n <= p.times; n++ {
					got := openFilled(t, ctx, srv.URL+p.path)
					if len(got.Views) != 1 || got.Views[0] != n {
						t.Errorf("%s, opening %d: the post shows views %v, want [%d]", p.path, n, got.Views, n)
					}
				}
			}
			saveScreenshot(t, ctx, shots, g.name+"-post.png")

			mark := markLog(t, srv.URL, accessLog, "before-index")
			got := openFilled(t, ctx, srv.URL+"/")
			saveScreenshot(t, ctx, shots, g.name+"-index.png")
			var want []string
			for _, p := range genPosts {
				want = append(want, p.path)
				if n, ok := got.Pages[p.path]; !ok || n != p.times {
					t.Errorf("index: %s shows %d (listed: %t), want %d", p.path, n, ok, p.times)
				}
			}
			if len(got.Pages) != len(genPosts) {
				t.Errorf("index: lists %v, want the %d posts", got.Pages, len(genPosts))
			}
			checkOneRequest(t, counterRequests(t, srv.URL, accessLog, mark), want)
			checkTop(t, got.Top, g.feed != "")
			checkGeneratedRows(t, dbPath, append(want, "/"), append(postTimes(), 1))
		})
	}
}

// TestGeneratorBusuanziTheme builds a Hexo site with the NexT theme, its
// busuanzi setting on and the busuanzi script's address changed to the
// counter's (the snippet "next-config" of deploy/doc/generators.md, the
// one change an owner makes), and checks that the theme's own spans show
// the counter's figures: a post's views, the site's views and visitors,
// their containers shown (display: inline, as busuanzi's own script
// sets it) where the theme's stylesheet hides them.
func TestGeneratorBusuanziTheme(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	src := siteSource(t, filepath.Join(generatorsDir, "hexo"), docSnippets(t))
	out := buildHexo(t, filepath.Join(src, "next"))
	srv, _, dbPath, _ := serveGenerated(t, out, false)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	ctx = newDesktopBrowser(t, ctx)
	shots := t.TempDir()
	// Each opening: the post, then what its spans must show.
	type want struct{ pagePV, sitePV, siteUV int }
	for i, o := range []struct {
		path string
		want want
	}{
		{"/posts/first-post/", want{1, 1, 1}},
		{"/posts/first-post/", want{2, 2, 1}},
		{"/posts/second-post/", want{1, 3, 1}},
	} {
		url := srv.URL + o.path
		if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		filled := `["busuanzi_value_page_pv", "busuanzi_value_site_pv", "busuanzi_value_site_uv"].every(id => /\d/.test(document.getElementById(id).textContent))`
		wait, stop := context.WithTimeout(ctx, 10*time.Second)
		_, err := chromedp.Run(wait, chromedp.Poll[bool](filled, chromedp.WithPollingInterval(10*time.Millisecond)))
		stop()
		if err != nil {
			html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerHTML.slice(-3000)`))
			t.Fatalf("opening %d of %s: busuanzi's spans were not filled: %v\n%s", i+1, o.path, err, html)
		}
		spans, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(
			["page_pv", "site_pv", "site_uv"].flatMap(k => [
				[k, document.getElementById("busuanzi_value_" + k).textContent],
				[k + " style", document.getElementById("busuanzi_container_" + k).style.display],
				[k + " shown", getComputedStyle(document.getElementById("busuanzi_container_" + k)).display],
			]))`))
		if err != nil {
			t.Fatal(err)
		}
		got := want{digits(spans["page_pv"]), digits(spans["site_pv"]), digits(spans["site_uv"])}
		if got != o.want {
			t.Errorf("opening %d of %s: page_pv, site_pv, site_uv show %v, want %v", i+1, o.path, got, o.want)
		}
		for _, k := range []string{"page_pv", "site_pv", "site_uv"} {
			// Set inline as busuanzi does; a flex item's computed
			// display is then "block", but never "none".
			if d := spans[k+" style"]; d != "inline" {
				t.Errorf("opening %d of %s: busuanzi_container_%s has style display %q, want inline", i+1, o.path, k, d)
			}
			if d := spans[k+" shown"]; d == "none" {
				t.Errorf("opening %d of %s: busuanzi_container_%s is hidden", i+1, o.path, k)
			}
		}
	}
	saveScreenshot(t, ctx, shots, "hexo-next-post.png")
	checkGeneratedRows(t, dbPath, []string{"/posts/first-post/", "/posts/second-post/"}, []int{2, 1})
}

// newDesktopBrowser is newBrowser whose User-Agent is a desktop Chrome's:
// headless Chromium names itself "HeadlessChrome", a bot to the counter.
func newDesktopBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	ctx = newBrowser(t, ctx)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: chromeUA})
		return err
	}))
	if err != nil {
		t.Fatalf("set the User-Agent: %v", err)
	}
	return ctx
}

// docSnippets reads the snippets of generatorsDoc: each fenced block that
// follows a "<!-- snippet: NAME -->" line.
func docSnippets(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(generatorsDoc)
	if err != nil {
		t.Fatal(err)
	}
	snippets := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		name, ok := strings.CutPrefix(lines[i], "<!-- snippet: ")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, " -->")
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("%s:%d: snippet %s has no fenced block after it", generatorsDoc, i+1, name)
		}
		var body []string
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		if _, dup := snippets[name]; dup {
			t.Fatalf("%s: snippet %s twice", generatorsDoc, name)
		}
		snippets[name] = strings.Join(body, "\n")
	}
	return snippets
}

// siteSource copies a test site from dir into a new folder, with every
// "COUNTER-SNIPPET name" line replaced by that snippet; a snippet the
// site names but the page lacks fails the test.
func siteSource(t *testing.T, dir string, snippets map[string]string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			name, ok := strings.CutPrefix(strings.TrimSpace(l), "COUNTER-SNIPPET ")
			if !ok {
				continue
			}
			s, ok := snippets[name]
			if !ok {
				return fmt.Errorf("%s names snippet %s, which %s lacks", path, name, generatorsDoc)
			}
			lines[i] = s
		}
		return os.WriteFile(to, []byte(strings.Join(lines, "\n")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// runTool runs a generator in dir, bounded in time, and fails the test
// with its output if it fails.
func runTool(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	t.Logf("%s %s: %v", filepath.Base(name), filepath.Base(args[0]), time.Since(start).Round(time.Millisecond))
}

// lookTool finds a generator's command, or skips the test (fails it under
// CI=true) naming the Debian package.
func lookTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		skipOutsideCI(t, fmt.Sprintf("%s not installed (apt-get install %s)", name, pkg))
	}
	return p
}

func buildHugo(t *testing.T, src string) string {
	t.Helper()
	hugo := lookTool(t, "hugo", "hugo")
	out := t.TempDir()
	runTool(t, src, hugo, "--quiet", "--source", src, "--destination", out)
	return out
}

func buildJekyll(t *testing.T, src string) string {
	t.Helper()
	jekyll := lookTool(t, "jekyll", "jekyll")
	out := t.TempDir()
	runTool(t, src, jekyll, "build", "--quiet", "--source", src, "--destination", out)
	return out
}

// buildHexo builds the Hexo site in site, whose package.json (hexo's
// list of plugins to load) and node_modules come from its parent.
func buildHexo(t *testing.T, site string) string {
	t.Helper()
	modules := npmInstall(t, "hexo")
	link(t, modules, filepath.Join(site, "node_modules"))
	copyFile(t, filepath.Join(filepath.Dir(site), "package.json"), filepath.Join(site, "package.json"))
	runTool(t, site, lookTool(t, "node", "nodejs"), filepath.Join(modules, "hexo", "bin", "hexo"), "generate", "--silent")
	return filepath.Join(site, "public")
}

func buildEleventy(t *testing.T, src string) string {
	t.Helper()
	modules := npmInstall(t, "eleventy")
	site := filepath.Join(src, "site")
	out := t.TempDir()
	runTool(t, site, lookTool(t, "node", "nodejs"), filepath.Join(modules, "@11ty", "eleventy", "cmd.cjs"),
		"--quiet", "--input=.", "--output="+out)
	return out
}

func link(t *testing.T, old, new string) {
	t.Helper()
	if err := os.Symlink(old, new); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// npmInstall installs the packages of testdata/generators/NAME's
// package-lock.json with npm ci, into a cache folder outside the
// repository named after the lock file's hash, once: later runs reuse it.
// No package's install script runs: the generators need none. It returns
// the node_modules folder.
func npmInstall(t *testing.T, name string) string {
	t.Helper()
	npm := lookTool(t, "npm", "npm")
	dir := filepath.Join(generatorsDir, name)
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(spec, lock...))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	into := filepath.Join(cache, "counter-test", "npm", name+"-"+hex.EncodeToString(sum[:8]))
	modules := filepath.Join(into, "node_modules")
	if _, err := os.Stat(filepath.Join(into, "done")); err == nil {
		return modules
	}
	// Installed beside, then renamed: a run stopped halfway leaves no
	// folder that a later run would take for whole.
	tmp, err := os.MkdirTemp(filepath.Dir(into), name+".tmp")
	if os.IsNotExist(err) {
		err = os.MkdirAll(filepath.Dir(into), 0o755)
		if err == nil {
			tmp, err = os.MkdirTemp(filepath.Dir(into), name+".tmp")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		copyFile(t, filepath.Join(dir, f), filepath.Join(tmp, f))
	}
	runTool(t, tmp, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	if err := os.WriteFile(filepath.Join(tmp, "done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, into); err != nil && !os.IsExist(err) {
		// Another run may have renamed its own first: that one is as good.
		if _, serr := os.Stat(filepath.Join(into, "done")); serr != nil {
			t.Fatal(err)
		}
	}
	// The installs of older lock files are of no more use.
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(into), name+"-*"))
	for _, o := range old {
		if o != into {
			os.RemoveAll(o)
		}
	}
	return modules
}

// serveGenerated starts lighttpd with the counter and an access log,
// serving the generated site in out, and makes the site counter "blog"
// that the snippets name, for this test's hosts, reloads counted (the
// test opens pages again on purpose), its popular pages public if asked.
func serveGenerated(t *testing.T, out string, publicPages bool) (srv *webServer, cgiDir, dbPath, accessLog string) {
	t.Helper()
	bin := serverBinary(t, "lighttpd", lighttpdBins...)
	cgiDir, dbPath = installCounter(t)
	accessLog = filepath.Join(t.TempDir(), "access.log")
	srv = startLighttpdWith(t, bin, cgiDir, dbPath, false, nil, generatorTypes,
		`server.modules += ( "mod_accesslog" )`, `accesslog.filename = "`+accessLog+`"`, "")
	htdocs := filepath.Join(filepath.Dir(srv.CGILog), "htdocs")
	cmd := exec.Command("cp", "-R", out+"/.", htdocs)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("copy the site into %s: %v\n%s", htdocs, err, b)
	}
	admin(t, cgiDir, dbPath, "create", "blog", "-site", "-hosts", "127.0.0.1,localhost", "reload=off")
	if publicPages {
		admin(t, cgiDir, dbPath, "config", "blog", "public-pages=on")
	}
	t.Cleanup(func() {
		if t.Failed() {
			if log, err := srv.CGIStderr(); err == nil {
				t.Logf("counter.cgi's stderr:\n%s", log)
			}
		}
	})
	return srv, cgiDir, dbPath, accessLog
}

// shown is what a page's marked elements show once the script has
// filled them: this page's views, each listed page's views, the popular
// list's links.
type shown struct {
	Views []int
	Pages map[string]int
	Top   [][2]string // href, text
}

// openFilled opens url and waits until the script has filled every
// element marked for it.
func openFilled(t *testing.T, ctx context.Context, url string) shown {
	t.Helper()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	if resp.Status != 200 {
		t.Fatalf("open %s: got status %d, want 200", url, resp.Status)
	}
	filled := `[...document.querySelectorAll('[data-counter="views"], [data-counter-page]')].every(e => /\d/.test(e.textContent))
		&& document.querySelectorAll('[data-counter="top"] a').length > 0`
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = chromedp.Run(wait, chromedp.Poll[bool](filled, chromedp.WithPollingInterval(10*time.Millisecond)))
	cancel()
	if err != nil {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerHTML`))
		t.Fatalf("open %s: the counter's script did not fill the page: %v\n%s", url, err, html)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Views []string
		Pages [][2]string
		Top   [][2]string
	}](`({
		Views: [...document.querySelectorAll('[data-counter="views"]')].map(e => e.textContent),
		Pages: [...document.querySelectorAll('[data-counter-page]')].map(e => [e.dataset.counterPage, e.textContent]),
		Top: [...document.querySelectorAll('[data-counter="top"] a')].map(a => [a.getAttribute("href"), a.textContent]),
	})`))
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	s := shown{Pages: map[string]int{}, Top: raw.Top}
	for _, v := range raw.Views {
		s.Views = append(s.Views, digits(v))
	}
	for _, p := range raw.Pages {
		s.Pages[p[0]] = digits(p[1])
	}
	return s
}

var nonDigits = regexp.MustCompile(`\D`)

// digits reads a figure as the script writes it ("1,234"), or -1.
func digits(s string) int {
	n, err := strconv.Atoi(nonDigits.ReplaceAllString(s, ""))
	if err != nil {
		return -1
	}
	return n
}

// markLog asks lighttpd for a page no one else asks for and waits until
// its access log has the line: every request answered before is then in
// the log. It returns the mark's line number.
func markLog(t *testing.T, baseURL, accessLog, mark string) int {
	t.Helper()
	target := "/ok.txt?mark=" + mark
	resp, err := http.Get(baseURL + target)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
		for i, l := range logRequests(t, accessLog) {
			if l == target {
				return i
			}
		}
	}
	t.Fatalf("%s: no line for %s after 10s", accessLog, target)
	return 0
}

// logRequests returns the request target of each line of lighttpd's
// access log ("GET /x?y HTTP/1.1" gives "/x?y").
func logRequests(t *testing.T, accessLog string) []string {
	t.Helper()
	f, err := os.Open(accessLog)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var targets []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		_, req, _ := strings.Cut(sc.Text(), `"`)
		req, _, _ = strings.Cut(req, `"`)
		fields := strings.Fields(req)
		if len(fields) == 3 {
			targets = append(targets, fields[1])
		} else {
			targets = append(targets, req)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return targets
}

// counterRequests returns the counter's requests that lighttpd logged
// after the line after, up to a new mark.
func counterRequests(t *testing.T, baseURL, accessLog string, after int) []string {
	t.Helper()
	end := markLog(t, baseURL, accessLog, fmt.Sprintf("after-%d", after))
	var got []string
	for _, r := range logRequests(t, accessLog)[after+1 : end] {
		if strings.HasPrefix(r, "/cgi-bin/counter.cgi/") {
			got = append(got, r)
		}
	}
	return got
}

// checkOneRequest checks that one of the counter's requests, and only
// one, asked for listed pages, and that it asked for all of them. A page
// may be named under any key of the query: how the script names them is
// its own business.
func checkOneRequest(t *testing.T, requests []string, listed []string) {
	t.Helper()
	var asked [][]string
	for _, r := range requests {
		_, query, _ := strings.Cut(r, "?")
		q, err := url.ParseQuery(query)
		if err != nil {
			t.Errorf("the counter's request %s: %v", r, err)
			continue
		}
		var named []string
		for _, values := range q {
			for _, v := range values {
				if slices.ContainsFunc(listed, func(p string) bool { return samePage(v, p) }) {
					named = append(named, v)
				}
			}
		}
		if len(named) > 0 {
			asked = append(asked, named)
		}
	}
	if len(asked) != 1 {
		t.Errorf("index: %d requests of the counter asked for listed pages, want 1; the counter's requests: %q", len(asked), requests)
		return
	}
	for _, p := range listed {
		if !slices.ContainsFunc(asked[0], func(a string) bool { return samePage(a, p) }) {
			t.Errorf("index: the counter's one request for listed pages, %q, did not ask for %s", asked[0], p)
		}
	}
	t.Logf("index: the counter's requests: %q", requests)
}

// samePage reports whether two addresses are one page to the counter.
func samePage(a, b string) bool {
	ka, err1 := counter.PageKey(a, nil)
	kb, err2 := counter.PageKey(b, nil)
	return err1 == nil && err2 == nil && ka == kb
}

// postTimes returns how many times each of genPosts is opened.
func postTimes() []int {
	var n []int
	for _, p := range genPosts {
		n = append(n, p.times)
	}
	return n
}

// checkTop checks the popular list: the most viewed post first, the
// next one second, every post listed, with its title when the owner gave
// the titles.
func checkTop(t *testing.T, top [][2]string, titled bool) {
	t.Helper()
	byViews := slices.Clone(genPosts)
	slices.SortFunc(byViews, func(a, b genPost) int { return b.times - a.times })
	for i, p := range byViews {
		at := slices.IndexFunc(top, func(l [2]string) bool { return samePage(l[0], p.path) })
		switch {
		case at < 0:
			t.Errorf("popular list %q lacks %s", top, p.path)
		case i < 2 && at != i:
			t.Errorf("popular list %q has %s at %d, want %d", top, p.path, at+1, i+1)
		case titled && !strings.Contains(top[at][1], p.title):
			t.Errorf("popular list %q: %s shows %q, want its title %q", top, p.path, top[at][1], p.title)
		}
	}
}

// checkGeneratedRows checks the blog's rows in the database, as
// checkSiteRows does: the page of each of paths viewed views[i] times.
func checkGeneratedRows(t *testing.T, dbPath string, paths []string, views []int) {
	t.Helper()
	pages := make([]sitePage, len(paths))
	for i, p := range paths {
		key, err := counter.PageKey(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		pages[i] = sitePage{open: p, key: key, times: views[i]}
	}
	checkSiteRows(t, dbPath, "blog", pages)
}

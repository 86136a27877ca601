package main

import (
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/counter"
	"hitcounter/store"
)

// Issue 40, items 2 and 4: the owner's overview at the script's root and
// counter report, through the built binary.

// statsCSP is the Content-Security-Policy of the statistics pages, which
// the overview keeps.
const statsCSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// overviewWorld makes three counters with days whose sums are known:
//   - alpha: today 3 views (2 visitors, 1 bot), yesterday 5, 3 days ago
//     10, 10 days ago 4, 40 days ago 20: 18 over 7 days against 4, 22
//     over 30 against 20;
//   - beta, behind a password: today 1, 20 days ago 9: 1 over 7 days,
//     10 over 30;
//   - docs, a site: 2 days ago /a 7 and /b 3 views.
func overviewWorld(t *testing.T, db string, now time.Time) {
	t.Helper()
	d, err := store.Open(db, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	created := now.AddDate(0, 0, -60)
	for _, name := range []string{"alpha", "beta"} {
		if err := d.CreateWith(name, 0, created, counter.DefaultSettings()); err != nil {
			t.Fatal(err)
		}
	}
	site, err := counter.NewSite("docs.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CreateWith("docs", 0, created, site); err != nil {
		t.Fatal(err)
	}
	day := func(ago int, views, visitors uint64) counter.Day {
		return counter.Day{Date: now.AddDate(0, 0, -ago).Format(time.DateOnly), Tally: counter.Tally{Views: views, Visitors: visitors}}
	}
	today := day(0, 3, 2)
	today.NotCounted[counter.Bot] = 1
	date := func(ago int) string { return now.AddDate(0, 0, -ago).Format(time.DateOnly) }
	imps := []counter.Imported{
		{Name: "alpha", Days: []counter.Day{day(40, 20, 10), day(10, 4, 4), day(3, 10, 8), day(1, 5, 5), today}},
		{Name: "beta", Days: []counter.Day{day(20, 9, 9), day(0, 1, 1)}},
		{Name: "docs", Days: []counter.Day{day(2, 10, 9)}, PageDays: []counter.PageDay{{Date: date(2), Page: "/a", Views: 7, Visitors: 6}, {Date: date(2), Page: "/b", Views: 3, Visitors: 3}}},
	}
	if _, err := d.Import(imps, store.ImportOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte("beta's own"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SetPasswordHash("beta", hash); err != nil {
		t.Fatal(err)
	}
}

// rootCGI asks the built binary, as a CGI under lighttpd, for the
// script's root with query.
func rootCGI(t *testing.T, db, query string) cgiAnswer {
	t.Helper()
	ans, stderr := runCGI(t, append(hitEnv(t, db), "PATH_INFO=/", "QUERY_STRING="+query,
		"REQUEST_URI=/cgi-bin/counter.cgi/?"+query, "REQUEST_METHOD=GET"))
	if ans.status != 200 {
		t.Logf("stderr: %s", stderr)
	}
	return ans
}

// TestOverviewWithoutOwnerPassword: under a web server, before the owner
// has a password, the root says how to set one and names no counter.
func TestOverviewWithoutOwnerPassword(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	overviewWorld(t, db, time.Now().UTC())
	ans := rootCGI(t, db, "")
	body := string(ans.body)
	if ans.status != 200 || !strings.Contains(body, "counter passwd -owner") || strings.Contains(body, `action="login"`) {
		t.Fatalf("status %d, want 200 and how to set the owner's password:\n%s", ans.status, body)
	}
	for _, name := range []string{"alpha", "beta", "docs", "/a"} {
		if strings.Contains(body, name) {
			t.Errorf("%q on the page without a login:\n%s", name, body)
		}
	}
	if got := ans.header.Get("Content-Security-Policy"); got != statsCSP {
		t.Errorf("Content-Security-Policy %q, want %q", got, statsCSP)
	}
	// Nor does the form of every counter's owner cookie work.
	post, _ := runCGIStdin(t, append(hitEnv(t, db), "PATH_INFO=/owner", "REQUEST_METHOD=POST", "QUERY_STRING=",
		"CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH=8", "HTTP_SEC_FETCH_SITE=same-origin"), "count=no")
	if post.status == 303 || len(post.header.Values("Set-Cookie")) > 0 {
		t.Errorf("POST /owner without a login: status %d, cookies %q", post.status, post.header.Values("Set-Cookie"))
	}
}

// TestOverviewOwnerCGI: under a web server (the built binary as a CGI),
// the overview opens to the owner's session alone, with every counter's
// row, sorted as asked; without a session, or with a counter's own, the
// root is the owner's login form, which names no counter; the form of
// every counter's owner cookie works for the owner alone.
func TestOverviewOwnerCGI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	overviewWorld(t, db, time.Now().UTC())
	if out, code := adminStdin(t, db, "the owner's password\n", "passwd", "-owner"); code != 0 {
		t.Fatalf("passwd -owner: %s", out)
	}
	named := func(body string) []string {
		var found []string
		for _, name := range []string{"alpha", "beta", "docs", "/a"} {
			if strings.Contains(body, name) {
				found = append(found, name)
			}
		}
		return found
	}
	root := cgiCall(t, db, "GET", "/", "192.0.2.50", "", "")
	if root.status != 200 || !strings.Contains(root.body, `<form class="login" method="post" action="login">`) || len(named(root.body)) > 0 {
		t.Errorf("GET / without a login: %d, names %v; want the owner's form and no name:\n%s", root.status, named(root.body), root.body)
	}
	if got := root.header.Get("Content-Security-Policy"); got != statsCSP {
		t.Errorf("the owner's form: Content-Security-Policy %q, want %q", got, statsCSP)
	}
	beta := cgiCall(t, db, "POST", "/beta/login", "192.0.2.51", "", "password=beta's+own").cookieNamed("counter_session")
	if beta == "" {
		t.Fatal("beta's own login set no session")
	}
	if p := cgiCall(t, db, "GET", "/", "192.0.2.51", beta, ""); !strings.Contains(p.body, `action="login"`) || len(named(p.body)) > 0 {
		t.Errorf("GET / with beta's own session: names %v; want the owner's form", named(p.body))
	}
	owner := cgiCall(t, db, "POST", "/login", "192.0.2.50", "", "password=the+owner's+password").cookieNamed("counter_owner_session")
	if owner == "" {
		t.Fatal("the owner's login set no session")
	}
	p := cgiCall(t, db, "GET", "/", "192.0.2.50", owner, "")
	if p.status != 200 || p.header.Get("Content-Security-Policy") != statsCSP || !strings.Contains(p.body, `action="logout"`) {
		t.Fatalf("GET / as the owner: %d, CSP %q, no logout:\n%.500s", p.status, p.header.Get("Content-Security-Policy"), p.body)
	}
	names, rows := overviewRows(t, p.body)
	if got := strings.Join(names, " "); got != "alpha beta docs" {
		t.Errorf("rows %q, want alpha beta docs", got)
	}
	if got, want := strings.Join(rows["alpha"], " "), "3 5 18 +350 % 22 +10 % 19 1"; got != want {
		t.Errorf("alpha's row %q, want %q", got, want)
	}
	if strings.Contains(p.body, "Try them") {
		t.Error("the demo under a web server")
	}
	env := append(hitEnv(t, db), "REQUEST_METHOD=GET", "PATH_INFO=/", "QUERY_STRING=sort=30d&order=asc",
		"REQUEST_URI=/cgi-bin/counter.cgi/?sort=30d&order=asc", "HTTP_COOKIE="+owner)
	sorted, _ := runCGI(t, env)
	if names, _ := overviewRows(t, string(sorted.body)); strings.Join(names, " ") != "beta docs alpha" {
		t.Errorf("?sort=30d&order=asc: rows %q, want beta docs alpha", strings.Join(names, " "))
	}
	if p := cgiCall(t, db, "POST", "/owner", "192.0.2.51", beta, "count=no"); p.status == 303 || len(p.cookies) > 0 {
		t.Errorf("POST /owner with beta's session: %d, cookies %v; want refused", p.status, p.cookies)
	}
	if p := cgiCall(t, db, "POST", "/owner", "192.0.2.50", owner, "count=no"); p.status != 303 || len(p.cookies) != 12 {
		t.Errorf("POST /owner as the owner: %d, %d cookies; want 303 and 4 a counter", p.status, len(p.cookies))
	}
}

// runCGIStdin is runCGI with a request body.
func runCGIStdin(t *testing.T, env []string, body string) (cgiAnswer, string) {
	t.Helper()
	cmd := exec.Command(counterBinary(t))
	cmd.Env = env
	cmd.Stdin = strings.NewReader(body)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("CGI run: %v; stderr %s", err, errOut.String())
	}
	return parseCGI(t, []byte(out.String())), errOut.String()
}

// overviewRow is a counter's row as the page shows it: its cells' text.
var cellText = regexp.MustCompile(`<td[^>]*>(.*?)</td>`)

// overviewRows reads the table of every counter: each row's name and its
// figures, in the order shown.
func overviewRows(t *testing.T, body string) (names []string, rows map[string][]string) {
	t.Helper()
	start, end := strings.Index(body, `<table class="all">`), strings.Index(body, `</table></div>`)
	if start < 0 || end < start {
		t.Fatalf("no table of every counter:\n%s", body)
	}
	rows = map[string][]string{}
	tags := regexp.MustCompile(`<small>.*?</small>|<[^>]+>`)
	for _, tr := range strings.Split(body[start:end], "<tr>")[2:] {
		var cells []string
		for _, m := range cellText.FindAllStringSubmatch(tr, -1) {
			cells = append(cells, strings.ReplaceAll(tags.ReplaceAllString(m[1], ""), "\u2009", ""))
		}
		if len(cells) == 0 {
			continue
		}
		name := strings.TrimSuffix(cells[0], " site")
		names = append(names, name)
		rows[name] = cells[2:] // past the name and the chart
	}
	return names, rows
}

// TestOverviewServe: the local server's root is the overview, without a
// login, above the demo's images and tags: every counter's row with its
// figures, sorted by any column through links, under the statistics
// pages' Content-Security-Policy.
func TestOverviewServe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	overviewWorld(t, db, time.Now().UTC())
	url, _, stderr := startServe(t, t.TempDir(), "-db", db)
	get := func(query string) (int, string, http.Header) {
		t.Helper()
		resp, err := http.Get(url + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	status, body, h := get("")
	if status != 200 {
		t.Fatalf("status %d; %s", status, stderr)
	}
	if got := h.Get("Content-Security-Policy"); got != statsCSP {
		t.Errorf("Content-Security-Policy %q, want %q", got, statsCSP)
	}
	names, rows := overviewRows(t, body)
	if got := strings.Join(names, " "); got != "alpha beta docs" {
		t.Errorf("rows %q, want alpha beta docs", got)
	}
	// today, yesterday, 7 days, change, 30 days, change, visitors, not counted.
	for name, want := range map[string]string{
		"alpha": "3 5 18 +350 % 22 +10 % 19 1",
		"beta":  "1 0 1 new 10 new 10 0",
		"docs":  "0 0 10 new 10 new 9 0",
	} {
		if got := strings.Join(rows[name], " "); got != want {
			t.Errorf("%s: row %q, want %q", name, got, want)
		}
	}
	for _, want := range []string{
		`<td>/a</td><td><a href="docs/stats">docs</a></td><td class="n">7</td>`, // top pages
		"Backup: never", "of its cap of 1.0 GiB", // health
		`<form class="owner" method="post" action="owner">`,                                            // don't count this browser
		`<img src="alpha.png?theme=`, `&lt;img src="/cgi-bin/counter.cgi/docs.png" alt="visitors"&gt;`, // the demo
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q on the page", want)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"?sort=today&order=desc", "alpha beta docs"},
		{"?sort=today&order=asc", "docs beta alpha"},
		{"?sort=7d", "alpha docs beta"}, // largest first on a first click
		{"?sort=30change&order=asc", "alpha beta docs"},
		{"?sort=name&order=desc", "docs beta alpha"},
		{"?sort=notcounted&order=desc", "alpha beta docs"},
	} {
		status, body, _ := get(tc.query)
		names, _ := overviewRows(t, body)
		if got := strings.Join(names, " "); status != 200 || got != tc.want {
			t.Errorf("%s: status %d, rows %q, want %q", tc.query, status, got, tc.want)
		}
	}
	for _, q := range []string{"?sort=password", "?order=up"} {
		if status, body, _ := get(q); status != 400 || strings.Contains(body, "alpha") {
			t.Errorf("%s: status %d, want 400 naming nothing: %q", q, status, body)
		}
	}
}

// TestOwnerEveryCounterServe: the overview's form marks this browser as
// the owner's on every counter at once, and clears every mark.
func TestOwnerEveryCounterServe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	overviewWorld(t, db, time.Now().UTC())
	url, _, _ := startServe(t, t.TempDir(), "-db", db)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		count     string
		wantValue bool
	}{{"no", true}, {"yes", false}} {
		req, _ := http.NewRequest("POST", url+"owner", strings.NewReader("count="+tc.count))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 303 || resp.Header.Get("Location") != "./" {
			t.Errorf("count=%s: status %d, Location %q, want 303 to ./", tc.count, resp.StatusCode, resp.Header.Get("Location"))
		}
		paths := map[string]bool{}
		for _, c := range resp.Cookies() {
			paths[c.Path] = true
			if (c.Value != "") != tc.wantValue || c.Name != "counter_owner" && !strings.HasPrefix(c.Name, "counter") {
				t.Errorf("count=%s: cookie %s=%q on %s", tc.count, c.Name, c.Value, c.Path)
			}
		}
		for _, name := range []string{"alpha", "beta", "docs"} {
			for _, p := range []string{"/" + name + ".png", "/" + name + ".gif", "/" + name + ".svg", "/" + name + "/"} {
				if !paths[p] {
					t.Errorf("count=%s: no cookie on %s (got %v)", tc.count, p, paths)
				}
			}
		}
	}
}

// TestReport: counter report's figures against the period before, the
// top pages, and what to act on; -days out of bounds is a usage error;
// a backup is noted and no longer asked for.
func TestReport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	overviewWorld(t, db, time.Now().UTC())
	out, err := adminRun(t, db, "report")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	for _, want := range []string{
		"the last 7 day(s)",
		"\nalpha: 18 views (+350 % on 4), 15 visitors (+275 % on 4)\n  not counted: 1 bots\n",
		"\nbeta: 1 view (none before), 1 visitor (none before)\n",
		"\ndocs (site): 10 views (none before), 9 visitors (none before)\n  top pages: /a 7, /b 3\n",
		"- backup: never made",
		"\nAll 3 counters: 29 views (+625 % on 4), 25 visitors (+525 % on 4).\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the report:\n%s", want, out)
		}
	}
	out, err = adminRun(t, db, "report", "-days", "30")
	if want := "\nalpha: 22 views (+10 % on 20)"; err != nil || !strings.Contains(out, want) {
		t.Errorf("report -days 30: %v, no %q in\n%s", err, want, out)
	}
	for _, days := range []string{"0", "91"} {
		out, err := adminRun(t, db, "report", "-days", days)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("report -days %s: %v, want exit 2\n%s", days, err, out)
		}
	}
	if out, err := adminRun(t, db, "backup", filepath.Join(t.TempDir(), "copy.db")); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	if out, _ := adminRun(t, db, "report"); strings.Contains(out, "backup:") {
		t.Errorf("a backup was made, the report still asks for one:\n%s", out)
	}
}

package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// statsPassword has a space and letters beyond ASCII, so that the form
// encoding is exercised on its way through the server.
const statsPassword = "staple horse 7 Ünï"

// wrongPasswords are refused logins: a near miss, and one past bcrypt's
// 72 bytes that never reaches bcrypt. Each must log one "login failed".
var wrongPasswords = []string{"staple horse 8 Ünï", strings.Repeat("x", 73)}

// statsHits is how many hits the tests count before looking at the page.
const statsHits = 3

func TestServerStatsAndLogin(t *testing.T) {
	const name = "st"
	seen := map[string]*[]string{} // what each server answered, step by step
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		c := newStatsClient(srv.URL)
		seen[srv.Name] = c.seen
		admin(t, cgiDir, dbPath, "create", name, "reload=off") // one client, every hit counts
		countHits(t, srv.URL, name, statsHits)

		resp, body := c.do(t, "GET", "/cgi-bin/counter.cgi/"+name+"/stats", nil, nil)
		if err := checkStatsPage(resp, body, statsHits); err != nil {
			t.Errorf("public page: %v", err)
		}

		out := adminStdin(t, cgiDir, dbPath, strings.NewReader(statsPassword+"\n"), "passwd", name)
		if strings.Contains(out, statsPassword) {
			t.Errorf("passwd printed the password: %q", out)
		}

		var session *http.Cookie
		wrong := 0
		base := "/cgi-bin/counter.cgi/" + name
		t.Run("login form", func(t *testing.T) {
			resp, body := c.do(t, "GET", base+"/stats", nil, nil)
			if err := checkLoginPage(resp, body, http.StatusOK, ""); err != nil {
				t.Error(err)
			}
			if strings.Contains(body, `class="chart"`) {
				t.Error("the login form shows the chart")
			}
		})
		t.Run("exports need a login", func(t *testing.T) {
			for _, p := range []string{"/stats.csv", "/stats.json"} {
				if resp, body := c.do(t, "GET", base+p, nil, nil); resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "date") {
					t.Errorf("GET %s without a session: got %d %.80q, want 401 and no history", p, resp.StatusCode, body)
				}
			}
		})
		t.Run("wrong passwords", func(t *testing.T) {
			for _, pw := range wrongPasswords {
				wrong++
				resp, body := c.do(t, "POST", base+"/login", url.Values{"password": {pw}}, nil)
				if err := checkLoginPage(resp, body, http.StatusUnauthorized, "Wrong password."); err != nil {
					t.Errorf("password of %d bytes: %v", len(pw), err)
				}
			}
		})
		t.Run("cross-site post refused", func(t *testing.T) {
			// With the form's body, which the CGI never reads: Apache's
			// mod_cgid cut such answers short until the CGI drained it.
			resp, _ := c.do(t, "POST", base+"/login", url.Values{"password": {statsPassword}}, nil,
				"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
			if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
				t.Errorf("cross-site login: got %d with cookies %v, want 403 and none", resp.StatusCode, resp.Cookies())
			}
		})
		t.Run("megabyte body refused whole", func(t *testing.T) {
			resp, _ := c.do(t, "POST", base+"/login", url.Values{"password": {strings.Repeat("a", 1<<20)}}, nil)
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("1 MiB login: got %d, want 413", resp.StatusCode)
			}
		})
		t.Run("login", func(t *testing.T) {
			resp, _ := c.do(t, "POST", base+"/login", url.Values{"password": {statsPassword}}, nil)
			var err error
			if session, err = checkLoginRedirect(resp, base+"/"); err != nil {
				t.Fatal(err)
			}
		})
		if session == nil {
			t.FailNow()
		}
		t.Run("stats page", func(t *testing.T) {
			resp, body := c.do(t, "GET", base+"/stats", nil, session)
			if err := checkStatsPage(resp, body, statsHits); err != nil {
				t.Error(err)
			}
			if !strings.Contains(body, `action="logout"`) {
				t.Error("protected page has no logout form")
			}
		})
		t.Run("exports", func(t *testing.T) {
			resp, body := c.do(t, "GET", base+"/stats.csv", nil, session)
			if err := checkCSV(resp, body, statsHits); err != nil {
				t.Error(err)
			}
			resp, body = c.do(t, "GET", base+"/stats.json", nil, session)
			if err := checkJSON(resp, body, name, statsHits); err != nil {
				t.Error(err)
			}
		})
		t.Run("owner cookie", func(t *testing.T) {
			resp, _ := c.do(t, "POST", base+"/owner", url.Values{"count": {"no"}}, nil)
			if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
				t.Errorf("owner without a session: got %d with cookies %v, want 401 and none", resp.StatusCode, resp.Cookies())
			}
			for _, count := range []string{"no", "yes"} {
				resp, _ := c.do(t, "POST", base+"/owner", url.Values{"count": {count}}, session)
				var paths []string
				for _, ck := range resp.Cookies() {
					if ck.Name == "counter_owner" && ck.HttpOnly && ck.SameSite == http.SameSiteLaxMode && (ck.Value != "") == (count == "no") {
						paths = append(paths, ck.Path)
					}
				}
				want := []string{base + ".png", base + ".gif", base + ".svg", base + "/"}
				if resp.StatusCode != http.StatusSeeOther || !slices.Equal(paths, want) {
					t.Errorf("count=%s: got %d with Set-Cookie %q, want 303 and counter_owner at %q", count, resp.StatusCode, resp.Header.Values("Set-Cookie"), want)
				}
			}
		})
		t.Run("logout", func(t *testing.T) {
			resp, _ := c.do(t, "POST", base+"/logout", url.Values{}, session)
			cookies := resp.Cookies()
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "stats" {
				t.Errorf("logout: got %d Location %q, want 303 \"stats\"", resp.StatusCode, resp.Header.Get("Location"))
			}
			if len(cookies) != 1 || cookies[0].Name != "counter_session" || cookies[0].Value != "" ||
				cookies[0].MaxAge >= 0 || cookies[0].Path != base+"/" {
				t.Errorf("logout: got cookies %v, want counter_session emptied, expired, Path %q", cookies, base+"/")
			}
		})

		// Through the alias and the rewrite, the cookie must be scoped to
		// the path that the browser used, and the relative Location must
		// bring it back to that path, where a cookie jar sends the cookie.
		for _, mount := range []string{"/hits/counter.cgi", "/counter"} {
			t.Run("via "+mount, func(t *testing.T) {
				login := mount + "/" + name + "/login"
				wrong++
				resp, body := c.do(t, "POST", login, url.Values{"password": {wrongPasswords[0]}}, nil)
				if err := checkLoginPage(resp, body, http.StatusUnauthorized, "Wrong password."); err != nil {
					t.Error(err)
				}
				resp, _ = c.do(t, "POST", login, url.Values{"password": {statsPassword}}, nil)
				cookie, err := checkLoginRedirect(resp, mount+"/"+name+"/")
				if err != nil {
					t.Fatal(err)
				}
				next, err := resp.Location()
				if err != nil || next.Path != mount+"/"+name+"/stats" {
					t.Fatalf("Location %q from %s: leads to %v (%v), want %s", resp.Header.Get("Location"), login, next, err, mount+"/"+name+"/stats")
				}
				jar, _ := cookiejar.New(nil)
				jar.SetCookies(resp.Request.URL, []*http.Cookie{cookie})
				browser := &http.Client{Jar: jar, Timeout: 20 * time.Second}
				resp, page, err := get(context.Background(), browser, http.MethodGet, next.String())
				if err != nil {
					t.Fatal(err)
				}
				if err := checkStatsPage(resp, string(page), statsHits); err != nil {
					t.Errorf("GET %s with the jar: %v", next.Path, err)
				}
			})
		}

		t.Run("stderr", func(t *testing.T) {
			log, err := srv.CGIStderr()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(log, "login failed"); got != wrong {
				t.Errorf("got %d \"login failed\" lines, want %d, one per wrong password; stderr:\n%s", got, wrong, log)
			}
			for _, pw := range append([]string{statsPassword}, wrongPasswords...) {
				if strings.Contains(log, pw) || strings.Contains(log, url.QueryEscape(pw)) {
					t.Errorf("stderr holds a password (%d bytes):\n%s", len(pw), log)
				}
			}
		})
	})

	// The same requests, so the same answers, whichever set-up runs the
	// binary.
	lt := seen["lighttpd"]
	if lt == nil {
		return // lighttpd skipped
	}
	for name, other := range seen {
		for i := range max(len(*lt), len(*other)) {
			if l, o := at(*lt, i), at(*other, i); !sameAnswer(l, o) {
				t.Errorf("step %d: lighttpd answered %s\n\t%s answered %s", i+1, l, name, o)
			}
		}
	}
}

// sameAnswer reports whether two set-ups answered a step alike. A body
// too large may be refused by the server itself, with a page of its own,
// before the counter sees the request (Apache with mod_fcgid, whose
// LimitRequestBody keeps the body off the disk): there the status is
// what must agree.
func sameAnswer(a, b string) bool {
	if a == b {
		return true
	}
	ra, _, _ := strings.Cut(a, ` "`) // "POST /path: 413"
	rb, _, _ := strings.Cut(b, ` "`)
	return ra == rb && strings.HasSuffix(ra, ": 413")
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "nothing"
}

// statsClient sends the requests of a login as a browser would, but
// without following redirects or keeping cookies, so that each answer can
// be checked as sent. It notes each answer's status, type, Location and
// cookie attributes (less the value) to compare the servers with.
type statsClient struct {
	base string
	http *http.Client
	seen *[]string
}

func newStatsClient(base string) *statsClient {
	return &statsClient{base: base, seen: new([]string), http: &http.Client{
		Timeout:       20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// do sends a request to path; a form is posted as a browser posts it from
// the same origin. hdr are header names and values to set after that.
func (c *statsClient) do(t *testing.T, method, path string, form url.Values, cookie *http.Cookie, hdr ...string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", c.base)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if cookie != nil {
		req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	var cookies []string
	for _, ck := range resp.Cookies() {
		cookies = append(cookies, fmt.Sprintf("%s(empty=%t path=%s max-age=%d httponly=%t samesite=%d secure=%t)",
			ck.Name, ck.Value == "", ck.Path, ck.MaxAge, ck.HttpOnly, ck.SameSite, ck.Secure))
	}
	*c.seen = append(*c.seen, fmt.Sprintf("%s %s: %d %q Location %q cookies %v",
		method, path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Location"), cookies))
	return resp, string(b)
}

// countHits counts n hits on the counter through the server, each from a
// page of blog.example.
func countHits(t *testing.T, baseURL, name string, n int) {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second}
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/cgi-bin/counter.cgi/"+name+".png", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Referer", "https://blog.example/post")
		req.Header.Set("User-Agent", firefoxUA)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		cancel()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("hit %d on %s: got %d, want 200", i+1, name, resp.StatusCode)
		}
	}
}

// checkLoginPage checks an answer is the login form with status and, if
// not empty, the message.
func checkLoginPage(resp *http.Response, body string, status int, message string) error {
	if resp.StatusCode != status {
		return fmt.Errorf("got status %d, want %d", resp.StatusCode, status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		return fmt.Errorf("got Content-Type %q, want text/html; charset=utf-8", ct)
	}
	if !strings.Contains(body, `action="login"`) || !strings.Contains(body, `name="password"`) {
		return fmt.Errorf("no login form in %.200q", body)
	}
	if message != "" && !strings.Contains(body, message) {
		return fmt.Errorf("no %q in the form", message)
	}
	if c := resp.Header.Values("Set-Cookie"); len(c) != 0 {
		return fmt.Errorf("got Set-Cookie %q, want none", c)
	}
	return nil
}

// checkLoginRedirect checks a successful login's answer and returns its
// session cookie, which must be scoped to path.
func checkLoginRedirect(resp *http.Response, path string) (*http.Cookie, error) {
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "stats" {
		return nil, fmt.Errorf("login: got %d Location %q, want 303 \"stats\"", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The session, and the device cookie that marks the browser as known.
	cookies := resp.Cookies()
	if len(cookies) != 2 || cookies[0].Name != "counter_session" || cookies[0].Value == "" ||
		cookies[1].Name != "counter_device" || cookies[1].Value == "" || cookies[1].Path != path || !cookies[1].HttpOnly {
		return nil, fmt.Errorf("login: got cookies %q, want a counter_session and an HttpOnly counter_device", resp.Header.Values("Set-Cookie"))
	}
	c := cookies[0]
	want := http.Cookie{Path: path, MaxAge: 24 * 60 * 60, HttpOnly: true, SameSite: http.SameSiteStrictMode}
	if c.Path != want.Path || c.MaxAge != want.MaxAge || c.HttpOnly != want.HttpOnly || c.SameSite != want.SameSite || c.Secure {
		return nil, fmt.Errorf("login: got cookie %q, want Path=%s Max-Age=%d HttpOnly SameSite=Strict, not Secure over HTTP",
			resp.Header.Get("Set-Cookie"), want.Path, want.MaxAge)
	}
	return c, nil
}

// checkStatsPage checks an answer is the statistics page of a counter
// with total hits, all from blog.example.
func checkStatsPage(resp *http.Response, body string, total int) error {
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		return fmt.Errorf("got %d %q, want 200 text/html; charset=utf-8", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var missing []string
	for _, want := range []string{`<svg class="chart"`, "<b>" + strconv.Itoa(total) + "</b><span>total</span>", "<td>blog.example</td>"} {
		if !strings.Contains(body, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("page lacks %q", missing)
	}
	if n := strings.Count(body, `<rect class="bar"`); n != 90 {
		return fmt.Errorf("chart has %d bars, want 90", n)
	}
	if strings.Contains(body, `action="login"`) {
		return fmt.Errorf("statistics page shows the login form")
	}
	return nil
}

// exportHeader is the CSV header of the daily history.
const exportHeader = "date,views,visitors,github,reloads,bots,prefetches,owner,foreign,ignored"

// checkCSV checks the daily history in CSV has every column and its views
// add up to total.
func checkCSV(resp *http.Response, body string, total int) error {
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
		return fmt.Errorf("CSV: got %d %q, want 200 text/csv; charset=utf-8", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n")
	if lines[0] != exportHeader {
		return fmt.Errorf("CSV: header %q, want %s", lines[0], exportHeader)
	}
	columns := strings.Count(exportHeader, ",") + 1
	sum := 0
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if _, err := time.Parse(time.DateOnly, f[0]); err != nil || len(f) != columns {
			return fmt.Errorf("CSV: bad line %q", l)
		}
		for _, v := range f[1:] {
			if _, err := strconv.ParseUint(v, 10, 64); err != nil {
				return fmt.Errorf("CSV: bad line %q", l)
			}
		}
		n, _ := strconv.Atoi(f[1])
		sum += n
	}
	if sum != total {
		return fmt.Errorf("CSV: days add up to %d views, want %d:\n%s", sum, total, body)
	}
	return nil
}

// checkJSON checks the daily history in JSON has the counter's figures and
// its views add up to total.
func checkJSON(resp *http.Response, body, name string, total int) error {
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		return fmt.Errorf("JSON: got %d %q, want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	type day struct {
		Date  string
		Views int
	}
	var got struct {
		Name         string
		Show         string
		Total        int
		Visitors     *int
		TalliedSince *string `json:"tallied_since"`
		Days         []day
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		return fmt.Errorf("JSON: %v in %q", err, body)
	}
	sum := 0
	for _, d := range got.Days {
		sum += d.Views
	}
	if got.Name != name || got.Show != "views" || got.Visitors == nil || got.TalliedSince == nil || got.Total != total || sum != total || !slices.IsSortedFunc(got.Days, func(a, b day) int { return strings.Compare(a.Date, b.Date) }) {
		return fmt.Errorf("JSON: got %s, want name %q, total %d and days in order adding up to it", body, name, total)
	}
	return nil
}

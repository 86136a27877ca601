package web

import (
	"hitcounter/cgi/guard"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/counter"
	"hitcounter/store"
)

const testPassword = "correct horse"

// protect stores a hash of testPassword at cost for counter name.
func protect(t *testing.T, a *App, name string, cost int) []byte {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(testPassword), cost)
	if err != nil {
		t.Fatal(err)
	}
	setHash(t, a, name, hash)
	return hash
}

func setHash(t *testing.T, a *App, name string, hash []byte) {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetPasswordHash(name, hash); err != nil {
		t.Fatal(err)
	}
}

func storedHash(t *testing.T, a *App, name string) []byte {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	info, err := db.Counter(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.PasswordHash
}

// countVerify makes a count every run of the password check.
func countVerify(a *App) *atomic.Int32 {
	var n atomic.Int32
	real := a.verify
	a.verify = func(hash, pw []byte) (bool, bool, error) {
		n.Add(1)
		return real(hash, pw)
	}
	return &n
}

// login posts the form as a same-origin browser would.
func login(a *App, name, password string, header ...string) *httptest.ResponseRecorder {
	body := url.Values{"password": {password}}.Encode()
	r := httptest.NewRequest("POST", "/"+name+"/login", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	return w
}

func sessionOf(t *testing.T, w *httptest.ResponseRecorder) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	t.Fatalf("no session cookie in %v", w.Header())
	return nil
}

func isLoginForm(w *httptest.ResponseRecorder) bool {
	return strings.Contains(w.Body.String(), `action="login"`) && !strings.Contains(w.Body.String(), "<svg")
}

func TestPublicStats(t *testing.T) {
	a, _ := testApp(t, "page")
	db, _ := store.Open(a.cfg.DB, store.Options{})
	for i, ref := range []string{"a.example", "a.example", "b.example", ""} {
		db.Hit("page", testNow.AddDate(0, 0, -i), ref)
	}
	db.Close()
	w := serve(a, "GET", "/page/stats")
	body := w.Body.String()
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, type %q", w.Code, w.Header().Get("Content-Type"))
	}
	for _, want := range []string{
		"<h1>page</h1>", `<b>4</b><span>total</span>`, `<b>1</b><span>today</span>`,
		`<b>4</b><span>last 7 days</span>`, "First hit on 2026-05-01.",
		`<svg class="chart"`, "<title>2026-05-04: 1 view, 0 visitors</title>", "<td>a.example</td><td class=\"n\">2</td>",
		`href="stats.csv"`, `href="stats.json"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Count(body, `<rect class="bar"`) != counter.ChartDays {
		t.Errorf("chart has %d bars, want %d", strings.Count(body, `<rect class="bar"`), counter.ChartDays)
	}
	if strings.Contains(body, "<script") || strings.Contains(body, "Log out") {
		t.Errorf("public page has a script or a logout button")
	}
	csp := w.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

func TestStatsEscapesWhatVisitorsSent(t *testing.T) {
	a, _ := testApp(t, "page")
	db, _ := store.Open(a.cfg.DB, store.Options{})
	// ReferrerHost never lets these through; stored anyway (an old file,
	// a bug), the page must still show them as text.
	for _, ref := range []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, "javascript:alert(1)"} {
		db.Hit("page", testNow, ref)
	}
	db.Close()
	body := serve(a, "GET", "/page/stats").Body.String()
	// The page's own images (its looks) are <img> too: look for the ones sent.
	for _, bad := range []string{"<script>", "<img src=x", `"><img src=x`} {
		if strings.Contains(body, bad) {
			t.Errorf("page contains %q unescaped", bad)
		}
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(body, "javascript:alert(1)</td>") {
		t.Errorf("the referrers are not shown escaped")
	}
	if strings.Contains(body, `href="javascript`) {
		t.Errorf("a referrer became a link")
	}
}

func TestLoginAndSessions(t *testing.T) {
	a, logs := testApp(t, "page", "other")
	protect(t, a, "page", bcrypt.MinCost)
	protect(t, a, "other", bcrypt.MinCost)
	runs := countVerify(a)

	if w := serve(a, "GET", "/page/stats"); w.Code != 200 || !isLoginForm(w) {
		t.Fatalf("protected stats without a session: %d, want the login form", w.Code)
	}
	if w := serve(a, "GET", "/page/stats.csv"); w.Code != http.StatusUnauthorized {
		t.Errorf("export without a session: %d, want 401", w.Code)
	}

	w := login(a, "page", "wrong")
	if w.Code != http.StatusUnauthorized || !isLoginForm(w) || !strings.Contains(w.Body.String(), loginFailed) {
		t.Errorf("wrong password: %d, want 401 with the form and %q", w.Code, loginFailed)
	}
	if len(w.Result().Cookies()) != 0 {
		t.Errorf("wrong password set a cookie")
	}
	if !strings.Contains(logs.String(), `login failed: counter="page" client=192.0.2.1`) {
		t.Errorf("log %q lacks the failed login", logs.String())
	}

	w = login(a, "page", testPassword)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "stats" {
		t.Fatalf("right password: %d to %q, want 303 to stats", w.Code, w.Header().Get("Location"))
	}
	c := sessionOf(t, w)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/page/" || c.Secure || c.MaxAge <= 0 {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/page/, not Secure over plain HTTP", c)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("bcrypt ran %d times for two logins", n)
	}

	withCookie := func(target string, c *http.Cookie) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", target, nil)
		r.AddCookie(c)
		w := httptest.NewRecorder()
		a.Handler().ServeHTTP(w, r)
		return w
	}
	if w := withCookie("/page/stats", c); w.Code != 200 || isLoginForm(w) || !strings.Contains(w.Body.String(), "Log out") {
		t.Errorf("stats with a session: %d, login form %v", w.Code, isLoginForm(w))
	}
	if w := withCookie("/page/stats.json", c); w.Code != 200 || !strings.HasPrefix(w.Body.String(), `{"name":"page","show":"views","total":0,"visitors":0,"created":"`) ||
		!strings.HasSuffix(w.Body.String(), `","days":[],"referrers":[]}`+"\n") {
		t.Errorf("export with a session: %d %q", w.Code, w.Body.String())
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("bcrypt ran for a request with a valid session (%d runs)", n)
	}

	forged := func(f func(*http.Cookie)) *http.Cookie { x := *c; f(&x); return &x }
	refused := []struct {
		name   string
		target string
		cookie *http.Cookie
		setup  func()
	}{
		{"tampered MAC", "/page/stats", forged(func(x *http.Cookie) { x.Value = tamperMAC(x.Value) }), nil},
		{"tampered expiry", "/page/stats", forged(func(x *http.Cookie) {
			parts := strings.Split(x.Value, ".")
			x.Value = parts[0] + "." + itoa(int(testNow.Add(time.Hour).Unix())) + "." + parts[2]
		}), nil},
		{"another counter's", "/other/stats", c, nil},
		{"garbage", "/page/stats", forged(func(x *http.Cookie) { x.Value = strings.Repeat("A.", 200) }), nil},
		{"expired", "/page/stats", c, func() { a.cfg.Now = func() time.Time { return testNow.Add(sessionLifetime + time.Second) } }},
		{"from before a password change", "/page/stats", c, func() {
			a.cfg.Now = func() time.Time { return testNow }
			protect(t, a, "page", bcrypt.MinCost)
		}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			if w := withCookie(tc.target, tc.cookie); !isLoginForm(w) {
				t.Errorf("%s cookie: got the statistics, want the login form", tc.name)
			}
		})
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("checking cookies ran bcrypt (%d runs)", n)
	}

	// Logging out drops the cookie; clearing the password opens the page.
	r := httptest.NewRequest("POST", "/page/logout", nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w = httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	if out := sessionOf(t, w); w.Code != http.StatusSeeOther || out.MaxAge >= 0 || out.Value != "" {
		t.Errorf("logout: %d, cookie %+v; want 303 and an expired cookie", w.Code, out)
	}
	setHash(t, a, "page", nil)
	if w := serve(a, "GET", "/page/stats"); isLoginForm(w) {
		t.Errorf("cleared password still asks for one")
	}
}

func TestLoginNeverRunsBcryptInVain(t *testing.T) {
	tests := []struct {
		name     string
		password string
		header   []string
		status   int
	}{
		{"73 bytes", strings.Repeat("x", 73), nil, http.StatusUnauthorized},
		{"empty", "", nil, http.StatusUnauthorized},
		{"cross-site", testPassword, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"foreign origin", testPassword, []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}, http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := testApp(t, "page")
			protect(t, a, "page", bcrypt.MinCost)
			runs := countVerify(a)
			w := login(a, "page", tc.password, tc.header...)
			if w.Code != tc.status || runs.Load() != 0 {
				t.Errorf("status %d after %d bcrypt runs, want %d after none", w.Code, runs.Load(), tc.status)
			}
		})
	}
	t.Run("public counter", func(t *testing.T) {
		a, _ := testApp(t, "page")
		runs := countVerify(a)
		if w := login(a, "page", testPassword); w.Code != http.StatusSeeOther || runs.Load() != 0 {
			t.Errorf("login to public stats: %d after %d bcrypt runs, want 303 after none", w.Code, runs.Load())
		}
	})
}

func TestLoginBodyIsBounded(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	runs := countVerify(a)
	body := "password=" + strings.Repeat("a", 1<<20)
	r := httptest.NewRequest("POST", "/page/login", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge || runs.Load() != 0 {
		t.Errorf("1 MiB login: %d after %d bcrypt runs, want 413 after none", w.Code, runs.Load())
	}
}

// TestLoginUpgradesHashCost: a hash of another cost (PHP's default is 12)
// is replaced by one at cost 10 after the first good login, and the new
// session is bound to the new hash.
func TestLoginUpgradesHashCost(t *testing.T) {
	a, _ := testApp(t, "page")
	old := protect(t, a, "page", 11)
	w := login(a, "page", testPassword)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("login: %d", w.Code)
	}
	h := storedHash(t, a, "page")
	if cost, _ := bcrypt.Cost(h); cost != counter.PasswordCost || string(h) == string(old) {
		t.Errorf("stored hash has cost %d after the login, want %d", cost, counter.PasswordCost)
	}
	r := httptest.NewRequest("GET", "/page/stats", nil)
	r.AddCookie(sessionOf(t, w))
	w2 := httptest.NewRecorder()
	a.Handler().ServeHTTP(w2, r)
	if isLoginForm(w2) {
		t.Errorf("the session from the upgrading login is not valid")
	}
	// A cost-10 hash is left as it is.
	before := storedHash(t, a, "page")
	login(a, "page", testPassword)
	if string(storedHash(t, a, "page")) != string(before) {
		t.Errorf("a cost-10 hash was rewritten on login")
	}
}

// TestRehashRunsOutsideTheDatabase: the bcrypt that upgrades a hash runs
// with the database free for the hits, and inside the login's bcrypt slot.
func TestRehashRunsOutsideTheDatabase(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", 11)
	runs := 0
	a.hash = func(pw []byte) ([]byte, error) {
		runs++
		db, err := store.Open(a.cfg.DB, store.Options{Wait: 50 * time.Millisecond})
		if err != nil {
			t.Errorf("a hit while the hash is made: got %v, want the database free", err)
		} else {
			db.Close()
		}
		if release, err := (guard.Slots{Dir: a.proc.Run, N: a.cfg.BcryptSlots}).Acquire(); err == nil {
			release()
			t.Errorf("the hash is made outside the login's bcrypt slot")
		}
		return counter.HashPassword(pw)
	}
	if w := login(a, "page", testPassword); w.Code != http.StatusSeeOther {
		t.Fatalf("login: got %d, want 303", w.Code)
	}
	if cost, _ := bcrypt.Cost(storedHash(t, a, "page")); runs != 1 || cost != counter.PasswordCost {
		t.Errorf("got %d rehash runs and a stored cost of %d, want 1 and %d", runs, cost, counter.PasswordCost)
	}
}

func TestTooCostlyHashIsNeverRun(t *testing.T) {
	a, logs := testApp(t, "page")
	// A syntactically valid cost-13 hash; its digest does not matter.
	setHash(t, a, "page", []byte("$2y$13$abcdefghijklmnopqrstuu5Lv3Gcz/yN6QGw8iQk1Gq1YCTl0bTWa"))
	w := login(a, "page", testPassword)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", w.Code)
	}
	if !strings.Contains(logs.String(), "counter passwd page") {
		t.Errorf("log %q does not tell the owner to set a new password", logs.String())
	}
}

// TestOnlyStatsAndLoginAreHTML walks every route with good and bad input:
// only the statistics and login pages (the owner's at the root too) may be
// text/html.
func TestOnlyStatsAndLoginAreHTML(t *testing.T) {
	a, _ := testApp(t, "page", "locked")
	protect(t, a, "locked", bcrypt.MinCost)
	requests := []struct{ method, target string }{
		{"GET", "/page.png"}, {"GET", "/page.svg"}, {"GET", "/page.json"}, {"GET", "/nope.png"},
		{"GET", "/page.txt"}, {"POST", "/logout"}, {"GET", "/logout"}, {"PUT", "/login"}, {"GET", "/page"}, {"GET", "/page/"}, {"GET", "/nope/stats"},
		{"GET", "/-bad/stats"}, {"GET", "/page/stats.csv"}, {"GET", "/page/stats.json"},
		{"GET", "/locked/stats.csv"}, {"GET", "/page/login"}, {"POST", "/page/stats"},
		{"POST", "/page/login"}, {"POST", "/page/logout"}, {"POST", "/page/owner"}, {"GET", "/page/owner"},
		{"POST", "/locked/owner"}, {"GET", "//page/stats"},
	}
	for _, rq := range requests {
		w := serve(a, rq.method, rq.target)
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			t.Errorf("%s %s answered text/html", rq.method, rq.target)
		}
	}
	for _, target := range []string{"/page/stats", "/locked/stats", "/", "/login"} {
		if ct := serve(a, "GET", target).Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: %q, want text/html", target, ct)
		}
	}
}

// tamperMAC changes the first character of a cookie's MAC to another
// base64 character, so the MAC always differs from the real one and still
// decodes: the cookie is refused for its MAC, not for its spelling.
func tamperMAC(value string) string {
	i := strings.LastIndexByte(value, '.') + 1
	c := byte('A')
	if value[i] == c {
		c = 'B'
	}
	return value[:i] + string(c) + value[i+1:]
}

// TestLogoutEndsTheSession: after a logout the same cookie is refused,
// also by a process with an empty runtime directory (after a reboot);
// a logout without a valid session ends no one's session.
func TestLogoutEndsTheSession(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	stats := func(a *App, c *http.Cookie) bool {
		r := httptest.NewRequest("GET", "/page/stats", nil)
		if c != nil {
			r.AddCookie(c)
		}
		w := httptest.NewRecorder()
		a.Handler().ServeHTTP(w, r)
		return !isLoginForm(w)
	}
	logout := func(c *http.Cookie) int {
		r := httptest.NewRequest("POST", "/page/logout", nil)
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		if c != nil {
			r.AddCookie(c)
		}
		w := httptest.NewRecorder()
		a.Handler().ServeHTTP(w, r)
		return w.Code
	}
	c := sessionOf(t, login(a, "page", testPassword))
	if !stats(a, c) {
		t.Fatal("the new session does not open the statistics")
	}
	if code := logout(nil); code != http.StatusSeeOther || !stats(a, c) {
		t.Errorf("a logout without the cookie: got %d and session valid %v, want 303 and the session kept", code, stats(a, c))
	}
	if code := logout(c); code != http.StatusSeeOther {
		t.Fatalf("logout: got %d, want 303", code)
	}
	if stats(a, c) {
		t.Errorf("the cookie still opens the statistics after the logout")
	}
	cfg := *a.cfg
	cfg.RunDir = t.TempDir()
	rebooted := newApp(cfg, a.log)
	if stats(rebooted, c) {
		t.Errorf("the cookie opens the statistics after the logout and a reboot")
	}
	if c2 := sessionOf(t, login(a, "page", testPassword)); !stats(a, c2) {
		t.Errorf("a new login after the logout does not open the statistics")
	}
}

// TestLogoutWhileBusyClearsTheCookie: when the file is held by another
// process, a logout cannot renew the session key, so it says it is busy;
// the browser forgets its cookie all the same.
func TestLogoutWhileBusyClearsTheCookie(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	c := sessionOf(t, login(a, "page", testPassword))
	holder, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	r := httptest.NewRequest("POST", "/page/logout", nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.AddCookie(c)
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	cleared := false
	for _, sc := range w.Result().Cookies() {
		cleared = cleared || (sc.Name == sessionCookie && sc.MaxAge < 0)
	}
	if w.Code != http.StatusServiceUnavailable || !cleared {
		t.Errorf("got %d, cookie cleared %v; want 503 and the cookie cleared", w.Code, cleared)
	}
}

// TestStatsShowsEveryLook: the statistics page shows the count in each
// look without counting (count=0), with its tag, and lets the browser
// load those images from this script only.
func TestStatsShowsEveryLook(t *testing.T) {
	a, _ := testApp(t, "page")
	w := serve(a, "GET", "/page/stats")
	body := w.Body.String()
	for _, look := range counter.LookNames() {
		src := `<img src="../page.png?theme=` + look + `&amp;count=0"`
		if !strings.Contains(body, src) {
			t.Errorf("no %s", src)
		}
		tag := `&lt;img src="/cgi-bin/counter.cgi/page.png?theme=` + look + `" alt="visitors"&gt;`
		if !strings.Contains(body, tag) {
			t.Errorf("no tag %s", tag)
		}
		before := total(t, a, "page")
		if img := serve(a, "GET", "/page.png?theme="+look+"&count=0"); img.Code != 200 {
			t.Errorf("%s: status %d", look, img.Code)
		}
		if after := total(t, a, "page"); after != before {
			t.Errorf("%s with count=0 counted: %d, was %d", look, after, before)
		}
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

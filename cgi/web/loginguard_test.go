package web

import (
	"hitcounter/cgi/rundir"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestBcryptCapUnderConcurrentLogins starts 20 logins at once with one
// slot: at most one password check runs at a time, and the others get a
// 429 without queueing. The check that holds the slot does not finish
// until every other login has been answered, so a refusal that waited for
// the slot would hang the test instead of passing slowly; how long the
// refusals took is logged, not asserted, as timings are noisy here.
func TestBcryptCapUnderConcurrentLogins(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	const logins = 20
	var running, peak, runs atomic.Int32
	answered := make(chan struct{}, logins)
	a.verify = func(hash, pw []byte) (bool, bool, error) {
		runs.Add(1)
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer running.Add(-1)
		timeout := time.After(10 * time.Second)
		for range logins - 1 {
			select {
			case <-answered:
			case <-timeout:
				t.Error("the other logins were not answered while a check held the slot: they queued")
				return false, false, nil
			}
		}
		return false, false, nil
	}
	type result struct {
		status int
		took   time.Duration
		retry  string
	}
	results := make([]result, logins)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range logins {
		wg.Go(func() {
			<-start
			t0 := time.Now()
			w := login(a, "page", "wrong")
			results[i] = result{w.Code, time.Since(t0), w.Header().Get("Retry-After")}
			if w.Code == http.StatusTooManyRequests {
				answered <- struct{}{}
			}
		})
	}
	close(start)
	wg.Wait()
	if p := peak.Load(); p != 1 || runs.Load() != 1 {
		t.Errorf("%d checks ran, %d at once; want 1 and 1", runs.Load(), p)
	}
	var slowest time.Duration
	refused := 0
	for _, r := range results {
		switch r.status {
		case http.StatusTooManyRequests:
			refused++
			slowest = max(slowest, r.took)
			if r.retry == "" {
				t.Errorf("a 429 without Retry-After")
			}
		case http.StatusUnauthorized:
		default:
			t.Errorf("status %d", r.status)
		}
	}
	if refused != logins-1 {
		t.Errorf("%d logins refused, want %d", refused, logins-1)
	}
	t.Logf("%d logins refused with 429 while one check ran; the slowest refusal took %v", refused, slowest)
}

// TestFailedLoginsAreThrottledPerClient: past the limit a client gets 429
// without bcrypt, while another client, and so the owner, still gets in.
func TestFailedLoginsAreThrottledPerClient(t *testing.T) {
	a, logs := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	runs := countVerify(a)
	for i := range failuresPerMinute {
		if w := login(a, "page", "wrong"); w.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, w.Code)
		}
	}
	before := runs.Load()
	db := a.cfg.DB
	a.cfg.DB = filepath.Join(t.TempDir(), "absent.db") // a throttled login never opens it
	w := login(a, "page", testPassword)                // even the right one, from this client
	a.cfg.DB = db
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "60" || runs.Load() != before {
		t.Errorf("over the limit: %d, Retry-After %q, %d more checks; want 429, 60, none",
			w.Code, w.Header().Get("Retry-After"), runs.Load()-before)
	}
	if !strings.Contains(logs.String(), `login throttled: counter="page" client=192.0.2.1`) {
		t.Errorf("log lacks the throttled line: %q", logs.String())
	}
	r := httptest.NewRequest("POST", "/page/login", strings.NewReader("password="+strings.ReplaceAll(testPassword, " ", "+")))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = "198.51.100.9:4444"
	w = httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther {
		t.Errorf("another client: %d, want 303", w.Code)
	}
	a.cfg.Now = func() time.Time { return testNow.Add(61 * time.Second) }
	if w := login(a, "page", testPassword); w.Code != http.StatusSeeOther {
		t.Errorf("a minute later: %d, want 303", w.Code)
	}
}

// TestThrottleHoldsUnderConcurrentTries sends one client's wrong
// passwords many at a time, with several bcrypt slots, as a long-lived
// FastCGI process sees them: no more passwords are checked than the limit,
// though tries were let in while others were still being checked.
func TestThrottleHoldsUnderConcurrentTries(t *testing.T) {
	a, _ := testApp(t, "page")
	a.cfg.BcryptSlots = 4
	protect(t, a, "page", bcrypt.MinCost)
	runs := countVerify(a)
	real := a.verify
	a.verify = func(hash, pw []byte) (bool, bool, error) {
		time.Sleep(20 * time.Millisecond) // a slow Pi: others pile up meanwhile
		return real(hash, pw)
	}
	var wg sync.WaitGroup
	for range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			login(a, "page", "wrong")
		}()
	}
	wg.Wait()
	if n := runs.Load(); n > failuresPerMinute {
		t.Errorf("%d passwords checked for one client, over the limit of %d a minute", n, failuresPerMinute)
	}
}

func TestClientAddr(t *testing.T) {
	a, _ := testApp(t)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	tests := []struct {
		peer, xff, want string
	}{
		{"192.0.2.1:1234", "", "192.0.2.1"},
		{"192.0.2.1:1234", "203.0.113.5", "192.0.2.1"}, // not a trusted proxy
		{"10.0.0.1:1234", "203.0.113.5", "203.0.113.5"},
		{"10.0.0.1:1234", "198.51.100.1, 203.0.113.5", "203.0.113.5"}, // the last hop not trusted
		{"10.0.0.1:1234", "203.0.113.5, 10.0.0.1", "203.0.113.5"},
		{"10.0.0.1:1234", "not-an-ip", "10.0.0.1"},
		{"[2001:db8::1]:80", "", "2001:db8::1"},
	}
	for _, tc := range tests {
		r := httptest.NewRequest("POST", "/x/login", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := a.clientAddr(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
}

func TestLoginWithoutRunDirFailsClosed(t *testing.T) {
	a, logs := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	runs := countVerify(a)
	a.proc.Run = rundir.New(filepath.Join(a.cfg.DB, "not-a-dir"), a.cfg.DB, a.log) // under a file: cannot be made
	w := login(a, "page", testPassword)
	if w.Code != http.StatusServiceUnavailable || runs.Load() != 0 {
		t.Errorf("status %d after %d checks, want 503 after none", w.Code, runs.Load())
	}
	// The owner at the form reads where to look; the stranger no path.
	if body := w.Body.String(); !strings.Contains(body, "runtime directory") || !strings.Contains(body, "<form") || strings.Contains(body, a.cfg.DB) {
		t.Errorf("page %q: want the login form, saying the runtime directory is at fault, naming no path", body)
	}
	if !strings.Contains(logs.String(), "runtime directory") {
		t.Errorf("log %q does not name the runtime directory", logs.String())
	}
}

// TestFailedLoginLineCannotBeForged: the fail2ban line carries only a
// checked name and a parsed address, whatever the visitor sent.
func TestFailedLoginLineCannotBeForged(t *testing.T) {
	a, logs := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("192.0.2.1")}
	login(a, "page", "wrong", "X-Forwarded-For", "1.2.3.4\nlogin failed: counter=\"x\" client=9.9.9.9")
	serve(a, "GET", "/pa%0Age/stats")
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(line, "9.9.9.9") {
			t.Errorf("forged address in %q", line)
		}
	}
	if n := strings.Count(logs.String(), "login failed:"); n != 1 {
		t.Errorf("%d failed-login lines, want 1: %q", n, logs.String())
	}
}

// TestPasswordsBcryptCannotCheckNeverLogIn: an empty password and one
// over bcrypt's 72 bytes fail without running bcrypt, as CGI and in a
// long-lived process alike.
func TestPasswordsBcryptCannotCheckNeverLogIn(t *testing.T) {
	for _, longLived := range []bool{false, true} {
		a, _ := testApp(t, "page")
		protect(t, a, "page", bcrypt.MinCost)
		if longLived {
			defer a.longLived()()
		}
		runs := countVerify(a)
		for _, pw := range []string{"", strings.Repeat("x", 73)} {
			if w := login(a, "page", pw); w.Code != http.StatusUnauthorized || sessionCookieIn(w) {
				t.Errorf("long-lived %v, password of %d bytes: %d, want 401 and no session", longLived, len(pw), w.Code)
			}
		}
		if n := runs.Load(); n != 0 {
			t.Errorf("long-lived %v: bcrypt ran %d times", longLived, n)
		}
	}
}

func sessionCookieIn(w *httptest.ResponseRecorder) bool {
	for _, c := range w.Result().Cookies() {
		if c.Name == "counter_session" && c.Value != "" {
			return true
		}
	}
	return false
}

// TestSecureCookieBehindTrustedProxy: behind a TLS-terminating proxy the
// owner trusts, X-Forwarded-Proto: https makes the session cookie Secure;
// from anyone else the header changes nothing.
func TestSecureCookieBehindTrustedProxy(t *testing.T) {
	tests := []struct {
		name, peer string
		proto      []string
		secure     bool
	}{
		{"trusted proxy, https", "10.0.0.1:1234", []string{"https"}, true},
		{"trusted proxy, HTTPS", "10.0.0.1:1234", []string{"HTTPS"}, true},
		{"trusted proxy, http", "10.0.0.1:1234", []string{"http"}, false},
		{"trusted proxy, none", "10.0.0.1:1234", nil, false},
		{"trusted proxy appends to the visitor's", "10.0.0.1:1234", []string{"https, http"}, false},
		{"trusted proxy appends a header", "10.0.0.1:1234", []string{"http", "https"}, true},
		{"untrusted peer, https", "192.0.2.1:1234", []string{"https"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := testApp(t, "page")
			protect(t, a, "page", bcrypt.MinCost)
			a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
			body := url.Values{"password": {testPassword}}.Encode()
			r := httptest.NewRequest("POST", "/page/login", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			r.RemoteAddr = tc.peer
			for _, p := range tc.proto {
				r.Header.Add("X-Forwarded-Proto", p)
			}
			w := httptest.NewRecorder()
			a.Handler().ServeHTTP(w, r)
			if c := sessionOf(t, w); c.Secure != tc.secure {
				t.Errorf("got Secure %v, want %v", c.Secure, tc.secure)
			}
		})
	}
}

package web

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/cgi/guard"
	"hitcounter/store"
)

// holdSlots takes every bcrypt slot of a (the shared ones and the known
// devices' one, or only the shared ones) until the test ends.
func holdSlots(t *testing.T, a *App, devices bool) {
	t.Helper()
	all := []guard.Slots{}
	for range a.cfg.BcryptSlots {
		all = append(all, guard.Slots{Dir: a.proc.Run, N: a.cfg.BcryptSlots})
	}
	if devices {
		all = append(all, guard.Slots{Dir: a.proc.Run, N: 1, Name: deviceSlots})
	}
	for _, s := range all {
		release, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(release)
	}
}

// TestLoginWithASessionChecksNothing: a login from a browser that holds a
// valid session for the counter is answered as a good one (303 to the
// statistics), whatever password it sends, with every bcrypt slot held by
// others, no password checked, no cookie set and no try counted; a
// cross-origin one is still refused. A session that is not valid for the
// counter now (forged, another counter's, expired, ended by a logout or
// a new password) buys nothing: the login goes through the guard as any
// stranger's, which finds every slot held.
func TestLoginWithASessionChecksNothing(t *testing.T) {
	a, _ := testApp(t, "page", "other")
	protect(t, a, "page", bcrypt.MinCost)
	protect(t, a, "other", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	session := sessionOf(t, loginFrom(a, "page", testPassword, "192.0.2.1"))
	otherCounter := sessionOf(t, loginFrom(a, "other", testPassword, "192.0.2.1"))
	runs := countVerify(a)
	holdSlots(t, a, true)

	// More than the client's limit of tries: none is counted.
	for i := range 2 * failuresPerMinute {
		password := []string{"wrong", "", testPassword}[i%3]
		w := loginFrom(a, "page", password, "198.51.100.1", session)
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "stats" || len(w.Result().Cookies()) != 0 {
			t.Fatalf("try %d with password %q: got %d to %q setting %v, want 303 to stats setting nothing", i+1, password, w.Code, w.Header().Get("Location"), w.Result().Cookies())
		}
	}
	if n := runs.Load(); n != 0 {
		t.Errorf("got %d password checks for logins with a session, want 0", n)
	}
	cross := httptest.NewRequest("POST", "/page/login", nil)
	cross.Header.Set("Sec-Fetch-Site", "cross-site")
	cross.AddCookie(session)
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, cross)
	if w.Code != http.StatusForbidden {
		t.Errorf("a cross-site login with the session: got %d, want 403", w.Code)
	}

	forged := func(v string) *http.Cookie { return &http.Cookie{Name: sessionCookie, Value: v} }
	same := func() *http.Cookie { return session }
	tests := []struct {
		name   string
		cookie func() *http.Cookie // evaluated before setup
		setup  func(t *testing.T)
	}{
		{"garbage", func() *http.Cookie { return forged("A.B.C") }, nil},
		{"tampered MAC", func() *http.Cookie { return forged(tamperMAC(session.Value)) }, nil},
		{"another counter's", func() *http.Cookie { return otherCounter }, nil},
		{"expired", same, func(t *testing.T) {
			a.cfg.Now = func() time.Time { return testNow.Add(sessionLifetime + time.Second) }
			t.Cleanup(func() { a.cfg.Now = func() time.Time { return testNow } })
		}},
		{"ended by a logout", same, func(t *testing.T) {
			if err := a.endSessions(door{"page"}); err != nil {
				t.Fatal(err)
			}
		}},
		{"from before a password change", func() *http.Cookie { return signedSession(t, a, "page") }, func(t *testing.T) {
			protect(t, a, "page", bcrypt.MinCost)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cookie()
			if tc.setup != nil {
				if !opensStats(a, "page", c) {
					t.Fatal("the session is not valid before the setup")
				}
				tc.setup(t)
			}
			if w := loginFrom(a, "page", testPassword, "198.51.100.2", c); w.Code != http.StatusTooManyRequests {
				t.Errorf("got %d, want 429 as for any stranger while every slot is held", w.Code)
			}
		})
	}
}

// signedSession is a session for counter name as a login would make it
// now, made without one.
func signedSession(t *testing.T, a *App, name string) *http.Cookie {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key, err := db.SessionKey(name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := db.Counter(name)
	if err != nil {
		t.Fatal(err)
	}
	value := signSession(key, name, a.now().Add(sessionLifetime), info.PasswordHash)
	return &http.Cookie{Name: sessionCookie, Value: value}
}

// opensStats reports whether the statistics of counter name open to a
// browser with cookies.
func opensStats(a *App, name string, cookies ...*http.Cookie) bool {
	r := httptest.NewRequest("GET", "/"+name+"/stats", nil)
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	return w.Code == http.StatusOK && !isLoginForm(w)
}

// TestKnownDeviceWhateverElseItSends: the owner's known browser keeps its
// standing whatever else it sends: a session cookie that is not valid, or
// other device cookies before its own (a stale one from another mount of
// the script, or one a sibling site set on a longer path, both sent
// first). With the shared slot held by a flood it gets in through the
// known devices' slot, its password checked.
func TestKnownDeviceWhateverElseItSends(t *testing.T) {
	a, _ := testApp(t, "page", "other")
	protect(t, a, "page", bcrypt.MinCost)
	protect(t, a, "other", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	first := loginFrom(a, "page", testPassword, "192.0.2.1")
	device, session := deviceOf(t, first), sessionOf(t, first)
	elsewhere := loginFrom(a, "other", testPassword, "192.0.2.1")
	otherDevice, otherSession := deviceOf(t, elsewhere), sessionOf(t, elsewhere)
	runs := countVerify(a)
	holdSlots(t, a, false)

	asDevice := func(v string) *http.Cookie { return &http.Cookie{Name: deviceCookie, Value: v} }
	asSession := func(v string) *http.Cookie { return &http.Cookie{Name: sessionCookie, Value: v} }
	tests := []struct {
		name    string
		cookies []*http.Cookie
	}{
		{"a garbage session", []*http.Cookie{asSession("garbage"), device}},
		{"a forged session", []*http.Cookie{asSession(tamperMAC(session.Value)), device}},
		{"another counter's session", []*http.Cookie{otherSession, device}},
		{"another counter's device first", []*http.Cookie{otherDevice, device}},
		{"a forged device first", []*http.Cookie{asDevice(tamperMAC(device.Value)), device}},
		{"garbage devices first", []*http.Cookie{asDevice("A.B.C"), asDevice("%%%"), device}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if w := loginFrom(a, "page", testPassword, "198.51.100.9", tc.cookies...); w.Code != http.StatusSeeOther {
				t.Errorf("got %d, want 303", w.Code)
			}
		})
	}
	if n := runs.Load(); int(n) != len(tests) {
		t.Errorf("got %d password checks, want %d: none of these holds a valid session", n, len(tests))
	}
}

// TestStatsOpenWithASessionAmongOthers: the statistics page opens to a
// browser whose valid session comes after another cookie of the name.
func TestStatsOpenWithASessionAmongOthers(t *testing.T) {
	a, _ := testApp(t, "page", "other")
	protect(t, a, "page", bcrypt.MinCost)
	protect(t, a, "other", bcrypt.MinCost)
	session := sessionOf(t, login(a, "page", testPassword))
	otherSession := sessionOf(t, login(a, "other", testPassword))
	if !opensStats(a, "page", otherSession, session) {
		t.Error("got the login form, want the statistics")
	}
}

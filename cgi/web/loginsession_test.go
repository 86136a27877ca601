package web

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/cgi/guard"
)

// holdSlots takes every bcrypt slot of a (the shared ones and the known
// devices' one, or only the shared ones) until the test ends.
func holdSlots(t *testing.T, a *App, devices bool) {
	t.Helper()
	all := []guard.Slots{}
	for range a.cfg.BcryptSlots {
		all = append(all, guard.Slots{Dir: a.run, N: a.cfg.BcryptSlots})
	}
	if devices {
		all = append(all, guard.Slots{Dir: a.run, N: 1, Name: deviceSlots})
	}
	for _, s := range all {
		release, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(release)
	}
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

package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/cgi/guard"
)

// loginFrom posts a login as a same-origin browser at addr (forwarded by
// the trusted proxy 10.0.0.1), with the given cookies.
func loginFrom(a *App, name, password, addr string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	body := "password=" + strings.ReplaceAll(password, " ", "+")
	r := httptest.NewRequest("POST", "/"+name+"/login", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.RemoteAddr = "10.0.0.1:4444"
	r.Header.Set("X-Forwarded-For", addr)
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	return w
}

func deviceOf(t *testing.T, w *httptest.ResponseRecorder) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == deviceCookie && c.Value != "" {
			return c
		}
	}
	t.Fatalf("no device cookie in %v", w.Header())
	return nil
}

// TestKnownDeviceGetsInDuringFlood: while strangers from rotating IPv4
// and IPv6 addresses flood the login and another process holds the shared
// bcrypt slot, the owner's browser, which has logged in before, gets in on
// every try; the strangers' tries reach bcrypt no more often than their
// networks' limits allow, and their networks are logged for fail2ban: the
// IPv4 /24, and the /56 of the IPv6 household.
func TestKnownDeviceGetsInDuringFlood(t *testing.T) {
	a, logs := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	device := deviceOf(t, loginFrom(a, "page", testPassword, "192.0.2.1"))
	runs := countVerify(a)

	// The strangers: a new address every 4 tries, within one /24 and one
	// /56 of a /48, with the shared slot free for the first half.
	strangers := map[int]int{}
	flood := func(tries int) {
		for i := range tries {
			addr := fmt.Sprintf("198.51.100.%d", i/4)
			if i%2 == 1 {
				addr = fmt.Sprintf("2001:db8:77:%x::1", i/4)
			}
			strangers[loginFrom(a, "page", "wrong", addr).Code]++
		}
	}
	flood(200)
	release, err := guard.Slots{Dir: a.proc.Run, N: a.cfg.BcryptSlots}.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	// As many logins as a door's known devices have in a minute, right
	// or wrong (TestKnownDevicesRightPasswordsCountToo).
	owner := map[int]int{}
	for range knownPerMinute {
		flood(20)
		owner[loginFrom(a, "page", testPassword, "198.51.100.9", device).Code]++
	}
	t.Logf("strangers: %v; the owner: %v; bcrypt runs for strangers: %d", strangers, owner, int(runs.Load())-owner[http.StatusSeeOther])
	if owner[http.StatusSeeOther] != knownPerMinute {
		t.Errorf("got the owner's logins %v, want %d × 303", owner, knownPerMinute)
	}
	// Each network: at most 15 tries a minute.
	if n := int(runs.Load()) - knownPerMinute; n > 2*15 {
		t.Errorf("got %d bcrypt runs for strangers from 2 networks, want at most %d", n, 2*15)
	}
	for _, want := range []string{`network=198.51.100.0/24`, `network=2001:db8:77::/56`} {
		if !strings.Contains(logs.String(), `login throttled: counter="page" `+want) {
			t.Errorf("log lacks the line naming %s", want)
		}
	}
}

// TestOneAddressNeverBlocksItsNetwork: one address alone is stopped by
// its own limit before its network's, so it can never get its neighbours
// refused or banned.
func TestOneAddressNeverBlocksItsNetwork(t *testing.T) {
	a, logs := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	for range 100 {
		loginFrom(a, "page", "wrong", "198.51.100.1")
	}
	if strings.Contains(logs.String(), "network=") {
		t.Errorf("one address got its network throttled:\n%s", logs.String())
	}
	if w := loginFrom(a, "page", testPassword, "198.51.100.2"); w.Code != http.StatusSeeOther {
		t.Errorf("a neighbour: got %d, want 303", w.Code)
	}
}

// TestDeviceTokenMustBeValid: a device cookie that was not made by a
// login of this counter with its current password counts for nothing.
func TestDeviceTokenMustBeValid(t *testing.T) {
	a, _ := testApp(t, "page", "other")
	protect(t, a, "page", bcrypt.MinCost)
	protect(t, a, "other", bcrypt.MinCost)
	good := deviceOf(t, login(a, "page", testPassword))
	otherCounter := deviceOf(t, login(a, "other", testPassword))
	if _, ok := validDevice(good.Value, "page", storedHash(t, a, "page"), testNow); !ok {
		t.Fatal("a fresh device token is not valid")
	}
	forged := func(v string) *http.Cookie { return &http.Cookie{Name: deviceCookie, Value: v} }
	tests := []struct {
		name   string
		cookie *http.Cookie
		setup  func()
	}{
		{"tampered MAC", forged(tamperMAC(good.Value)), nil},
		{"another counter's", otherCounter, nil},
		{"garbage", forged(strings.Repeat("A.", 100)), nil},
		{"from before a password change", good, func() { protect(t, a, "page", bcrypt.MinCost) }},
	}
	release, err := guard.Slots{Dir: a.proc.Run, N: a.cfg.BcryptSlots}.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			// The shared slot is held: only a known device could get in.
			if w := login(a, "page", testPassword, "Cookie", tc.cookie.String()); w.Code != http.StatusTooManyRequests {
				t.Errorf("got %d, want 429 as for any unknown client", w.Code)
			}
		})
	}
}

// TestNetworkFloodKeepsTheClientTableFree: a flood from many /64s of one
// /48 is refused at its network before its clients are counted, so it
// cannot fill the client table with blocked keys and turn away everyone
// new; its log lines name each household's /56, never the /48 that one
// household with a /56 could reach alone.
func TestNetworkFloodKeepsTheClientTableFree(t *testing.T) {
	a, logs := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	for i := range 300 {
		for range 5 {
			loginFrom(a, "page", "", fmt.Sprintf("2001:db8:1:%x::1", i))
		}
	}
	fi, err := os.Stat(filepath.Join(a.cfg.RunDir, "throttle"))
	if err != nil {
		t.Fatal(err)
	}
	// 16 bytes of key, 8 and 8 of window starts, 4 and 4 of counts.
	const recordSize = 40
	if n := fi.Size() / recordSize; n > 10 {
		t.Errorf("got %d client records after a flood from one /48, want the 3 its network's limit lets in", n)
	}
	if strings.Contains(logs.String(), "network=2001:db8:1::/48") || !strings.Contains(logs.String(), "network=2001:db8:1::/56") {
		t.Errorf("want the network lines to name /56s, never the /48:\n%.2000s", logs.String())
	}
	if w := loginFrom(a, "page", testPassword, "198.51.100.7"); w.Code != http.StatusSeeOther {
		t.Errorf("the owner from another network, after the flood: got %d, want 303", w.Code)
	}
}

// TestKnownDeviceWaitsForItsSlot: with every shared slot held by a flood,
// a known device whose own slot another known device's check holds waits
// for it and gets in when that check ends; held for good, it is refused
// once deviceSlotWait is over, not later. A stranger never takes that
// slot, free or not: it is refused at once.
func TestKnownDeviceWaitsForItsSlot(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	device := deviceOf(t, loginFrom(a, "page", testPassword, "192.0.2.1"))
	hold := func(s guard.Slots) func() {
		t.Helper()
		release, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		return release
	}
	defer hold(guard.Slots{Dir: a.proc.Run, N: a.cfg.BcryptSlots})() // the flood's
	own := guard.Slots{Dir: a.proc.Run, N: 1, Name: deviceSlots}

	start := time.Now()
	if w := loginFrom(a, "page", "wrong", "198.51.100.1"); w.Code != http.StatusTooManyRequests || time.Since(start) > time.Second {
		t.Errorf("a stranger, the devices' slot free: got %d after %v, want 429 at once", w.Code, time.Since(start))
	}

	release := hold(own)
	go func() { time.Sleep(500 * time.Millisecond); release() }()
	start = time.Now()
	w := loginFrom(a, "page", testPassword, "198.51.100.9", device)
	if took := time.Since(start); w.Code != http.StatusSeeOther || took < 400*time.Millisecond {
		t.Errorf("the owner, the devices' slot held for 500ms: got %d after %v, want 303 once it is freed", w.Code, took)
	}

	defer hold(own)()
	start = time.Now()
	w = loginFrom(a, "page", testPassword, "198.51.100.9", device)
	if took := time.Since(start); w.Code != http.StatusTooManyRequests || took < deviceSlotWait || took > deviceSlotWait+2*time.Second {
		t.Errorf("the owner, every slot held for good: got %d after %v, want 429 after %v", w.Code, took, deviceSlotWait)
	}
}

// TestKnownDeviceChecksAtNormalPriority: a stranger's password is checked
// at nice bcryptNice, a known device's at the process's own priority, in a
// CGI process and in a long-lived one, so that a flood of strangers'
// checks and work cannot starve the owner's.
func TestKnownDeviceChecksAtNormalPriority(t *testing.T) {
	for _, longLived := range []bool{false, true} {
		a, _ := testApp(t, "page")
		protect(t, a, "page", bcrypt.MinCost)
		a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
		if longLived {
			defer a.longLived()()
		}
		device := deviceOf(t, loginFrom(a, "page", testPassword, "192.0.2.1"))
		var nice int
		real := a.verify
		a.verify = func(hash, pw []byte) (bool, bool, error) {
			nice = niceOfThread(t)
			return real(hash, pw)
		}
		if w := loginFrom(a, "page", "wrong", "198.51.100.1"); w.Code != http.StatusUnauthorized || nice != bcryptNice {
			t.Errorf("long-lived %v, a stranger: got %d checked at nice %d, want 401 at %d", longLived, w.Code, nice, bcryptNice)
		}
		if w := loginFrom(a, "page", testPassword, "198.51.100.9", device); w.Code != http.StatusSeeOther || nice == bcryptNice {
			t.Errorf("long-lived %v, the owner's known browser: got %d checked at nice %d, want 303 at the process's own", longLived, w.Code, nice)
		}
	}
}

// TestKnownDevicesOfACounterAreThrottledTogether: whoever knows a
// counter's password can make it as many known devices as he likes, but
// together they get knownPerMinute tries, so they cannot keep the known
// devices' slot busy; another counter's owner still gets in at once.
func TestKnownDevicesOfACounterAreThrottledTogether(t *testing.T) {
	a, _ := testApp(t, "page", "other")
	protect(t, a, "page", bcrypt.MinCost)
	protect(t, a, "other", bcrypt.MinCost)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	var devices []*http.Cookie
	for i := range 3 {
		devices = append(devices, deviceOf(t, loginFrom(a, "page", testPassword, fmt.Sprintf("198.51.100.%d", i+1))))
	}
	owner := deviceOf(t, loginFrom(a, "other", testPassword, "192.0.2.1"))
	runs := countVerify(a)
	got := map[int]int{}
	for range failuresPerMinute {
		for i, d := range devices {
			got[loginFrom(a, "page", "wrong", fmt.Sprintf("203.0.113.%d", i+1), d).Code]++
		}
	}
	if got[http.StatusUnauthorized] != knownPerMinute || int(runs.Load()) != knownPerMinute {
		t.Errorf("3 known devices, %d wrong passwords each: got %v, %d checked; want %d checked and refused, the rest 429",
			failuresPerMinute, got, runs.Load(), knownPerMinute)
	}
	if w := loginFrom(a, "other", testPassword, "192.0.2.1", owner); w.Code != http.StatusSeeOther {
		t.Errorf("another counter's known device: got %d, want 303", w.Code)
	}
}

// TestKnownDevicesRightPasswordsCountToo: whoever knows a counter's
// password (a friend's, on the owner's Pi) gets no more checks from its
// known devices by sending the right one: a good login does not take its
// try back from the counter's devices' limit. Were it taken back, he
// could run bcrypt back to back at normal priority in the known devices'
// slot, which the owner's known browser needs during a flood. The owner's
// known device still gets in at once.
func TestKnownDevicesRightPasswordsCountToo(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	setOwner(t, a)
	a.cfg.TrustedProxies = []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	var devices []*http.Cookie
	for i := range 3 {
		devices = append(devices, deviceOf(t, loginFrom(a, "page", testPassword, fmt.Sprintf("198.51.100.%d", i+1))))
	}
	owner := cookieOf(t, ownerLoginAt(a, testPassword), ownerDeviceCookie)
	runs := countVerify(a)
	got := map[int]int{}
	const each = knownPerMinute/2 + 2 // 21 tries together, above the limit
	for range each {
		for i, d := range devices {
			got[loginFrom(a, "page", testPassword, fmt.Sprintf("203.0.113.%d", i+1), d).Code]++
		}
	}
	if n := int(runs.Load()); n > knownPerMinute {
		t.Errorf("3 known devices, %d right passwords each: got %v, %d checked; want at most %d checked, the rest 429",
			each, got, n, knownPerMinute)
	}
	r := httptest.NewRequest("POST", "/login", strings.NewReader("password="+strings.ReplaceAll(testPassword, " ", "+")))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.AddCookie(owner)
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther {
		t.Errorf("the owner's known device: got %d, want 303", w.Code)
	}
}

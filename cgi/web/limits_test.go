package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/cgi/guard"
)

// The tests in this file hold the code to the numbers the README promises.
// Each number is written here as a literal, never taken from the code's
// constants, so that changing a limit in the code fails a test.

// TestPromisedFailedLoginLimits: 5 failed logins a minute and 20 an hour
// per client; the 6th in a minute is refused with Retry-After: 60, and
// after 20 in an hour even a new minute does not let the client in.
func TestPromisedFailedLoginLimits(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	now := testNow
	a.cfg.Now = func() time.Time { return now }
	for m := range 4 { // 4 minutes of 5 failures: 20 in the hour
		for i := range 5 {
			if w := login(a, "page", "wrong"); w.Code != http.StatusUnauthorized {
				t.Fatalf("minute %d, failure %d: got %d, want 401", m+1, i+1, w.Code)
			}
		}
		w := login(a, "page", "wrong")
		if w.Code != http.StatusTooManyRequests {
			t.Fatalf("minute %d, 6th failure: got %d, want 429", m+1, w.Code)
		}
		if m < 3 && w.Header().Get("Retry-After") != "60" {
			t.Errorf("minute %d: got Retry-After %q, want 60", m+1, w.Header().Get("Retry-After"))
		}
		now = now.Add(61 * time.Second)
	}
	w := login(a, "page", testPassword)
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("after 20 failures in the hour, a new minute: got %d, want 429", w.Code)
	}
	// The hour began at the first failure, 4m04s ago.
	if got, want := w.Header().Get("Retry-After"), itoa(3600-4*61); got != want {
		t.Errorf("after 20 failures: got Retry-After %s, want %s", got, want)
	}
	now = testNow.Add(time.Hour + time.Second)
	if w := login(a, "page", testPassword); w.Code != http.StatusSeeOther {
		t.Errorf("an hour after the first failure: got %d, want 303", w.Code)
	}
}

// TestGoodLoginClearsFailures: a good login forgets the client's failures,
// so the owner who logs in often, or mistypes now and then, is never
// locked out by their own good logins.
func TestGoodLoginClearsFailures(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	for i := range 8 { // more than 5 good logins in the same minute
		if w := login(a, "page", testPassword); w.Code != http.StatusSeeOther {
			t.Fatalf("good login %d in a minute: got %d, want 303", i+1, w.Code)
		}
	}
	for round := range 3 { // 4 failures, then a good login, three times over
		for i := range 4 {
			if w := login(a, "page", "wrong"); w.Code != http.StatusUnauthorized {
				t.Fatalf("round %d, failure %d: got %d, want 401", round+1, i+1, w.Code)
			}
		}
		if w := login(a, "page", testPassword); w.Code != http.StatusSeeOther {
			t.Fatalf("round %d, good login after 4 failures: got %d, want 303", round+1, w.Code)
		}
	}
}

// TestPromisedSessionLifetime: a login lasts 24 hours.
func TestPromisedSessionLifetime(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	w := login(a, "page", testPassword)
	c := sessionOf(t, w)
	if c.MaxAge != 24*60*60 {
		t.Errorf("got cookie Max-Age %d, want %d", c.MaxAge, 24*60*60)
	}
	for _, tc := range []struct {
		after time.Duration
		valid bool
	}{
		{24*time.Hour - time.Second, true},
		{24*time.Hour + time.Second, false},
	} {
		a.cfg.Now = func() time.Time { return testNow.Add(tc.after) }
		r := httptest.NewRequest("GET", "/page/stats", nil)
		r.AddCookie(c)
		w := httptest.NewRecorder()
		a.Handler().ServeHTTP(w, r)
		if valid := !isLoginForm(w); valid != tc.valid {
			t.Errorf("%v after login: got session valid %v, want %v", tc.after, valid, tc.valid)
		}
	}
}

// TestPromisedRefusalDelay: in a long-lived process, a client refused
// again within its window waits 2 seconds for the answer.
func TestPromisedRefusalDelay(t *testing.T) {
	p, heldBack := pacerForTest()
	p.shared.Store(true)
	c, _ := guard.ClientOf("192.0.2.1")
	p.refused(c, testNow)
	p.refused(c, testNow.Add(time.Second))
	if d := heldBack(); d != 2*time.Second {
		t.Errorf("got a refusal held back %v, want 2s", d)
	}
}

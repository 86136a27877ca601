package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/counter"
	"hitcounter/store"
)

// setOwner sets the owner's password to testPassword at bcrypt's least
// cost, for speed.
func setOwner(t *testing.T, a *App) {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(testPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetOwnerPasswordHash(hash); err != nil {
		t.Fatal(err)
	}
}

// ownerLoginAt posts password to the owner's login.
func ownerLoginAt(a *App, password string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"password": {password}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	return w
}

func cookieOf(t *testing.T, w *httptest.ResponseRecorder, name string) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == name && c.Value != "" {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", name, w.Header())
	return nil
}

// withValue is cookie c's value under another cookie's name.
func withValue(name string, c *http.Cookie) *http.Cookie {
	return &http.Cookie{Name: name, Value: c.Value}
}

// TestOwnerSession: ownerSession, which the owner's pages ask first, is
// true for the owner's session alone; neither door's token passes for
// the other's, whatever cookie name carries it: the owner's is signed for
// no counter, and a counter's with its own key.
func TestOwnerSession(t *testing.T) {
	a, logs := testApp(t, "page", "other")
	protect(t, a, "page", bcrypt.MinCost)
	setOwner(t, a)
	owner := cookieOf(t, ownerLoginAt(a, testPassword), ownerSessionCookie)
	counterSession := cookieOf(t, login(a, "page", testPassword), sessionCookie)
	ownerWith := func(cookies ...*http.Cookie) bool {
		r := httptest.NewRequest("GET", "/", nil)
		for _, c := range cookies {
			r.AddCookie(c)
		}
		in, err := a.ownerSession(r)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	if !ownerWith(owner) {
		t.Fatalf("the owner's session is not one; log %s", logs)
	}
	for _, tc := range []struct {
		name    string
		cookies []*http.Cookie
	}{
		{"none", nil},
		{"garbage", []*http.Cookie{{Name: ownerSessionCookie, Value: "A.B.C"}}},
		{"a counter's session as the owner's", []*http.Cookie{withValue(ownerSessionCookie, counterSession)}},
		{"a counter's session", []*http.Cookie{counterSession}},
	} {
		if ownerWith(tc.cookies...) {
			t.Errorf("%s: taken for the owner's session", tc.name)
		}
	}
	for _, name := range []string{"page", "other"} {
		if !opensStats(a, name, owner) {
			t.Errorf("the owner's session does not open %s", name)
		}
	}
	if opensStats(a, "page", withValue(sessionCookie, owner)) {
		t.Errorf("the owner's session, sent as a counter's, opens page")
	}
	if w := ownerLoginAt(a, "wrong"); w.Code != http.StatusUnauthorized || !strings.Contains(logs.String(), `login failed: counter="*" client=`) {
		t.Errorf("a wrong owner's password: %d, log %q; want 401 and fail2ban's line", w.Code, logs)
	}
}

// TestOwnerHashOfAnotherCostReplaced: an owner's hash of another cost
// (one brought over with passwd -owner -hash) is replaced at the first
// good login by one at the pinned cost, as a counter's is, and the
// session is bound to the new one.
func TestOwnerHashOfAnotherCostReplaced(t *testing.T) {
	a, _ := testApp(t, "page")
	protect(t, a, "page", bcrypt.MinCost)
	setOwner(t, a) // bcrypt.MinCost
	owner := cookieOf(t, ownerLoginAt(a, testPassword), ownerSessionCookie)
	db, err := store.Open(a.cfg.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	o, err := db.OwnerLogin()
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost(o.PasswordHash); err != nil || cost != counter.PasswordCost {
		t.Errorf("the owner's hash after the login has cost %d (%v), want %d", cost, err, counter.PasswordCost)
	}
	if !opensStats(a, "page", owner) {
		t.Errorf("the session made with the new hash does not open page")
	}
}

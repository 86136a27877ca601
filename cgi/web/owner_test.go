package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/store"
)

// postOwner posts the owner form as a browser on the statistics page
// would, with the cookies and headers given.
func postOwner(a *App, name, count string, cookies []*http.Cookie, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/"+name+"/owner", strings.NewReader(url.Values{"count": {count}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	return w
}

func ownerCookies(w *httptest.ResponseRecorder) []*http.Cookie {
	var out []*http.Cookie
	for _, c := range w.Result().Cookies() {
		if c.Name == ownerCookie {
			out = append(out, c)
		}
	}
	return out
}

func storedOwnerKey(t *testing.T, a *App) []byte {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key, err := db.OwnerKey()
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func TestOwnerCookieOnAndOff(t *testing.T) {
	a, _ := testApp(t, "page")
	w := postOwner(a, "page", "no", nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "stats" {
		t.Fatalf("count=no: got %d to %q, want 303 to stats", w.Code, w.Header().Get("Location"))
	}
	on := ownerCookies(w)
	wantPaths := []string{"/page.png", "/page.gif", "/page.svg", "/page/"}
	if len(on) != len(wantPaths) {
		t.Fatalf("count=no set %d owner cookies, want %d: %q", len(on), len(wantPaths), w.Header().Values("Set-Cookie"))
	}
	key := storedOwnerKey(t, a)
	for i, c := range on {
		if c.Path != wantPaths[i] || c.Value != ownerToken("page", key) || c.MaxAge != 400*24*60*60 ||
			!c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
			t.Errorf("cookie %d: got %q, want Path=%s, the token, Max-Age of 400 days, HttpOnly, SameSite=Lax, not Secure over HTTP",
				i, w.Header().Values("Set-Cookie")[i], wantPaths[i])
		}
	}

	// The browser sends the cookie back to the image and to the page.
	for _, target := range []string{"/page.png", "/page.svg", "/page/stats"} {
		r := httptest.NewRequest("GET", target, nil)
		r.AddCookie(on[0])
		if !ownerMarked(r, "page", key) {
			t.Errorf("%s with the cookie: not marked", target)
		}
	}
	r := httptest.NewRequest("GET", "/page/stats", nil)
	r.AddCookie(on[3])
	w = httptest.NewRecorder()
	a.Handler().ServeHTTP(w, r)
	if body := w.Body.String(); !strings.Contains(body, "This browser is not counted.") || !strings.Contains(body, `name="count" value="yes"`) {
		t.Errorf("the page of a marked browser does not say so, or offers no way back")
	}
	if body := serve(a, "GET", "/page/stats").Body.String(); !strings.Contains(body, "This browser is counted.") {
		t.Errorf("the page of an unmarked browser does not say it is counted")
	}

	w = postOwner(a, "page", "yes", on[3:])
	off := ownerCookies(w)
	if w.Code != http.StatusSeeOther || len(off) != len(wantPaths) {
		t.Fatalf("count=yes: got %d with %d owner cookies, want 303 with %d", w.Code, len(off), len(wantPaths))
	}
	for i, c := range off {
		if c.Path != wantPaths[i] || c.Value != "" || c.MaxAge >= 0 {
			t.Errorf("count=yes cookie %d: got %q, want Path=%s emptied and expired", i, w.Header().Values("Set-Cookie")[i], wantPaths[i])
		}
	}
}

func TestOwnerCookieOnlyFromTheStatsPage(t *testing.T) {
	a, _ := testApp(t, "page", "locked")
	protect(t, a, "locked", bcrypt.MinCost)
	session := sessionOf(t, login(a, "locked", testPassword))
	tests := []struct {
		name, counter, count string
		cookies              []*http.Cookie
		header               []string
		status               int
	}{
		{"public counter", "page", "no", nil, nil, http.StatusSeeOther},
		{"cross-site", "page", "no", nil, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"foreign origin", "page", "no", nil, []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}, http.StatusForbidden},
		{"protected, no session", "locked", "no", nil, nil, http.StatusUnauthorized},
		{"protected, turning off without a session", "locked", "yes", nil, nil, http.StatusUnauthorized},
		{"protected, session", "locked", "no", []*http.Cookie{session}, nil, http.StatusSeeOther},
		{"no such counter", "nope", "no", nil, nil, http.StatusNotFound},
		{"bad value", "page", "maybe", nil, nil, http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := postOwner(a, tc.counter, tc.count, tc.cookies, tc.header...)
			n := len(ownerCookies(w))
			if w.Code != tc.status || (tc.status == http.StatusSeeOther) != (n == 4) {
				t.Errorf("got %d with %d owner cookies, want %d with %d", w.Code, n, tc.status, map[bool]int{true: 4}[tc.status == http.StatusSeeOther])
			}
		})
	}
	if w := serve(a, "GET", "/page/owner"); w.Code != http.StatusMethodNotAllowed || len(ownerCookies(w)) != 0 {
		t.Errorf("GET /page/owner: got %d, want 405 and no cookie", w.Code)
	}
}

func TestOwnerMarked(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	otherKey := bytes.Repeat([]byte{8}, 32)
	good := ownerToken("page", key)
	tests := []struct {
		name   string
		values []string // owner cookies on the request
		key    []byte
		want   bool
	}{
		{"right name and key", []string{good}, key, true},
		{"after another counter's", []string{ownerToken("other", key), good}, key, true},
		{"another counter's", []string{ownerToken("other", key)}, key, false},
		{"another key", []string{ownerToken("page", otherKey)}, key, false},
		{"no key made yet", []string{good}, nil, false},
		{"none", nil, key, false},
		{"empty", []string{""}, key, false},
		{"garbage", []string{"o1." + strings.Repeat("A", 43)}, key, false},
		{"too long", []string{good + "A"}, key, false},
		{"another version", []string{"o2" + good[2:]}, key, false},
		{"padded base64", []string{good[:len(good)-1] + "="}, key, false},
		{"tampered", []string{tamperMAC(good)}, key, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/page.png", nil)
			for _, v := range tc.values {
				r.AddCookie(&http.Cookie{Name: ownerCookie, Value: v})
			}
			if got := ownerMarked(r, "page", tc.key); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if !strings.HasPrefix(good, "o1.") || len(good) != ownerTokenLen {
		t.Errorf("token %q: want o1. and %d characters", good, ownerTokenLen)
	}
}

func BenchmarkOwnerMarked(b *testing.B) {
	key := bytes.Repeat([]byte{7}, 32)
	r := httptest.NewRequest("GET", "/page.png", nil)
	r.Header.Set("Cookie", "a=b; "+ownerCookie+"="+ownerToken("page", key)+"; c=d")
	b.ReportAllocs()
	for b.Loop() {
		if !ownerMarked(r, "page", key) {
			b.Fatal("not marked")
		}
	}
}

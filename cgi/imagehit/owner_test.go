package imagehit

import (
	"net/http"
	"slices"
	"testing"
)

// TestOwnerCookiesAsNetHTTP: the owner cookie's values, read from the
// Cookie lines as net/http's Request.CookiesNamed reads them, for every
// value that could be a token (net/http drops values with bytes outside
// the cookie alphabet, which no token has).
func TestOwnerCookiesAsNetHTTP(t *testing.T) {
	tok := OwnerToken("page", []byte("key"))
	for _, lines := range [][]string{
		{OwnerCookie + "=" + tok},
		{"a=b; " + OwnerCookie + "=" + tok + "; c=d"},
		{" " + OwnerCookie + "=\"" + tok + "\" ;x=y"},
		{"a=b", OwnerCookie + "=x; " + OwnerCookie + "=" + tok},
		{OwnerCookie + "=\"\"", OwnerCookie + "=", OwnerCookie},
		{"\t" + OwnerCookie + "=" + tok + "\t;"},
		{"counter_owner2=" + tok, "Counter_Owner=" + tok},
		{},
	} {
		r := &http.Request{Header: http.Header{"Cookie": lines}}
		var want []string
		for _, c := range r.CookiesNamed(OwnerCookie) {
			want = append(want, c.Value)
		}
		var got []string
		for _, v := range ownerCookies(lines) {
			if v == tok || v == "x" || v == "" {
				got = append(got, v)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", lines, got, want)
		}
		if OwnerMarked(lines, "page", []byte("key")) != slices.Contains(want, tok) {
			t.Errorf("%q: marked %v, want %v", lines, !slices.Contains(want, tok), slices.Contains(want, tok))
		}
	}
}

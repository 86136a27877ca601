package counter

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"Z9", true},
		{"my-page_2.v1", true},
		{"0", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"-lead", false},
		{".hidden", false},
		{"_x", false},
		{"a b", false},
		{"a/b", false},
		{"..", false},
		{"a%2e", false},
		{"ü", false},
		{"a\x00", false},
		{"a\n", false},
	}
	for _, tc := range tests {
		err := CheckName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidName) {
			t.Errorf("CheckName(%q) = %v, want ErrInvalidName", tc.name, err)
		}
	}
}

func TestReferrerHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://Example.ORG/page.html", "example.org"},
		{"http://example.org:8080/x?y#z", "example.org"},
		{"http://user:pw@example.org/", "example.org"},
		{"HTTP://example.org.", "example.org"},
		{"http://[2001:db8::1]:80/", "[2001:db8::1]"},
		{"https://xn--bcher-kva.example/", "xn--bcher-kva.example"},
		{"", ""},
		{"ftp://example.org/", ""},
		{"javascript:alert(1)", ""},
		{"//example.org/", ""},
		{"http://", ""},
		{"http://<script>/", ""},
		{`http://"><img onerror=x>/`, ""},
		{"http://exa mple.org/", ""},
		{"http://" + strings.Repeat("a", 101) + "/", ""},
		// A long URL (search results, tracking parameters) keeps its host;
		// only a host that does not end within the first 512 bytes is lost.
		{"https://www.example.com/search?q=" + strings.Repeat("a", 3000), "www.example.com"},
		{"http://example.org/" + strings.Repeat("a", 1<<20), "example.org"},
		{"http://example.org?" + strings.Repeat("b", 5000), "example.org"},
		{"http://" + strings.Repeat("u", 600) + "@example.org/" + strings.Repeat("a", 3000), ""},
		{"http://example.org:" + strings.Repeat("8", 600), ""},
		{"http://" + strings.Repeat("a", 3000), ""},
		{"http://[::1", ""},
		{"http://[zz]/", ""},
	}
	for _, tc := range tests {
		if got := ReferrerHost(tc.in); got != tc.want {
			t.Errorf("ReferrerHost(%.60q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDigits(t *testing.T) {
	tests := []struct {
		n     uint64
		width int
		want  string
	}{
		{0, 1, "0"},
		{42, 6, "000042"},
		{1234567, 6, "1234567"},
		{18446744073709551615, 12, "18446744073709551615"},
		{7, 40, "00000000000000000007"}, // never past MaxTextLen
	}
	for _, tc := range tests {
		if got := Digits(tc.n, tc.width); got != tc.want {
			t.Errorf("Digits(%d, %d) = %q, want %q", tc.n, tc.width, got, tc.want)
		}
	}
	if got := Placeholder(6); got != "------" {
		t.Errorf("Placeholder(6) = %q, want ------", got)
	}
	if got := Placeholder(0); got != "-" {
		t.Errorf("Placeholder(0) = %q, want -", got)
	}
}

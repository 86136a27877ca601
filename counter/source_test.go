package counter

import (
	"strings"
	"testing"
)

func TestSourceKey(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"", ""},
		{"www.google.com", "Google"},
		{"google.co.uk", "Google"},
		{"www.google.com.br", "Google"},
		{"google.example.com", "google.example.com"},
		{"notgoogle.com", "notgoogle.com"},
		{"cn.bing.com", "Bing"},
		{"duckduckgo.com", "DuckDuckGo"},
		{"yandex.ru", "Yandex"},
		{"t.co", "Twitter/X"},
		{"x.com", "Twitter/X"},
		{"lm.facebook.com", "Facebook"},
		{"old.reddit.com", "Reddit"},
		{"news.ycombinator.com", "Hacker News"},
		{"ycombinator.com", "ycombinator.com"},
		{"Forum.Example.", "forum.example"},
		{"forum.example/path?token=1", ""},
		{"forum.example:8080", ""},
		{"<script>", ""},
		{"user@forum.example", ""},
		{strings.Repeat("a", 101), ""},
	} {
		t.Run(tc.host, func(t *testing.T) {
			if got := SourceKey(tc.host); got != tc.want {
				t.Errorf("SourceKey(%q) = %q, want %q", tc.host, got, tc.want)
			}
		})
	}
}

func TestSettingsSource(t *testing.T) {
	site, err := NewSite("blog.example,*.blog.example")
	if err != nil {
		t.Fatal(err)
	}
	listed := DefaultSettings()
	if err := listed.Set("referrers=example.org,*.example.org"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		s                Settings
		source, pageHost string
		want             string
	}{
		{"plain, from elsewhere", DefaultSettings(), "forum.example", "example.org", "forum.example"},
		{"plain, from its own page", DefaultSettings(), "example.org", "example.org", ""},
		{"plain, no page host", DefaultSettings(), "forum.example", "", "forum.example"},
		{"listed, from a listed host", listed, "www.example.org", "example.org", ""},
		{"site, from its own pages", site, "www.blog.example", "blog.example", ""},
		{"site, from a search", site, "www.google.de", "blog.example", "Google"},
		{"none", site, "", "blog.example", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Source(tc.source, tc.pageHost); got != tc.want {
				t.Errorf("Source(%q, %q) = %q, want %q", tc.source, tc.pageHost, got, tc.want)
			}
		})
	}
}

func TestCleanTitle(t *testing.T) {
	long := strings.Repeat("é", 150)
	for _, tc := range []struct{ in, want string }{
		{"  Hello,\n\tworld  ", "Hello, world"},
		{"a\x00b\u200ec", "abc"},
		{"bad \xff utf8", "bad utf8"},
		{" \n ", ""},
		{long, strings.Repeat("é", (MaxTitleLen-3)/2) + "…"},
	} {
		got := CleanTitle(tc.in)
		if got != tc.want || len(got) > MaxTitleLen {
			t.Errorf("CleanTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

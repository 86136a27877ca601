package counter

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestPageKey(t *testing.T) {
	long := "/" + strings.Repeat("a", 10_000)
	cases := []struct {
		name, target string
		keep         []string
		want         string // "" for ErrPage
	}{
		{"the root", "/", nil, "/"},
		{"the root's index", "/index.html", nil, "/"},
		{"a post", "/posts/hello", nil, "/posts/hello"},
		{"a post with its slash", "/posts/hello/", nil, "/posts/hello"},
		{"a post's index.html", "/posts/hello/index.html", nil, "/posts/hello"},
		{"a post's index.htm", "/posts/hello/index.htm", nil, "/posts/hello"},
		{"an index.html that is not last", "/index.html/x", nil, "/index.html/x"},
		{"Jekyll's dated post", "/2024/05/01/my-post.html", nil, "/2024/05/01/my-post.html"},
		{"Google Analytics tags", "/posts/hello/?utm_source=mastodon&utm_medium=social&utm_campaign=launch", nil, "/posts/hello"},
		{"Facebook's click id", "/posts/hello/?fbclid=IwAR3xyz", nil, "/posts/hello"},
		{"Google Ads' click id", "/?gclid=Cj0KCQ", nil, "/"},
		{"a fragment", "/posts/hello/#comments", nil, "/posts/hello"},
		{"a fragment after a query", "/posts/hello?x=1#top", nil, "/posts/hello"},
		{"WordPress's ?p= kept", "/?p=123&utm_source=feed", []string{"p"}, "/?p=123"},
		{"kept keys sorted", "/?page=2&p=1&utm_source=x", []string{"p", "page"}, "/?p=1&page=2"},
		{"a kept key twice, in order", "/?p=2&p=1", []string{"p"}, "/?p=2&p=1"},
		{"a kept key without a value", "/?amp", []string{"amp"}, "/?amp"},
		{"a kept value's escapes", "/?q=a%2bb%20c&utm_source=x", []string{"q"}, "/?q=a%2Bb%20c"},
		{"a query key not kept", "/list?page=2", nil, "/list"},
		{"%7E is ~", "/%7Euser/", nil, "/~user"},
		{"%7e is ~", "/%7euser/", nil, "/~user"},
		{"~ as it is", "/~user", nil, "/~user"},
		{"escaped letters", "/%41bout", nil, "/About"},
		{"case kept", "/About/Us", nil, "/About/Us"},
		{"an escaped slash stays", "/a%2fb", nil, "/a%2Fb"},
		{"an escaped question mark stays", "/what%3f", nil, "/what%3F"},
		{"an escaped percent stays", "/100%25", nil, "/100%25"},
		{"a lone percent", "/100%", nil, "/100%25"},
		{"a bad escape", "/a%G1b", nil, "/a%25G1b"},
		{"café escaped", "/caf%C3%A9/", nil, "/café"},
		{"café lower-case escapes", "/caf%c3%a9/", nil, "/café"},
		{"café as it is", "/café/", nil, "/café"},
		{"Japanese escaped", "/%E6%97%A5%E6%9C%AC%E8%AA%9E/", nil, "/日本語"},
		{"an emoji", "/%F0%9F%8E%89", nil, "/🎉"},
		{"a lone UTF-8 byte", "/caf%C3", nil, "/caf%C3"},
		{"invalid UTF-8 as it is", "/caf\xc3x", nil, "/caf%C3x"},
		{"a space", "/my post", nil, "/my%20post"},
		{"an escaped space", "/my%20post", nil, "/my%20post"},
		{"a plus is a plus in a path", "/c++", nil, "/c++"},
		{"sub-delimiters stay", "/a,b;c=d(e)!*'@:$&", nil, "/a,b;c=d(e)!*'@:$&"},
		{"markup escaped", `/<script>"x"</script>`, nil, "/%3Cscript%3E%22x%22%3C/script%3E"},
		{"control characters escaped", "/a\x00b\nc\x7f", nil, "/a%00b%0Ac%7F"},
		{"escaped control characters stay escaped", "/a%0ab", nil, "/a%0Ab"},
		{"a backslash", `/a\b`, nil, "/a%5Cb"},
		{"a zero-width space", "/a\u200bb", nil, "/a%E2%80%8Bb"},
		{"a bidi override, escaped", "/a%E2%80%AEb", nil, "/a%E2%80%AEb"},
		{"repeated slashes", "//a///b//", nil, "/a/b"},
		{"only slashes", "///", nil, "/"},
		{"a .. segment", "/a/../b", nil, ""},
		{"a . segment", "/a/./b", nil, ""},
		{"a .. segment escaped", "/a/%2e%2E/b", nil, ""},
		{"a last ..", "/a/..", nil, ""},
		{"dots in a name", "/a/..b/.c/...", nil, "/a/..b/.c/..."},
		{"no leading slash", "posts/hello", nil, ""},
		{"empty", "", nil, ""},
		{"a full URL", "https://blog.example/x", nil, ""},
		{"a long path cut", long, nil, long[:MaxPageLen]},
		{"a cut inside an escape", "/" + strings.Repeat("a", MaxPageLen-3) + "%2F", nil, "/" + strings.Repeat("a", MaxPageLen-3)},
		{"a cut inside a character", "/" + strings.Repeat("a", MaxPageLen-2) + "é", nil, "/" + strings.Repeat("a", MaxPageLen-2)},
		{"a cut before a slash", "/" + strings.Repeat("a", MaxPageLen-2) + "/b", nil, "/" + strings.Repeat("a", MaxPageLen-2)},
		{"a cut leaving index.html", "/" + strings.Repeat("a", MaxPageLen-12) + "/index.htmlx", nil, "/" + strings.Repeat("a", MaxPageLen-12)},
		{"a cut inside a kept pair", "/a?p=1&q=" + strings.Repeat("b", MaxPageLen), []string{"p", "q"}, "/a?p=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PageKey(c.target, c.keep)
			if c.want == "" {
				if !errors.Is(err, ErrPage) {
					t.Errorf("PageKey(%q) = %q, %v; want ErrPage", c.target, got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("PageKey(%q) = %q, %v; want %q", c.target, got, err, c.want)
			}
			if again, err := PageKey(got, c.keep); err != nil || again != got {
				t.Errorf("PageKey(%q) = %q, %v: a key is not its own key", got, again, err)
			}
		})
	}
}

func TestRefererTarget(t *testing.T) {
	for _, c := range []struct {
		referer, want string
		ok            bool
	}{
		{"https://blog.example/posts/hello/?utm_source=x#top", "/posts/hello/?utm_source=x#top", true},
		{"https://blog.example", "/", true},
		{"https://blog.example/", "/", true},
		{"http://blog.example:8080/a", "/a", true},
		{"https://user:pw@blog.example/a", "/a", true},
		{"HTTPS://Blog.Example/A", "/A", true},
		{"https://blog.example?x=1", "/?x=1", true},
		{"https:///a", "", false},
		{"https://", "", false},
		{"ftp://blog.example/a", "", false},
		{"android-app://com.example/", "", false},
		{"/a/b", "", false},
		{"", "", false},
	} {
		got, ok := RefererTarget(c.referer)
		if got != c.want || ok != c.ok {
			t.Errorf("RefererTarget(%q) = %q, %v; want %q, %v", c.referer, got, ok, c.want, c.ok)
		}
	}
}

// FuzzPageKey: whatever the address, a key is a clean path that is its
// own key, or the address is refused with ErrPage.
func FuzzPageKey(f *testing.F) {
	addSeeds(f, "FuzzPageKey")
	f.Fuzz(func(t *testing.T, target string) {
		keep := []string{"p", "q"}
		key, err := PageKey(target, keep)
		if err != nil {
			if !errors.Is(err, ErrPage) {
				t.Fatalf("PageKey(%q): %v, not ErrPage", target, err)
			}
			return
		}
		if !strings.HasPrefix(key, "/") || len(key) > MaxPageLen || !utf8.ValidString(key) {
			t.Fatalf("PageKey(%q) = %q: not a key", target, key)
		}
		for _, r := range key {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("PageKey(%q) = %q holds %U", target, key, r)
			}
		}
		path, _, _ := strings.Cut(key, "?")
		for _, seg := range strings.Split(path, "/")[1:] {
			if seg == "." || seg == ".." || seg == "" && path != "/" {
				t.Fatalf("PageKey(%q) = %q has a segment %q", target, key, seg)
			}
		}
		if again, err := PageKey(key, keep); err != nil || again != key {
			t.Fatalf("PageKey(%q) = %q, but PageKey(%q) = %q, %v", target, key, key, again, err)
		}
	})
}

func BenchmarkPageKey(b *testing.B) {
	referer := "https://blog.example/2026/12/03/a-post-about-things/?utm_source=mastodon&utm_medium=social#comments"
	for b.Loop() {
		target, _ := RefererTarget(referer)
		if _, err := PageKey(target, nil); err != nil {
			b.Fatal(err)
		}
	}
}

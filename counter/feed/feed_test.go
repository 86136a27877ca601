package feed

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"hitcounter/counter"
)

func blog(t *testing.T) *counter.Site {
	t.Helper()
	s, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	return s.Site
}

// The files the generators wrote (testdata/feeds/make.sh): Hugo's RSS and
// Jekyll's Atom give each post's title, as the post's author wrote it;
// Hugo's sitemap gives none.
func TestGeneratorsFiles(t *testing.T) {
	for _, tc := range []struct {
		file, format, want string
		err                error
	}{
		{"hugo-index.xml", RSS, `[{/posts/cafe Un café à Paris} {/posts/tags Tags like <b> & "quotes"} {/posts/hello Hello, world}]`, nil},
		// jekyll-feed strips the markup from a title (strip_html), and
		// makes its quotes curly (smartify).
		{"jekyll-feed.xml", Atom, `[{/2026/11/03/cafe.html Un café à Paris} {/2026/11/02/tags.html Tags like & “quotes”} {/2026/11/01/hello.html Hello, world}]`, nil},
		{"hugo-sitemap.xml", Sitemap, "[]", ErrNoTitles},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open("../../testdata/feeds/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := Titles(f, blog(t))
			if !errors.Is(err, tc.err) || got.Format != tc.format || fmt.Sprint(got.Titles) != tc.want {
				t.Errorf("%s: %s %v, %v; want %s %s, %v", tc.file, got.Format, got.Titles, err, tc.format, tc.want, tc.err)
			}
		})
	}
}

func TestTitlesOfFeeds(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
		counts          string // Entries Untitled Elsewhere BadLinks Again
		err             string
	}{
		{"atom xhtml and links", `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">A <em>b</em> &amp;amp; c</div></title><link rel="self" href="https://blog.example/x.atom"/><link href="https://blog.example/a/?utm_source=x"/></entry>` +
			`<entry><title>Other</title><link href="https://elsewhere.example/b/"/></entry><entry><title>No link</title></entry><entry><title>Again</title><link href="/a/"/></entry><entry><title>  </title><link href="/c/"/></entry></feed>`,
			"[{/a A b &amp; c}]", "5 1 1 1 1", ""},
		{"rss with atom links", `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Site</title><link>https://blog.example/</link><item><atom:link href="https://blog.example/x" rel="self"/><title>Post</title><link>https://blog.example/p/</link></item></channel></rss>`,
			"[{/p Post}]", "1 0 0 0 0", ""},
		{"news sitemap", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url><loc>https://blog.example/n/</loc><news:news><news:title>News</news:title></news:news></url><url><loc>https://blog.example/m/</loc></url></urlset>`,
			"[{/n News}]", "2 1 0 0 0", ""},
		{"javascript link", `<rss><channel><item><title>x</title><link>javascript:alert(1)</link></item></channel></rss>`, "[]", "1 0 0 1 0", "no titles"},
		{"sitemap index", `<sitemapindex><sitemap><loc>https://blog.example/s.xml</loc></sitemap></sitemapindex>`, "[]", "0 0 0 0 0", "a sitemap index"},
		{"html", `<html><body>hi</body></html>`, "[]", "0 0 0 0 0", "neither a feed"},
		{"not xml", `{"json": true}`, "[]", "0 0 0 0 0", "empty"},
		{"broken", `<rss><channel><item><title>x</title>`, "[]", "0 0 0 0 0", "an item"},
		{"entity bomb refused", `<!DOCTYPE r [<!ENTITY a "aaaa">]><rss><channel><item><title>&a;</title><link>/a/</link></item></channel></rss>`, "[]", "0 0 0 0 0", "invalid character entity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Titles(strings.NewReader(tc.doc), blog(t))
			counts := fmt.Sprintf("%d %d %d %d %d", got.Entries, got.Untitled, got.Elsewhere, got.BadLinks, got.Again)
			if fmt.Sprint(got.Titles) != tc.want || counts != tc.counts {
				t.Errorf("got %v (%s), want %s (%s)", got.Titles, counts, tc.want, tc.counts)
			}
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// A file past the bound is refused once that much is read, whatever
// follows, wherever the cut falls.
func TestTitlesBounded(t *testing.T) {
	item := `<item><title>t</title><link>/p/</link></item>`
	doc := `<rss><channel>` + strings.Repeat(item, 40_000) + `</channel></rss>`
	for _, bound := range []int64{1 << 20, 1<<20 + 7, 1<<20 + 31} {
		if _, err := titles(strings.NewReader(doc), blog(t), bound); err == nil || err.Error() != "larger than 1 MiB" {
			t.Errorf("a file past a bound of %d: %v", bound, err)
		}
	}
	if got, err := titles(strings.NewReader(doc), blog(t), int64(len(doc))); err != nil || got.Entries != 40_000 || got.Again != 39_999 {
		t.Errorf("the same file within the bound: %d entries, %d again, %v", got.Entries, got.Again, err)
	}
}

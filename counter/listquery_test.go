package counter

import (
	"strings"
	"testing"
)

func TestParseCountQuery(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		page        string
		pages       int
		source      string
		err         string
	}{
		{"a post", "page=/posts/a/", "/posts/a/", 0, "", ""},
		{"an index", "page=/&p=/a/&p=/b/&p=/a/", "/", 3, "", ""},
		{"a source", "page=/&ref=News.Example.COM", "/", 0, "news.example.com", ""},
		{"a source with a port", "page=/&ref=news.example:8443", "/", 0, "news.example", ""},
		{"a source with a path", "page=/&ref=news.example%2Fa%3Ftoken%3D1", "/", 0, "", ""},
		{"a source that is no host", "page=/&ref=%3Cscript%3E", "/", 0, "", ""},
		{"a cache-buster", "page=/&v=3", "/", 0, "", ""},
		{"100 pages", "page=/" + strings.Repeat("&p=/x/", 100), "/", 100, "", ""},
		{"101 pages", "page=/" + strings.Repeat("&p=/x/", 101), "", 0, "", "p: more than 100 pages"},
		{"page twice", "page=/a/&page=/b/", "", 0, "", "page: given more than once"},
		{"ref twice", "ref=a.example&ref=b.example", "", 0, "", "ref: given more than once"},
		{"a bad escape", "page=/%zz", "", 0, "", "page: bad %-escape"},
		{"too long", "page=/" + strings.Repeat("x", MaxListQueryLen), "", 0, "", "query: longer than 8192 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := ParseCountQuery(tc.query)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("got error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q.Page != tc.page || len(q.Pages) != tc.pages || q.Source != tc.source {
				t.Errorf("got page %q, %d pages, source %q; want %q, %d, %q", q.Page, len(q.Pages), q.Source, tc.page, tc.pages, tc.source)
			}
		})
	}
}

func TestParseJSONQuery(t *testing.T) {
	q, err := ParseJSONQuery("page=/a/")
	if err != nil || !q.HasPage || q.Page != "/a/" || len(q.Pages) != 1 {
		t.Errorf("one page: %+v, %v", q, err)
	}
	q, err = ParseJSONQuery("page=/a/&page=/b/&show=site")
	if err != nil || q.HasPage || len(q.Pages) != 2 || q.Image == nil || *q.Image != SiteImage {
		t.Errorf("two pages: %+v, %v", q, err)
	}
	if _, err := ParseJSONQuery("show=x"); err == nil {
		t.Error("show=x: no error")
	}
}

package admin

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/store"
)

// titles reads a site's feed as the generator wrote it, stores the titles
// of its pages, and refuses a sitemap (no titles), a plain counter and a
// file that is no feed, storing nothing.
func TestTitlesCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "-site", "-hosts", "blog.example")
	mustAdmin(t, db, "create", "plain")
	feeds := "../../testdata/feeds/"
	out := mustAdmin(t, db, "titles", "blog", feeds+"hugo-index.xml")
	if !strings.HasPrefix(out, "blog: 3 titles from the RSS file ") || !strings.Contains(out, "the site has 3") {
		t.Errorf("titles: %s", out)
	}
	out = mustAdmin(t, db, "titles", "blog", feeds+"jekyll-feed.xml")
	if !strings.Contains(out, "blog: 3 titles from the Atom file") || !strings.Contains(out, "the site has 6") {
		t.Errorf("titles of a second feed: %s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"titles", "blog", feeds + "hugo-sitemap.xml"}, "a sitemap of 7 pages and no title"},
		{[]string{"titles", "plain", feeds + "hugo-index.xml"}, "only a site's pages have titles"},
		{[]string{"titles", "blog", feeds + "make.sh"}, "not XML"},
		{[]string{"titles", "blog", feeds + "nowhere.xml"}, "no such file"},
	} {
		if _, err := runAdmin(t, db, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	out = mustAdmin(t, db, "titles", "-replace", "blog", feeds+"hugo-index.xml")
	if !strings.Contains(out, "the site has 3") {
		t.Errorf("titles -replace: %s", out)
	}
	d, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := d.Titles("blog", []string{"/posts/tags", "/2026/11/02/tags.html"})
	if err != nil || fmt.Sprint(got) != `map[/posts/tags:Tags like <b> & "quotes"]` {
		t.Errorf("stored: %v, %v", got, err)
	}
}

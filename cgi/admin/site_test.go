package admin

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/counter"
	"hitcounter/store"
)

// pageHits counts a view on each of pages of site blog, from its host.
func pageHits(t *testing.T, db string, pages ...string) {
	t.Helper()
	d, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, p := range pages {
		if _, err := d.Visit(store.Visit{Name: "blog", Now: testNow, RefHost: "blog.example", Target: p}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSiteCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	out := mustAdmin(t, db, "create", "blog", "-site", "-hosts", "blog.example,www.blog.example", "max-pages=500")
	if !strings.Contains(out, "created site blog for blog.example, www.blog.example") || !strings.Contains(out, `/cgi-bin/counter.cgi/blog.png`) {
		t.Errorf("create: %s", out)
	}
	want := settingLines("show=views", "reload=30m", "ignore=", "hosts=blog.example,www.blog.example", "max-pages=500", "keep-query=", "image=page", "public-pages=off")
	if got := mustAdmin(t, db, "config", "blog"); got != want {
		t.Errorf("config:\n%s\nwant:\n%s", got, want)
	}
	got := mustAdmin(t, db, "config", "blog", "hosts+=*.blog.example", "keep-query=p", "image=site")
	if !strings.Contains(got, "hosts=blog.example,www.blog.example,*.blog.example\n") || !strings.Contains(got, "keep-query=p\n") || !strings.Contains(got, "image=site\n") {
		t.Errorf("config change:\n%s", got)
	}
	pageHits(t, db, "/old/", "/old/index.html", "/new", "/?p=7&utm_source=x", "/new/")
	out = mustAdmin(t, db, "pages", "blog")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "VIEWS") || !strings.HasSuffix(lines[1], " /new") && !strings.HasSuffix(lines[1], " /old") || !strings.HasSuffix(lines[3], " /?p=7") {
		t.Errorf("pages:\n%s", out)
	}
	if out := mustAdmin(t, db, "merge", "blog", "/old", "/new/"); !strings.Contains(out, "merged /old into /new of blog: 4 views") {
		t.Errorf("merge: %s", out)
	}
	out = mustAdmin(t, db, "pages", "-days", "1", "blog")
	if strings.Contains(out, "/old") || !strings.Contains(out, "4      0         2025-03-14  /new") {
		t.Errorf("pages after the merge:\n%s", out)
	}
	if out := mustAdmin(t, db, "list"); !strings.Contains(out, "views, site of 2 pages") || !strings.Contains(out, "hosts,max-pages,keep-query,image") {
		t.Errorf("list:\n%s", out)
	}
	for _, bad := range [][]string{
		{"create", "b2", "-site"},               // a site needs hosts
		{"create", "b3", "-hosts", "x.example"}, // hosts need -site
		{"create", "b4", "-site", "-hosts", "not a host"},
		{"config", "blog", "hosts="},              // a site keeps a host
		{"config", "blog", "referrers=x.example"}, // a site's hosts say
		{"config", "blog", "max-pages=0"},
		{"pages", "-days", "x", "blog"},
		{"merge", "blog", "/nowhere", "/new"},
		{"merge", "blog", "/new", "/../x"},
	} {
		if _, err := runAdmin(t, db, bad...); err == nil {
			t.Errorf("counter.cgi %s: no error", strings.Join(bad, " "))
		}
	}
	mustAdmin(t, db, "create", "plain")
	for _, cmd := range [][]string{{"pages", "plain"}, {"merge", "plain", "/a", "/b"}, {"config", "plain", "hosts=x.example"}} {
		if _, err := runAdmin(t, db, cmd...); !errors.Is(err, counter.ErrNotSite) {
			t.Errorf("counter.cgi %s: %v; want ErrNotSite", strings.Join(cmd, " "), err)
		}
	}
}

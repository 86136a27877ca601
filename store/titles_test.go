package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// Titles are a site's alone, cleaned, merged into those stored or put in
// their place, and bounded: a command that would take the site past
// counter.MaxTitles stores nothing.
func TestTitles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	day := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	with(t, path, Options{Create: true}, func(db *DB) {
		if err := db.CreateWith("blog", 0, day, site); err != nil {
			t.Fatal(err)
		}
		if err := db.Create("plain", 0, day); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SetTitles("plain", []counter.Title{{Page: "/", Title: "x"}}, false); !errors.Is(err, counter.ErrNotSite) {
			t.Errorf("titles of a plain counter: %v, want ErrNotSite", err)
		}
		set, total, err := db.SetTitles("blog", []counter.Title{{Page: "/a/", Title: " A\n title "}, {Page: "/b/", Title: "B"}, {Page: "/c/", Title: "\x00"}}, false)
		if err != nil || set != 2 || total != 2 {
			t.Errorf("first titles: %d of %d, %v; want 2 of 2", set, total, err)
		}
		if set, total, err = db.SetTitles("blog", []counter.Title{{Page: "/b/", Title: "B again"}, {Page: "/d/", Title: "D"}}, false); err != nil || set != 2 || total != 3 {
			t.Errorf("merged titles: %d of %d, %v; want 2 of 3", set, total, err)
		}
		got, err := db.Titles("blog", []string{"/a/", "/b/", "/c/", "/d/", "/e/"})
		if err != nil || fmt.Sprint(got) != "map[/a/:A title /b/:B again /d/:D]" {
			t.Errorf("Titles: %v, %v", got, err)
		}
		many := make([]counter.Title, counter.MaxTitles)
		for i := range many {
			many[i] = counter.Title{Page: fmt.Sprintf("/p%d", i), Title: "t"}
		}
		if _, _, err := db.SetTitles("blog", many, false); err == nil || !strings.Contains(err.Error(), "more than") {
			t.Errorf("titles past the bound: %v", err)
		}
		if got, _ := db.Titles("blog", []string{"/a/", "/p0"}); len(got) != 1 {
			t.Errorf("a refused command stored %v", got)
		}
		if set, total, err = db.SetTitles("blog", many, true); err != nil || set != counter.MaxTitles || total != counter.MaxTitles {
			t.Errorf("titles -replace at the bound: %d of %d, %v", set, total, err)
		}
		if got, _ := db.Titles("blog", []string{"/a/", "/p0"}); fmt.Sprint(got) != "map[/p0:t]" {
			t.Errorf("after replace: %v", got)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

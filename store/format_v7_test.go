package store

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// formatFileV7 is a database written by the code of schema version 7. Of
// the sources: a plain counter (news) with a day of views from a search
// engine's hosts (one group), a forum and its own host (none), folded into
// its history, and the next day's still in its today bucket; a site (site)
// with views from a social site and titles for two of its pages.
// formatDumpFileV7 is its listing (dumpFile), written with it.
const (
	formatFileV7     = "../testdata/format/counter-v7.db"
	formatDumpFileV7 = "../testdata/format/counter-v7.dump"
)

// writeV7 writes formatFileV7 through the store, as the counter does, when
// TestFormat is run with -write-format under schema version 7. It was run
// once; the files are committed and must never be written again.
func writeV7(t *testing.T) {
	if schemaVersion != 7 {
		t.Fatalf("schema version %d: the v7 file is the version 7 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV7)
	defer os.Remove(LockPath(formatFileV7))
	first := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	with(t, formatFileV7, Options{Create: true}, func(db *DB) {
		if err := db.Create("news", 0, first); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateWith("site", 0, first, site); err != nil {
			t.Fatal(err)
		}
		for d := range 2 {
			at := first.AddDate(0, 0, d)
			for i, src := range []string{"www.google.com", "google.de", "forum.example", "news.example", ""} {
				if _, err := db.Visit(Visit{Name: "news", Now: at.Add(time.Duration(i) * time.Hour), RefHost: "news.example", Source: src,
					Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}}); err != nil {
					t.Fatal(err)
				}
			}
			for i, v := range []struct{ page, src string }{{"/", "t.co"}, {"/posts/hello", "old.reddit.com"}, {"/posts/hello", "blog.example"}} {
				if _, err := db.Visit(Visit{Name: "site", Now: at.Add(time.Duration(i) * time.Minute), RefHost: "blog.example", Target: v.page, Source: v.src,
					Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true, PageVisitor: true}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, _, err := db.SetTitles("site", []counter.Title{{Page: "/", Title: "Home"}, {Page: "/posts/hello", Title: "Hello, <world> & all"}}, false); err != nil {
			t.Fatal(err)
		}
	})
	writeDump(t, formatFileV7, formatDumpFileV7)
}

// checkFormatV7 reads the committed version 7 file through the store: its
// sources and titles, which add the today buckets' day to the history's.
func checkFormatV7(t *testing.T, db *DB) {
	h, err := db.History("news", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(h.Sources), "[{Google 4} {forum.example 2}]"; got != want {
		t.Errorf("news' sources %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(h.Referrers), "[{news.example 10}]"; got != want {
		t.Errorf("news' referrers %s, want %s", got, want)
	}
	h, err = db.History("site", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(h.Sources), "[{Reddit 2} {Twitter/X 2}]"; got != want {
		t.Errorf("site's sources %s, want %s", got, want)
	}
	titles, err := db.Titles("site", []string{"/", "/posts/hello", "/about"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(titles), "map[/:Home /posts/hello:Hello, <world> & all]"; got != want {
		t.Errorf("site's titles %s, want %s", got, want)
	}
}

// The committed file of the version 6 release is migrated in place by the
// first write of this version, which rewrites nothing: its counters have
// no sources and its site no titles until a view from a source, or the
// titles command, makes them, and every count stands as it was.
func TestMigrateV6(t *testing.T) {
	path := copyOf(t, formatFileV6)
	at := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC) // the day of the v6 file's today rows
	with(t, path, Options{}, func(db *DB) {
		before := listLines(t, db)
		if v := versionOf(t, db); v != 6 {
			t.Fatalf("version %d before the first write, want 6", v)
		}
		rows := todayRowsOf(t, db)
		if _, err := db.Visit(Visit{Name: "visits", Now: at, RefHost: "example.org", Source: "duckduckgo.com",
			Outcome: counter.Outcome{Kind: counter.View}}); err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, db); v != schemaVersion {
			t.Errorf("version %d after the first write, want %d", v, schemaVersion)
		}
		if n := todayRowsOf(t, db); n != rows+1 {
			t.Errorf("%d rows in today, want the v6 file's %d and the source's", n, rows)
		}
		h, err := db.History("visits", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(h.Sources); got != "[{DuckDuckGo 1}]" {
			t.Errorf("visits' sources %s, want DuckDuckGo's 1", got)
		}
		if h.Count != 17 || len(h.Referrers) != 1 || h.Referrers[0].Hits != 7 {
			t.Errorf("visits after a view: %d views, referrers %+v; want 17 and example.org's 7", h.Count, h.Referrers)
		}
		if n, total, err := db.SetTitles("site", []counter.Title{{Page: "/about", Title: "About"}}, false); err != nil || n != 1 || total != 1 {
			t.Errorf("SetTitles on the migrated site: %d of %d, %v", n, total, err)
		}
		// The next day's first write folds the v6 rows and the source.
		if _, err := db.Visit(Visit{Name: "visits", Now: at.AddDate(0, 0, 1), Outcome: counter.Outcome{Kind: counter.View}}); err != nil {
			t.Fatal(err)
		}
		if h, err = db.History("visits", time.Time{}); err != nil || fmt.Sprint(h.Sources) != "[{DuckDuckGo 1}]" || h.Count != 18 {
			t.Errorf("visits after the fold: %d views, sources %v, %v", h.Count, h.Sources, err)
		}
		if after := listLines(t, db); !strings.Contains(before, "visits views=16 ") || !strings.Contains(after, "visits views=18 ") {
			t.Errorf("List before:\n%s\nafter:\n%s", before, after)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// newSite creates a file holding the site "blog" for blog.example with
// the settings given, and returns its path.
func newSite(tb testing.TB, settings ...string) string {
	tb.Helper()
	path := newDB(tb)
	s, err := counter.NewSite("blog.example,*.blog.example")
	if err != nil {
		tb.Fatal(err)
	}
	for _, kv := range settings {
		if err := s.Set(kv); err != nil {
			tb.Fatal(err)
		}
	}
	with(tb, path, Options{}, func(db *DB) {
		if err := db.CreateWith("blog", 0, day1, s); err != nil {
			tb.Fatal(err)
		}
	})
	return path
}

// pageView is a counted view of target from a page on host.
func pageView(host, target string, at time.Time, newVisitor bool) Visit {
	return Visit{Name: "blog", Now: at, RefHost: host, Target: target,
		Outcome: counter.Outcome{Kind: counter.View, NewVisitor: newVisitor, PageVisitor: newVisitor}}
}

// visitAll counts the visits in one transaction: what is tested is where
// they go, not how each is made durable.
func visitAll(tb testing.TB, db *DB, visits ...Visit) []Counted {
	tb.Helper()
	out, err := db.VisitAll(visits)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func pagesOf(tb testing.TB, db *DB, since time.Time) map[string]counter.Page {
	tb.Helper()
	list, err := db.Pages("blog", since)
	if err != nil {
		tb.Fatal(err)
	}
	m := map[string]counter.Page{}
	for _, p := range list {
		m[p.Page] = p
	}
	return m
}

func TestSiteCountsEachPage(t *testing.T) {
	path := newSite(t)
	day2 := day1.Add(2 * time.Minute)
	with(t, path, Options{}, func(db *DB) {
		got := visitAll(t, db,
			pageView("blog.example", "/posts/hello/", day1, true),
			pageView("www.blog.example", "/posts/hello/index.html?utm_source=x", day1, true),
			pageView("blog.example", "/posts/other", day2, true),
			// No Referer, the tag names a page the site has: counted there.
			pageView("", "/posts/other/", day2, false),
			// No Referer and a page the site has not: the site alone.
			pageView("", "/made-up", day2, false),
			// The image's figure is the site's when the tag asks.
			func() Visit {
				v := pageView("blog.example", "/posts/hello", day2, false)
				site := counter.SiteImage
				v.Image = &site
				return v
			}(),
		)
		want := []struct {
			page  string
			shown uint64
		}{{"/posts/hello", 1}, {"/posts/hello", 2}, {"/posts/other", 1}, {"/posts/other", 2}, {"", 5}, {"/posts/hello", 6}}
		for i, w := range want {
			if got[i].Page != w.page || got[i].Shown != w.shown {
				t.Errorf("hit %d: page %q shown %d; want %q, %d", i, got[i].Page, got[i].Shown, w.page, w.shown)
			}
		}
		pages := pagesOf(t, db, time.Time{})
		if len(pages) != 2 || pages["/posts/hello"].Views != 3 || pages["/posts/other"].Views != 2 ||
			pages["/posts/hello"].Visitors != 2 || !pages["/posts/hello"].FirstSeen.Equal(day1.Truncate(time.Second)) {
			t.Errorf("pages %+v", pages)
		}
		recent := pagesOf(t, db, day2)
		if recent["/posts/hello"].Views != 1 || recent["/posts/other"].Views != 2 || len(recent) != 2 {
			t.Errorf("pages since day 2: %+v", recent)
		}
		info, err := db.Counter("blog")
		if err != nil || info.Count != 6 || info.Pages != 2 || !info.Settings.IsSite() {
			t.Errorf("site %+v, %v", info, err)
		}
		h, err := db.PageHistory("blog", "/posts/hello", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if h.Count != 3 || len(h.Days) != 2 || h.Days[0].Views != 2 || h.Days[1].Views != 1 || h.Days[0].Visitors != 2 {
			t.Errorf("page history %+v", h)
		}
		if _, err := db.PageHistory("blog", "/nowhere", time.Time{}); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("history of a page not made: %v", err)
		}
	})
}

// Hits that are not views show the page's figure and make no page.
func TestSiteHitsNotCountedMakeNoPage(t *testing.T) {
	path := newSite(t)
	with(t, path, Options{}, func(db *DB) {
		visitAll(t, db, pageView("blog.example", "/a", day1, true))
		for _, k := range []counter.Kind{counter.Reload, counter.Bot, counter.Foreign, counter.Owner} {
			for _, target := range []string{"/a", "/b"} {
				v := pageView("blog.example", target, day1, false)
				v.Outcome = counter.Outcome{Kind: k}
				c := visitAll(t, db, v)[0]
				if wantPage := map[string]string{"/a": "/a"}[target]; c.Page != wantPage || c.Shown != 1 {
					t.Errorf("%v on %s: page %q shown %d; want %q, 1", k, target, c.Page, c.Shown, wantPage)
				}
			}
		}
		if pages := pagesOf(t, db, time.Time{}); len(pages) != 1 {
			t.Errorf("pages %+v", pages)
		}
	})
}

// A flood of made-up paths from an allowed page stops at the cap: the
// rest count under one row, and the file grows by a bounded amount.
func TestSiteFloodStopsAtTheCap(t *testing.T) {
	path := newSite(t)
	long := "/" + strings.Repeat("x", counter.MaxPageLen)
	flood := func(db *DB, from, to int) []Counted {
		var visits []Visit
		for i := from; i < to; i++ {
			visits = append(visits, pageView("blog.example", fmt.Sprintf("%s%d", long[:counter.MaxPageLen-8], i), day1, true))
		}
		return visitAll(t, db, visits...)
	}
	// The bytes in use, not the file's size, which bbolt doubles ahead.
	size := func() int64 {
		r, err := testCheck(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r.InUse
	}
	before := size()
	with(t, path, Options{}, func(db *DB) {
		for i := 0; i < counter.DefaultMaxPages; i += 2000 {
			flood(db, i, i+2000)
		}
	})
	atCap := size()
	var past []Counted
	with(t, path, Options{}, func(db *DB) {
		for i := counter.DefaultMaxPages; i < 2*counter.DefaultMaxPages; i += 2000 {
			past = append(past, flood(db, i, i+2000)...)
		}
	})
	after := size()
	first := 0
	for _, c := range past {
		if c.Page != counter.OtherPages {
			t.Fatalf("a hit past the cap counted on %q", c.Page)
		}
		if c.FirstPastCap {
			first++
		}
	}
	if first != 1 {
		t.Errorf("%d hits said they were the day's first past the cap; want 1", first)
	}
	// A page costs two records of at most MaxPageLen and some 60 bytes
	// each. bbolt's pages are at least half full, and the pages a
	// transaction frees are in use until a later one takes them: twice
	// that again.
	perPage := int64(2 * 2 * 2 * (counter.MaxPageLen + 64))
	if grew := atCap - before; grew > int64(counter.DefaultMaxPages)*perPage+1<<20 {
		t.Errorf("the file grew by %d bytes to the cap; want at most %d a page", grew, perPage)
	}
	if grew := after - atCap; grew > 256<<10 {
		t.Errorf("the file grew by %d bytes past the cap; want nearly nothing", grew)
	}
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		pages := pagesOf(t, db, time.Time{})
		if len(pages) != counter.DefaultMaxPages+1 || pages[counter.OtherPages].Views != counter.DefaultMaxPages {
			t.Errorf("%d rows, %d under %s", len(pages), pages[counter.OtherPages].Views, counter.OtherPages)
		}
		info, _ := db.Counter("blog")
		if info.Count != 2*counter.DefaultMaxPages || info.Pages != counter.DefaultMaxPages {
			t.Errorf("site total %d, pages %d", info.Count, info.Pages)
		}
	})
	t.Logf("flood: %d bytes to the cap, %d past it", atCap-before, after-atCap)
}

// Made-up paths from pages on other hosts make no page, however many.
func TestSiteForeignHostsMakeNoPage(t *testing.T) {
	path := newSite(t, "max-pages=50")
	with(t, path, Options{}, func(db *DB) {
		var visits []Visit
		for i := range 3000 {
			visits = append(visits, pageView(fmt.Sprintf("spam%d.example", i), fmt.Sprintf("/spam/%d", i), day1, true))
			// A look-alike host is no host of the site.
			visits = append(visits, pageView("blog.example.evil", fmt.Sprintf("/x/%d", i), day1, true))
		}
		for _, c := range visitAll(t, db, visits...) {
			if c.Page != "" {
				t.Fatalf("a foreign page counted on %q", c.Page)
			}
		}
		if pages := pagesOf(t, db, time.Time{}); len(pages) != 0 {
			t.Errorf("%d pages made", len(pages))
		}
	})
}

// Merging folds one page's history into another's, day by day.
func TestSiteMergePages(t *testing.T) {
	day2, day3 := day1.Add(2*time.Minute), day1.Add(26*time.Hour)
	for _, tc := range []struct {
		name        string
		into        string
		wantDays    string
		wantViews   uint64
		wantVisitor uint64
		wantPages   uint64
	}{
		// Both sides have history, on shared days and days of their own.
		{"into a page with history", "/new", "2026-03-01:3/2 2026-03-02:4/2 2026-03-03:1/1", 8, 5, 2},
		// The page moved to where nothing was counted yet.
		{"into a new page", "/brand-new/", "2026-03-01:2/1 2026-03-02:1/1", 3, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newSite(t)
			with(t, path, Options{}, func(db *DB) {
				visitAll(t, db,
					pageView("blog.example", "/old", day1, true), pageView("blog.example", "/old", day1, false),
					pageView("blog.example", "/old", day2, true),
					pageView("blog.example", "/new", day1, true),
					pageView("blog.example", "/new", day2, true), pageView("blog.example", "/new", day2, false), pageView("blog.example", "/new", day2, false),
					pageView("blog.example", "/new", day3, true),
					pageView("blog.example", "/other", day3, true),
				)
				if tc.into == "/brand-new/" {
					// The moved page's new address: no history yet.
					tc.wantDays = "2026-03-01:2/1 2026-03-02:1/1"
				}
				merged, err := db.MergePage("blog", "/old/index.html", tc.into)
				if err != nil {
					t.Fatal(err)
				}
				if merged.Views != tc.wantViews || merged.Visitors != tc.wantVisitor || !merged.FirstSeen.Equal(day1.Truncate(time.Second)) {
					t.Errorf("merged %+v", merged)
				}
				h, err := db.PageHistory("blog", merged.Page, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				var days []string
				for _, d := range h.Days {
					days = append(days, fmt.Sprintf("%s:%d/%d", d.Date, d.Views, d.Visitors))
				}
				if got := strings.Join(days, " "); got != tc.wantDays {
					t.Errorf("days %s; want %s", got, tc.wantDays)
				}
				if _, err := db.PageHistory("blog", "/old", time.Time{}); !errors.Is(err, counter.ErrNotFound) {
					t.Errorf("the old page is still there: %v", err)
				}
				info, _ := db.Counter("blog")
				if info.Pages != tc.wantPages || info.Count != 9 {
					t.Errorf("site of %d pages, %d views; want %d, 9", info.Pages, info.Count, tc.wantPages)
				}
				all, err := db.PageDays("blog", counter.PageDay{}, 100)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range all {
					if d.Page == "/old" {
						t.Errorf("a day of /old is left: %+v", d)
					}
				}
			})
			if _, err := testCheck(path, time.Second); err != nil {
				t.Errorf("check after the merge: %v", err)
			}
		})
	}
	path := newSite(t)
	with(t, path, Options{}, func(db *DB) {
		visitAll(t, db, pageView("blog.example", "/a", day1, true))
		for _, c := range []struct{ from, to string }{{"/a", "/a/"}, {"/nowhere", "/a"}, {"/a", "/../x"}, {"a", "/b"}} {
			if _, err := db.MergePage("blog", c.from, c.to); err == nil {
				t.Errorf("merge %s into %s: no error", c.from, c.to)
			}
		}
	})
}

// TestSitePageDaysInPieces reads a site's page-days a piece at a time,
// each piece after the last one's last: together they are every page-day
// once, by date then page, however the pieces are cut, and a page-day
// counted between two pieces is in a later one when it sorts after.
func TestSitePageDaysInPieces(t *testing.T) {
	day2 := day1.Add(2 * time.Minute) // the next UTC day
	day3 := day2.AddDate(0, 0, 1)
	path := newSite(t)
	with(t, path, Options{}, func(db *DB) {
		if err := db.Create("plain", 0, day1); err != nil {
			t.Fatal(err)
		}
		visitAll(t, db,
			pageView("blog.example", "/b", day1, true), pageView("blog.example", "/a", day1, false),
			pageView("blog.example", "/a/b", day1, true), pageView("blog.example", "/a", day2, true),
			pageView("blog.example", "/c", day2, true), pageView("blog.example", "/a", day3, true),
		)
	})
	want := fmt.Sprintf("%[1]s /a 1/0, %[1]s /a/b 1/1, %[1]s /b 1/1, %[2]s /a 1/1, %[2]s /c 1/1, %[3]s /a 1/1",
		day1.Format(time.DateOnly), day2.Format(time.DateOnly), day3.Format(time.DateOnly))
	for _, n := range []int{1, 2, 5, 6, 7, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var got []string
			var after counter.PageDay
			for reads := 1; ; reads++ {
				var piece []counter.PageDay
				with(t, path, Options{ReadOnly: true}, func(db *DB) {
					var err error
					if piece, err = db.PageDays("blog", after, n); err != nil {
						t.Fatal(err)
					}
				})
				if len(piece) > n {
					t.Fatalf("read %d: %d page-days, asked for %d", reads, len(piece), n)
				}
				for _, d := range piece {
					got = append(got, fmt.Sprintf("%s %s %d/%d", d.Date, d.Page, d.Views, d.Visitors))
				}
				if len(piece) < n {
					break
				}
				after = piece[len(piece)-1]
			}
			if s := strings.Join(got, ", "); s != want {
				t.Errorf("page-days\n%s\nwant\n%s", s, want)
			}
		})
	}
	t.Run("from a date", func(t *testing.T) {
		with(t, path, Options{ReadOnly: true}, func(db *DB) {
			got, err := db.PageDays("blog", counter.PageDay{Date: day2.Format(time.DateOnly)}, 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || got[0].Page != "/a" || got[0].Date != day2.Format(time.DateOnly) {
				t.Errorf("from %s: %+v; want its /a first, and three in all", day2.Format(time.DateOnly), got)
			}
		})
	})
	t.Run("a hit between pieces", func(t *testing.T) {
		var first []counter.PageDay
		with(t, path, Options{}, func(db *DB) {
			var err error
			if first, err = db.PageDays("blog", counter.PageDay{}, 2); err != nil {
				t.Fatal(err)
			}
			visitAll(t, db, pageView("blog.example", "/a", day1, true), pageView("blog.example", "/d", day3, true))
		})
		with(t, path, Options{ReadOnly: true}, func(db *DB) {
			rest, err := db.PageDays("blog", first[1], 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(rest) != 5 || rest[0].Page != "/b" || rest[4].Page != "/d" {
				t.Errorf("after %+v: %+v; want /b to /d, the new day of /d last", first[1], rest)
			}
		})
	})
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		for _, c := range []struct {
			name string
			want error
		}{{"nosuch", counter.ErrNotFound}, {"plain", counter.ErrNotSite}} {
			if _, err := db.PageDays(c.name, counter.PageDay{}, 10); !errors.Is(err, c.want) {
				t.Errorf("page-days of %s: %v, want %v", c.name, err, c.want)
			}
		}
	})
}

// A version 2 file, written by the version 2 release, is migrated by the
// first write of this version: its counters stay as they were, and it can
// hold a site after.
func TestMigrateV2(t *testing.T) {
	path := copyOf(t, formatFileV2)
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		if v := versionOf(t, db); v != 2 {
			t.Fatalf("version %d before any write", v)
		}
	})
	with(t, path, Options{}, func(db *DB) {
		c, err := db.Visit(Visit{Name: "home", Now: time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC), Target: "/x",
			Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}})
		if err != nil || c.Shown != 3 || c.Page != "" {
			t.Fatalf("first hit after the upgrade: %+v, %v; want 3 on the counter itself", c, err)
		}
		if v := versionOf(t, db); v != schemaVersion {
			t.Errorf("version %d after the first write; want %d", v, schemaVersion)
		}
		s, _ := counter.NewSite("blog.example")
		if err := db.CreateWith("site", 0, day1, s); err != nil {
			t.Fatal(err)
		}
		list, err := db.List()
		if err != nil || len(list) != 3 || list[0].Count != 502 || list[0].Settings.IsSite() || !list[2].Settings.IsSite() {
			t.Errorf("after the migration: %+v, %v", list, err)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check after migration: %v", err)
	}
}

// A page's figures are its record and its days not folded into it yet,
// whatever the order the days come in: the first hit of a day folds the
// days before it, and a hit dated on a day already folded (one that
// waited past midnight for its batch, or a clock set back) still counts
// once.
func TestSitePagesFoldDayByDay(t *testing.T) {
	path := newSite(t)
	d := func(n int) time.Time { return day1.AddDate(0, 0, n) }
	with(t, path, Options{}, func(db *DB) {
		steps := []struct {
			visit Visit
			shown uint64
		}{
			{pageView("blog.example", "/a", d(0), true), 1},
			{pageView("blog.example", "/a", d(0), false), 2},
			{pageView("blog.example", "/b", d(0), true), 1},
			{pageView("blog.example", "/a", d(2), true), 3},  // folds day 0
			{pageView("blog.example", "/a", d(0), false), 4}, // late, into the record
			{pageView("blog.example", "/b", d(2), false), 2},
			{pageView("blog.example", "/a", d(5), true), 5},  // folds day 2
			{pageView("blog.example", "/b", d(9), false), 3}, // folds day 5
		}
		for i, s := range steps {
			c, err := db.Visit(s.visit)
			if err != nil || c.Shown != s.shown {
				t.Fatalf("hit %d: shown %d, %v; want %d", i, c.Shown, err, s.shown)
			}
		}
		pages := pagesOf(t, db, time.Time{})
		if pages["/a"].Views != 5 || pages["/a"].Visitors != 3 || pages["/b"].Views != 3 || pages["/b"].Visitors != 1 {
			t.Errorf("pages %+v", pages)
		}
		h, err := db.PageHistory("blog", "/a", time.Time{})
		if err != nil || h.Count != 5 || len(h.Days) != 3 || h.Days[0].Views != 3 {
			t.Errorf("history of /a: %+v, %v", h, err)
		}
		if recent := pagesOf(t, db, d(2)); recent["/a"].Views != 2 || recent["/b"].Views != 2 {
			t.Errorf("pages since day 2: %+v", recent)
		}
		merged, err := db.MergePage("blog", "/b", "/a")
		if err != nil || merged.Views != 8 || merged.Visitors != 4 {
			t.Errorf("merged %+v, %v; want 8 views, 4 visitors", merged, err)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// visitBoth counts v in both files and returns what each counted: in
// folded, whose rows of today an empty write then folds into the history,
// and in kept, which keeps them.
func visitBoth(t *testing.T, folded, kept *DB, v Visit) (inFolded, inKept Counted) {
	t.Helper()
	inFolded, err := folded.Visit(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := folded.update(func(kv.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if inKept, err = kept.Visit(v); err != nil {
		t.Fatal(err)
	}
	return inFolded, inKept
}

// todayFiles makes two files with a plain counter, home, and a site,
// blog, of at most 3 pages.
func todayFiles(t *testing.T) (folded, kept string) {
	t.Helper()
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Set("max-pages=3"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*string{&folded, &kept} {
		*p = newDB(t)
		with(t, *p, Options{}, func(db *DB) {
			if err := db.Create("home", 5, day1); err != nil {
				t.Fatal(err)
			}
			if err := db.CreateWith("blog", 0, day1, site); err != nil {
				t.Fatal(err)
			}
		})
	}
	return folded, kept
}

// readAll is everything the readers say of home and blog at now, as text.
func readAll(t *testing.T, db *DB, now time.Time) string {
	t.Helper()
	var out strings.Builder
	list, err := db.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		fmt.Fprintf(&out, "counter %s %d %d %d\n", c.Name, c.Count, c.Visitors, c.Pages)
	}
	for _, c := range list {
		name := c.Name
		h, err := db.History(name, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s days %+v\n%s referrers %+v\n", name, h.Days, name, h.Referrers)
		since, err := db.History(name, now.AddDate(0, 0, -1))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s days since yesterday %+v\n", name, since.Days)
		g, err := db.Glance(name, "/a", nil, now)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s glance %d %+v %+v %+v\n", name, g.Shown, g.Today, g.Page, g.PageToday)
	}
	if !slices.ContainsFunc(list, func(c counter.Info) bool { return c.Name == "blog" }) {
		return out.String()
	}
	for _, since := range []time.Time{{}, now.AddDate(0, 0, -1), now} {
		pages, err := db.Pages("blog", since)
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(pages, func(a, b counter.Page) int { return strings.Compare(a.Page, b.Page) })
		fmt.Fprintf(&out, "pages since %s: %+v\n", since.Format(time.DateOnly), pages)
	}
	// Two at a time, to page through the merge of file and today.
	var after counter.PageDay
	for {
		days, err := db.PageDays("blog", after, 2)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "page days %+v\n", days)
		if len(days) < 2 {
			break
		}
		after = days[len(days)-1]
	}
	for _, page := range []string{"/a", counter.OtherPages} {
		h, err := db.PageHistory("blog", page, time.Time{})
		if errors.Is(err, counter.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "page %s %d %d %+v\n", page, h.Count, h.Visitors, h.Days)
	}
	return out.String()
}

// todayRowsOf is the number of rows of the today bucket, its day's key
// left out.
func todayRowsOf(t *testing.T, db *DB) int {
	t.Helper()
	n := 0
	err := db.view(func(tx kv.Tx) error {
		for i := range todayShards {
			if tb := tx.Bucket(todayShard(i)); tb != nil {
				n += tb.KeyN() - 2 // the day and the pin
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The same hits counted in two files, one whose today rows are folded
// into the history after every hit (as every hit was counted before
// version 6) and one left to fold when the day changes: every reader sees
// the same in both, after every hit, across a day with no hits, a hit that
// comes late for its day, and the folds.
func TestTodayReadsAsHistory(t *testing.T) {
	foldedPath, keptPath := todayFiles(t)
	d := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	view := func(name string, at time.Time, ref string, k counter.Kind, visitor bool) Visit {
		return Visit{Name: name, Now: at, RefHost: ref, Outcome: counter.Outcome{Kind: k, NewVisitor: visitor}}
	}
	page := func(target string, at time.Time, visitor bool) Visit {
		return pageView("blog.example", target, at, visitor)
	}
	var visits []Visit
	for _, at := range []time.Time{d, d.AddDate(0, 0, 1), d.AddDate(0, 0, 3)} {
		visits = append(visits,
			view("home", at, "", counter.View, true),
			view("home", at.Add(time.Minute), "a.example", counter.View, false),
			view("home", at.Add(2*time.Minute), "b.example", counter.GitHub, true),
			view("home", at.Add(3*time.Minute), "", counter.Bot, false),
			page("/a", at, true), page("/a", at.Add(time.Minute), false),
			page("/b", at.Add(2*time.Minute), true), page("/c", at.Add(3*time.Minute), true),
			page("/d", at.Add(4*time.Minute), true), // past max-pages: (other pages)
			Visit{Name: "blog", Now: at.Add(5 * time.Minute), RefHost: "blog.example", Target: "/a",
				Outcome: counter.Outcome{Kind: counter.Reload}},
			view("blog", at.Add(6*time.Minute), "elsewhere.example", counter.View, true),
		)
	}
	// Late for its day: dated the day before the last rows', it goes into
	// the history.
	visits = append(visits, view("home", d.AddDate(0, 0, 1).Add(time.Hour), "a.example", counter.View, true),
		page("/b", d.AddDate(0, 0, 1).Add(time.Hour), true), page("/a", d.AddDate(0, 0, 3).Add(time.Hour), false))

	folded, err := testOpen(foldedPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := testOpen(keptPath, Options{})
	if err != nil {
		folded.Close()
		t.Fatal(err)
	}
	closed := false
	closeBoth := func() {
		if !closed {
			folded.Close()
			kept.Close()
			closed = true
		}
	}
	defer closeBoth()
	for i, v := range visits {
		a, b := visitBoth(t, folded, kept, v)
		a.settings, b.settings = counter.Settings{}, counter.Settings{}
		if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
			t.Errorf("hit %d (%s %s %s): got %+v, want %+v", i, v.Name, v.Target, v.Now, b, a)
		}
		if got, want := readAll(t, kept, v.Now), readAll(t, folded, v.Now); got != want {
			t.Fatalf("after hit %d (%s %s %s), with today's rows:\n%s\nwant, all in the history:\n%s", i, v.Name, v.Target, v.Now, got, want)
		}
		if n := todayRowsOf(t, folded); n != 0 {
			t.Fatalf("after hit %d, %d rows left in today of the folded file", i, n)
		}
	}
	// The last day's rows are still in today: home's counts and
	// referrer, blog's counts, referrer and pages.
	if n := todayRowsOf(t, kept); n < 6 {
		t.Errorf("%d rows in today, want home's and blog's", n)
	}
	closeBoth()
	for _, p := range []string{foldedPath, keptPath} {
		if _, err := testCheck(p, time.Second); err != nil {
			t.Errorf("check %s: %v", p, err)
		}
	}
}

// A fold is part of the write that makes it: one that fails leaves the
// today rows and the history as they were, and the hit is not counted.
func TestTodayFoldIsAllOrNothing(t *testing.T) {
	path := newDB(t, "home")
	d := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	with(t, path, Options{}, func(db *DB) {
		for range 3 {
			if _, err := db.Hit("home", d, "a.example"); err != nil {
				t.Fatal(err)
			}
		}
		// A row the fold cannot place, sorted after home's.
		err := db.write(func(tx kv.Tx) error {
			return tx.Bucket(todayBucket("home")).Put(todayPrefix("zz-gone"), encodeToday(counter.Tally{Views: 1}))
		})
		if err != nil {
			t.Fatal(err)
		}
		before := readAll(t, db, d)
		if _, err := db.Hit("home", d.AddDate(0, 0, 1), ""); !errors.Is(err, ErrCorrupt) {
			t.Errorf("a hit of the next day: %v, want ErrCorrupt", err)
		}
		if got := readAll(t, db, d); got != before {
			t.Errorf("after a failed fold:\n%s\nwant as before:\n%s", got, before)
		}
		if n := todayRowsOf(t, db); n != 3 {
			t.Errorf("%d rows in today, want home's 2 and the bad one", n)
		}
		info, err := db.Counter("home")
		if err != nil || info.Count != 3 {
			t.Errorf("home: %d views, %v; want 3", info.Count, err)
		}
	})
}

// A hit of the current day writes its today bucket, the root, the
// freelist and the meta page, whatever the file's age: at most four pages,
// on a fresh file, on one with a year of 200 counters' days, once all 200
// had a view that day, and the next day, once each today bucket's first
// view folded the day before.
func TestHitWritesFourPages(t *testing.T) {
	needFile(t)
	year := newDB(t)
	d := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	name := func(i int) string { return fmt.Sprintf("counter-%03d", i) }
	view := func(i int, at time.Time) Visit {
		return Visit{Name: name(i), Now: at, RefHost: "example.org", Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}}
	}
	with(t, year, Options{}, func(db *DB) {
		for i := range 200 {
			if err := db.Create(name(i), 0, d); err != nil {
				t.Fatal(err)
			}
		}
		// The year in one transaction, its last day folded.
		err := db.update(func(tx kv.Tx) error {
			for day := range 365 {
				for i := range 200 {
					if _, err := visitTx(tx, view(i, d.AddDate(0, 0, day))); err != nil {
						return err
					}
				}
			}
			return foldToday(tx)
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	now := d.AddDate(1, 0, 0)
	for _, tc := range []struct {
		name, path string
		before     func(*DB) // views before the measure
	}{
		{"fresh", newDB(t, name(100)), nil},
		{"a year of 200 counters", year, nil},
		{"all 200 seen today", year, func(db *DB) {
			for i := range 200 {
				if _, err := db.Visit(view(i, now)); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"the next day, all 200 seen", year, func(db *DB) {
			for i := range 200 {
				if _, err := db.Visit(view(i, now.AddDate(0, 0, 1))); err != nil {
					t.Fatal(err)
				}
			}
			now = now.AddDate(0, 0, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			with(t, tc.path, Options{}, func(db *DB) {
				if tc.before != nil {
					tc.before(db)
				}
				for i := range 4 {
					stats := db.bolt.Stats()
					before := stats.TxStats.GetPageAlloc()
					if _, err := db.Visit(view(100, now.Add(time.Duration(i)*time.Second))); err != nil {
						t.Fatal(err)
					}
					// The meta page is written besides the pages allocated.
					stats = db.bolt.Stats()
					written := stats.TxStats.GetPageAlloc() - before + int64(db.bolt.Info().PageSize)
					if written > 4*4096 {
						t.Errorf("view %d wrote %d bytes, want at most %d (%d pages free)", i, written, 4*4096, stats.FreePageN)
					}
				}
			})
		})
	}
}

// The bound on a counter's referring hosts holds across the history and
// the day's rows: past counter.MaxReferrers hosts, a new host's views add
// up under counter.OtherReferrers, as they did with every hit in the
// history, before the fold and after.
func TestTodayReferrersBounded(t *testing.T) {
	foldedPath, keptPath := todayFiles(t)
	d := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	var visits []Visit
	for i := range counter.MaxReferrers + 30 {
		day := d
		if i >= 60 {
			day = d.AddDate(0, 0, 1)
		}
		visits = append(visits, Visit{Name: "home", Now: day.Add(time.Duration(i) * time.Second), RefHost: fmt.Sprintf("h%03d.example", i),
			Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}})
		if i%7 == 0 { // a host seen before, and one of the day before
			visits = append(visits, Visit{Name: "home", Now: day.Add(time.Duration(i)*time.Second + 1), RefHost: fmt.Sprintf("h%03d.example", i/2),
				Outcome: counter.Outcome{Kind: counter.View}})
		}
	}
	visits = append(visits, Visit{Name: "home", Now: d.AddDate(0, 0, 2), RefHost: "late.example", Outcome: counter.Outcome{Kind: counter.View}})
	with(t, foldedPath, Options{}, func(folded *DB) {
		with(t, keptPath, Options{}, func(kept *DB) {
			for i, v := range visits {
				visitBoth(t, folded, kept, v)
				a, err := folded.Referrers("home")
				if err != nil {
					t.Fatal(err)
				}
				b, err := kept.Referrers("home")
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a, b) {
					t.Fatalf("after hit %d (%s %s): referrers\n%v\nwant, all in the history:\n%v", i, v.RefHost, v.Now, b, a)
				}
			}
			refs, err := kept.Referrers("home")
			if err != nil {
				t.Fatal(err)
			}
			var sum uint64
			for _, r := range refs {
				sum += r.Hits
			}
			if len(refs) != counter.MaxReferrers+1 || refs[0].Host != counter.OtherReferrers || sum != uint64(len(visits)) {
				t.Errorf("%d hosts, the first %q, %d views in all; want %d, %q and %d", len(refs), refs[0].Host, sum, counter.MaxReferrers+1, counter.OtherReferrers, len(visits))
			}
		})
	})
}

// A site's day of more pages than a day keeps (KeptPagesADay) is trimmed
// when it is folded, and reads the same as with every hit in the history:
// before the fold, after the next day's first hit, and after the day
// after's.
func TestTodayTrimsAsHistory(t *testing.T) {
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{newDB(t), newDB(t)}
	for _, p := range paths {
		with(t, p, Options{}, func(db *DB) {
			if err := db.CreateWith("blog", 0, day1, site); err != nil {
				t.Fatal(err)
			}
		})
	}
	d := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	var days [][]Visit
	var first []Visit
	for i := range KeptPagesADay + 10 {
		first = append(first, pageView("blog.example", fmt.Sprintf("/p%03d", i), d.Add(time.Duration(i)*time.Second), true))
		if i%3 == 0 {
			first = append(first, pageView("blog.example", fmt.Sprintf("/p%03d", i), d.Add(time.Duration(i)*time.Second+1), false))
		}
	}
	days = append(days, first,
		[]Visit{pageView("blog.example", "/p205", d.AddDate(0, 0, 1), true), pageView("blog.example", "/p001", d.AddDate(0, 0, 1), true)},
		[]Visit{pageView("blog.example", "/p002", d.AddDate(0, 0, 2), true)})
	with(t, paths[0], Options{}, func(folded *DB) {
		with(t, paths[1], Options{}, func(kept *DB) {
			for n, day := range days {
				for _, v := range day {
					visitBoth(t, folded, kept, v)
				}
				now := day[len(day)-1].Now
				if got, want := readAll(t, kept, now), readAll(t, folded, now); got != want {
					t.Fatalf("after day %d, with today's rows:\n%s\nwant, all in the history:\n%s", n, got, want)
				}
			}
			if got := len(pageDaysOf(t, kept, "2026-12-03")); got != KeptPagesADay+1 {
				t.Errorf("%d rows of the first day, want its %d most viewed and (other pages)", got, KeptPagesADay)
			}
		})
	})
}

package store

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// TestSiteYearOfMadeUpPages replays a year, day by day with the clock of
// each day, of a site with 50 real pages and a visitor who names 10,000
// made-up pages of the longest key every day: the same ones, the worst
// case, as each keeps its row while the day lasts. The hits go through
// the path real hits take (visitTx, whose first hit of a day folds the
// day before), a few thousand to a transaction for speed. The file stays
// far from its maximum, and the real pages' counts, all time and by day,
// are exact.
func TestSiteYearOfMadeUpPages(t *testing.T) {
	needFile(t)
	const (
		real    = 50
		madeUp  = 10_000
		perTx   = 5_000
		padding = counter.MaxPageLen - len("/made/00000/")
	)
	days := 365
	if testing.Short() {
		days = 30 // the shape of it, in a tenth of the time
	}
	path := newSite(t)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	realPage := func(i int) string { return fmt.Sprintf("/real/%02d", i) }
	realViews := func(i int) int { return 1 + i%4 } // a day; a fourth of them tie with a made-up page
	made := make([]string, madeUp)
	for i := range made {
		made[i] = fmt.Sprintf("/made/%05d/", i) + strings.Repeat("x", padding)
	}
	inUse := func() int64 {
		r, err := testCheck(path, time.Minute)
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		return r.InUse
	}
	var folds []time.Duration // of each day's first hit, which folds the day before
	replay := func(db *DB, from, to int) {
		visits := make([]Visit, 0, perTx)
		flush := func() {
			if _, err := db.VisitAll(visits); err != nil {
				if errors.Is(err, ErrFull) {
					t.Fatalf("the file is full: %v", err)
				}
				t.Fatal(err)
			}
			visits = visits[:0]
		}
		for d := from; d < to; d++ {
			day := start.AddDate(0, 0, d)
			// The real pages are seen first on the first day, before the
			// flood: they win the ties of a day's ranking. The day's first
			// hit is a transaction of its own, as a CGI hit is, and timed.
			for i := range real {
				for n := range realViews(i) {
					at := day.Add(time.Duration(i*4+n) * time.Second)
					visits = append(visits, pageView("blog.example", realPage(i), at, n == 0))
					if d > 0 && i == 0 && n == 0 {
						began := time.Now()
						flush()
						folds = append(folds, time.Since(began))
					}
				}
			}
			for i, page := range made {
				visits = append(visits, pageView("blog.example", page, day.Add(time.Hour+time.Duration(i)*time.Second), true))
				if len(visits) == perTx {
					flush()
				}
			}
			flush()
		}
	}
	with(t, path, Options{}, func(db *DB) { replay(db, 0, 30) })
	at30 := inUse()
	with(t, path, Options{}, func(db *DB) { replay(db, 30, days) })
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	end := inUse()
	slices.Sort(folds)
	perDay := float64(end-at30) / float64(max(days-30, 1))
	t.Logf("after %d days of %d made-up pages: file %d bytes (%.1f MiB), %d bytes in use; %d after 30 days, %.0f bytes a day since: 1 GiB in %.1f years",
		days, madeUp, fi.Size(), float64(fi.Size())/(1<<20), end, at30, perDay, float64(DefaultMaxSize-end)/perDay/365.25)
	// doc.go, "Growth": the worst case of what a day keeps.
	const worst = (KeptPagesADay+1)*2560 + 124
	if days > 30 && perDay > worst {
		t.Errorf("the file grew by %.0f bytes a day; doc.go says at most %d", perDay, worst)
	}
	t.Logf("a day's first hit, which folds and trims the day before: median %v, slowest %v", folds[len(folds)/2], folds[len(folds)-1])

	last := start.AddDate(0, 0, days-1)
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		all := pagesOf(t, db, time.Time{})
		month := pagesOf(t, db, last.AddDate(0, 0, -29))
		for i := range real {
			p := realPage(i)
			want := counter.Page{Views: uint64(days * realViews(i)), Visitors: uint64(days)}
			if got := all[p]; got.Views != want.Views || got.Visitors != want.Visitors {
				t.Errorf("%s all time: %d views, %d visitors; want %d, %d", p, got.Views, got.Visitors, want.Views, want.Visitors)
			}
			if got := month[p]; got.Views != uint64(30*realViews(i)) || got.Visitors != 30 {
				t.Errorf("%s over 30 days: %d views, %d visitors; want %d, 30", p, got.Views, got.Visitors, 30*realViews(i))
			}
		}
		h, err := db.PageHistory("blog", realPage(0), time.Time{})
		if err != nil || len(h.Days) != days || h.Count != uint64(days) {
			t.Errorf("history of %s: %d days, count %d, %v; want %d each", realPage(0), len(h.Days), h.Count, err, days)
		}
		// A made-up page keeps its views all time, not its days.
		if got := all[made[0]]; got.Views != uint64(days) {
			t.Errorf("a made-up page: %d views all time, want %d", got.Views, days)
		}
		info, err := db.Counter("blog")
		var wantTotal uint64
		for i := range real {
			wantTotal += uint64(days * realViews(i))
		}
		wantTotal += uint64(days * madeUp)
		if err != nil || info.Count != wantTotal {
			t.Errorf("site total %d, %v; want %d", info.Count, err, wantTotal)
		}
		// A past day: its most viewed pages and the rest under
		// (other pages), every view of the day still there.
		rows, err := db.PageDays("blog", counter.PageDay{Date: last.AddDate(0, 0, -1).Format(time.DateOnly)}, 2*KeptPagesADay)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		var views uint64
		for _, r := range rows {
			if r.Date == last.AddDate(0, 0, -1).Format(time.DateOnly) {
				n++
				views += r.Views
			}
		}
		if n != KeptPagesADay+1 || views != wantTotal/uint64(days) {
			t.Errorf("the day before the last: %d rows, %d views; want %d rows, %d views", n, views, KeptPagesADay+1, wantTotal/uint64(days))
		}
	})
	// What a visitor can still make: the file's maximum is far.
	if fi.Size() > 256<<20 {
		t.Errorf("the file is %d bytes after a year; want well under its 1 GiB maximum", fi.Size())
	}
}

// pageDaysOf lists the page days of date of site blog as "page views/visitors".
func pageDaysOf(t *testing.T, db *DB, date string) map[string]string {
	t.Helper()
	rows, err := db.PageDays("blog", counter.PageDay{Date: date}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range rows {
		if r.Date == date {
			m[r.Page] = fmt.Sprintf("%d/%d", r.Views, r.Visitors)
		}
	}
	return m
}

// A day over, its most viewed pages keep their rows, ties going to the
// pages the site saw first; the others' views of the day go into its
// (other pages) row, and their own records keep them. A day of no more
// pages than are kept is left as it is.
func TestSiteDayKeepsItsMostViewedPages(t *testing.T) {
	path := newSite(t)
	day := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	var visits []Visit
	for i := range 10 { // seen first, one view each
		visits = append(visits, pageView("blog.example", fmt.Sprintf("/real/%d", i), day.Add(time.Duration(i)*time.Second), true))
	}
	for i := range 240 { // seen after, one view each
		visits = append(visits, pageView("blog.example", fmt.Sprintf("/made/%03d", i), day.Add(time.Hour+time.Duration(i)*time.Second), true))
	}
	for i := range 5 { // seen last, most viewed
		visits = append(visits, pageView("blog.example", "/top", day.Add(20*time.Hour+time.Duration(i)*time.Second), i == 0))
	}
	next := day.AddDate(0, 0, 1)
	visits = append(visits, pageView("blog.example", "/top", next, true)) // folds and trims the first day
	for i := range KeptPagesADay - 1 {
		visits = append(visits, pageView("blog.example", fmt.Sprintf("/made/%03d", i), next.Add(time.Hour), true))
	}
	visits = append(visits, pageView("blog.example", "/top", next.AddDate(0, 0, 1), true)) // and the second
	with(t, path, Options{}, func(db *DB) {
		visitAll(t, db, visits...)
		first := pageDaysOf(t, db, day.Format(time.DateOnly))
		want := map[string]string{"/top": "5/1", counter.OtherPages: "51/51"}
		for i := range 10 {
			want[fmt.Sprintf("/real/%d", i)] = "1/1"
		}
		for i := range 189 {
			want[fmt.Sprintf("/made/%03d", i)] = "1/1"
		}
		if len(first) != len(want) {
			t.Errorf("the first day has %d rows, want %d", len(first), len(want))
		}
		for page, w := range want {
			if first[page] != w {
				t.Errorf("the first day's %s: %q, want %q", page, first[page], w)
			}
		}
		second := pageDaysOf(t, db, next.Format(time.DateOnly))
		if len(second) != KeptPagesADay || second[counter.OtherPages] != "" {
			t.Errorf("the second day, of %d pages: %d rows, (other pages) %q; want them all and none", KeptPagesADay, len(second), second[counter.OtherPages])
		}
		all := pagesOf(t, db, time.Time{})
		if all["/made/239"].Views != 1 || all["/made/000"].Views != 2 || all["/top"].Views != 7 {
			t.Errorf("all time: /made/239 %+v, /made/000 %+v, /top %+v; want 1, 2 and 7 views", all["/made/239"], all["/made/000"], all["/top"])
		}
		if _, ok := all[counter.OtherPages]; ok {
			t.Errorf("all time has an (other pages) row, and no hit was past max-pages: %+v", all[counter.OtherPages])
		}
		since := pagesOf(t, db, day)
		if since[counter.OtherPages].Views != 51 || since["/made/239"].Views != 0 || since["/made/000"].Views != 2 {
			t.Errorf("since the first day: (other pages) %+v, /made/239 %+v, /made/000 %+v", since[counter.OtherPages], since["/made/239"], since["/made/000"])
		}
		h, err := db.PageHistory("blog", "/made/239", time.Time{})
		if err != nil || h.Count != 1 || len(h.Days) != 0 {
			t.Errorf("history of a trimmed page: count %d, %d days, %v; want 1 and none", h.Count, len(h.Days), err)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

// The committed file of the version 4 release is migrated by the first
// write of this version, and its days, folded by version 4 and not
// trimmed, are trimmed by the daily fold, a budget of rows at a time (twice
// a day's most, max-pages and one: here 4), in order, until it catches up.
// No count is lost.
func TestMigrateV4TrimsOldDays(t *testing.T) {
	path := copyOf(t, formatFileV4)
	with(t, path, Options{}, func(db *DB) {
		_, err := db.Configure("blog", func(s *counter.Settings) error { return s.Set("max-pages=1") })
		if err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, db); v != schemaVersion {
			t.Errorf("version %d after the first write, want %d", v, schemaVersion)
		}
		steps := []struct {
			now         time.Time
			trimmed     string
			first, next int // rows of 2026-12-03 and 2026-12-04
		}{
			{time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC), "2026-12-03", KeptPagesADay + 1, 2},
			{time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC), "2026-12-05", KeptPagesADay + 1, 2},
		}
		for _, s := range steps {
			// A page the site has: max-pages makes no new one.
			if _, err := db.Visit(pageView("blog.example", "/p000", s.now, true)); err != nil {
				t.Fatal(err)
			}
			var trimmed string
			err := db.view(func(tx kv.Tx) error {
				b, err := siteBucket(tx, "blog")
				trimmed = string(b.Get(keyPagesTrimmed))
				return err
			})
			if err != nil || trimmed != s.trimmed {
				t.Errorf("on %s: pages-trimmed %q, %v; want %q", s.now.Format(time.DateOnly), trimmed, err, s.trimmed)
			}
			first, next := pageDaysOf(t, db, "2026-12-03"), pageDaysOf(t, db, "2026-12-04")
			if len(first) != s.first || len(next) != s.next {
				t.Errorf("on %s: %d and %d rows, want %d and %d", s.now.Format(time.DateOnly), len(first), len(next), s.first, s.next)
			}
			if first[counter.OtherPages] != "5/5" || first["/p199"] != "2/1" || first["/p200"] != "" {
				t.Errorf("2026-12-03: (other pages) %q, /p199 %q, /p200 %q; want 5/5, 2/1 and none", first[counter.OtherPages], first["/p199"], first["/p200"])
			}
		}
		all := pagesOf(t, db, time.Time{})
		if len(all) != formatV4Pages || all["/p000"].Views != 5 || all["/p201"].Views != 2 || all["/p204"].Views != 1 {
			t.Errorf("all time: %d pages, /p000 %+v, /p201 %+v, /p204 %+v; want %d, 5, 2 and 1 views",
				len(all), all["/p000"], all["/p201"], all["/p204"], formatV4Pages)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

// Check takes a trimmed day's (other pages) row without a record, and
// reports a page's row without one, or days trimmed past those folded.
func TestCheckTrimmedPages(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  []byte // in the site's bucket, or its page-days with a page
		day  []byte // page-days value
		val  []byte
		ok   bool
	}{
		{"an (other pages) day without a record", pageDayKey([]byte("2026-03-01"), counter.OtherPages), encodePageDay(3, 2), nil, true},
		{"a page's day without a record", pageDayKey([]byte("2026-03-01"), "/gone"), encodePageDay(3, 2), nil, false},
		{"trimmed past folded", keyPagesTrimmed, nil, []byte("2026-03-05"), false},
		{"trimmed to a non-date", keyPagesTrimmed, nil, []byte("yesterday"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newSite(t)
			with(t, path, Options{}, func(db *DB) {
				visitAll(t, db, pageView("blog.example", "/a", day1, true), pageView("blog.example", "/a", day1.AddDate(0, 0, 1), true))
				err := db.update(func(tx kv.Tx) error {
					b, err := siteBucket(tx, "blog")
					if err != nil {
						return err
					}
					if tc.day != nil {
						return b.Bucket(bucketPageDays).Put(tc.key, tc.day)
					}
					return b.Put(tc.key, tc.val)
				})
				if err != nil {
					t.Fatal(err)
				}
			})
			_, err := testCheck(path, time.Second)
			if tc.ok && err != nil || !tc.ok && !errors.Is(err, ErrCorrupt) {
				t.Errorf("check: %v; want ok %v, else ErrCorrupt", err, tc.ok)
			}
		})
	}
}

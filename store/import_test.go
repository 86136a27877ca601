package store

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

func day(date string, views, visitors uint64) counter.Day {
	return counter.Day{Date: date, Tally: counter.Tally{Views: views, Visitors: visitors}}
}

func historyOf(tb testing.TB, db *DB, name string) counter.History {
	tb.Helper()
	h, err := db.History(name, time.Time{})
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func TestImportMergesAndNeverLowers(t *testing.T) {
	path := newDB(t, "blog")
	with(t, path, Options{}, func(db *DB) {
		// The counter has counted on day1 and the day after.
		for _, at := range []time.Time{day1, day1, day1.Add(time.Hour), day1.Add(time.Hour), day1.Add(time.Hour)} {
			if _, err := db.Hit("blog", at, ""); err != nil {
				t.Fatal(err)
			}
		}
		imp := counter.Imported{Name: "blog", Days: []counter.Day{
			day("2026-02-27", 4, 3), // new
			day("2026-03-01", 1, 1), // lower in views than the file's 2: kept at 2, visitors raised
			day("2026-03-02", 7, 0), // higher: raised from 3
		}}
		imp.Days[0].NotCounted[counter.Bot] = 9
		o := ImportOptions{Now: day1.AddDate(0, 0, 2)}
		changes, err := db.Import([]counter.Imported{imp}, o)
		if err != nil {
			t.Fatal(err)
		}
		want := ImportChange{Name: "blog", DaysNew: 1, DaysRaised: 2, TotalBefore: 5, Total: 5 + 4 + 4, VisitorsBefore: 0, Visitors: 4,
			CreatedBefore: day1.Truncate(time.Second), Created: time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC)}
		if !reflect.DeepEqual(changes, []ImportChange{want}) {
			t.Errorf("changes %+v\nwant %+v", changes, want)
		}
		h := historyOf(t, db, "blog")
		wantDays := []counter.Day{day("2026-02-27", 4, 3), day("2026-03-01", 2, 1), day("2026-03-02", 7, 0)}
		wantDays[0].NotCounted[counter.Bot] = 9
		if !reflect.DeepEqual(h.Days, wantDays) || h.Count != 13 || h.Visitors != 4 {
			t.Errorf("days %+v total %d visitors %d", h.Days, h.Count, h.Visitors)
		}
		// The same import again changes nothing, and says so.
		again, err := db.Import([]counter.Imported{imp}, o)
		if err != nil {
			t.Fatal(err)
		}
		if again[0].Changed() || again[0].DaysSame != 2 || again[0].DaysHigher != 1 {
			t.Errorf("second import: %+v", again[0])
		}
		if h2 := historyOf(t, db, "blog"); !reflect.DeepEqual(h2, h) {
			t.Errorf("second import changed the history:\n%+v\n%+v", h2, h)
		}
		// Replace lowers the day and the total with it.
		o.Replace = true
		if _, err := db.Import([]counter.Imported{{Name: "blog", Days: []counter.Day{day("2026-03-02", 1, 1)}}}, o); err != nil {
			t.Fatal(err)
		}
		if h := historyOf(t, db, "blog"); h.Count != 7 || h.Days[2] != day("2026-03-02", 1, 1) {
			t.Errorf("after replace: total %d, days %+v", h.Count, h.Days)
		}
	})
}

func TestImportTotals(t *testing.T) {
	path := newDB(t, "blog")
	with(t, path, Options{}, func(db *DB) {
		o := ImportOptions{Now: day1}
		for _, tc := range []struct {
			imp        counter.Imported
			replace    bool
			wantTotal  uint64
			wantChange bool
		}{
			{counter.Imported{Name: "blog", Total: 1234, HasTotal: true}, false, 1234, true},
			{counter.Imported{Name: "blog", Total: 1234, HasTotal: true}, false, 1234, false},
			{counter.Imported{Name: "blog", Total: 1000, HasTotal: true}, false, 1234, false},
			{counter.Imported{Name: "blog", Total: 1000, HasTotal: true}, true, 1000, true},
			{counter.Imported{Name: "blog", Total: 1 << 63, HasTotal: true}, false, 1 << 63, true},
		} {
			o.Replace = tc.replace
			c, err := db.Import([]counter.Imported{tc.imp}, o)
			if err != nil {
				t.Fatal(err)
			}
			if c[0].Total != tc.wantTotal || c[0].Changed() != tc.wantChange {
				t.Errorf("import of %d (replace %v): %+v; want total %d, changed %v", tc.imp.Total, tc.replace, c[0], tc.wantTotal, tc.wantChange)
			}
		}
	})
}

func TestImportIsAllOrNothing(t *testing.T) {
	needFile(t)
	path := newDB(t, "a")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	with(t, path, Options{}, func(db *DB) {
		imps := []counter.Imported{
			{Name: "a", Days: []counter.Day{day("2026-01-01", 5, 1)}},
			{Name: "new", Total: 3, HasTotal: true},
			{Name: "site", PageDays: []counter.PageDay{{Date: "2026-01-01", Page: "/", Views: 1}}},
		}
		if _, err := db.Import(imps, ImportOptions{Now: day1}); !errors.Is(err, ErrImportNeedsSite) {
			t.Errorf("error %v; want ErrImportNeedsSite", err)
		}
		for _, bad := range []counter.Imported{
			{Name: "a", Days: []counter.Day{day("2026-03-04", 1, 0)}}, // after tomorrow
			{Name: "a", Days: []counter.Day{day("2026-02-30", 1, 0)}},
			{Name: "../a"},
		} {
			if _, err := db.Import([]counter.Imported{imps[0], bad}, ImportOptions{Now: day1}); err == nil {
				t.Errorf("%+v imported", bad)
			}
		}
		// A dry run says what it would do, and does none of it.
		c, err := db.Import(imps[:2], ImportOptions{Now: day1, DryRun: true})
		if err != nil || len(c) != 2 || c[0].DaysNew != 1 || !c[1].Made || c[1].Total != 3 {
			t.Errorf("dry run: %+v, %v", c, err)
		}
	})
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("the file changed")
	}
}

func TestImportMakesACounter(t *testing.T) {
	path := newDB(t)
	with(t, path, Options{}, func(db *DB) {
		created := time.Date(2019, 5, 6, 7, 8, 9, 0, time.UTC)
		imp := counter.Imported{Name: "old", Show: counter.ShowVisitors, HasShow: true, Created: created,
			Days:      []counter.Day{day("2020-01-01", 3, 2)},
			Referrers: []counter.Referrer{{Host: "news.example", Hits: 2}}}
		c, err := db.Import([]counter.Imported{imp}, ImportOptions{Now: day1})
		if err != nil || !c[0].Made {
			t.Fatalf("%+v, %v", c, err)
		}
		h := historyOf(t, db, "old")
		if h.Settings.Show != counter.ShowVisitors || !h.Created.Equal(created) || h.Count != 3 || h.Visitors != 2 ||
			!reflect.DeepEqual(h.Referrers, imp.Referrers) {
			t.Errorf("made %+v", h)
		}
	})
}

func TestImportSitePages(t *testing.T) {
	path := newSite(t, "max-pages=2")
	with(t, path, Options{}, func(db *DB) {
		// A hit on day1 folds nothing yet; one the next day folds day1.
		visitAll(t, db, pageView("blog.example", "/a", day1, true))
		visitAll(t, db, pageView("blog.example", "/a", day1.Add(time.Hour), true))
		imp := counter.Imported{Name: "blog", PageDays: []counter.PageDay{
			{Date: "2026-02-20", Page: "/a/index.html", Views: 5, Visitors: 2}, // an old day of /a
			{Date: "2026-02-20", Page: "/b", Views: 2, Visitors: 1},            // a new page
			{Date: "2026-02-20", Page: "/c", Views: 4, Visitors: 4},            // past max-pages
			{Date: "2026-02-21", Page: "/d", Views: 1, Visitors: 1},            // past max-pages too
			{Date: "2026-03-01", Page: "/a", Views: 3, Visitors: 1},            // a folded day of /a: 1 → 3
		}}
		o := ImportOptions{Now: day1.Add(time.Hour)}
		c, err := db.Import([]counter.Imported{imp}, o)
		if err != nil {
			t.Fatal(err)
		}
		if c[0].PagesNew != 1 || c[0].PagesOther != 2 || c[0].PageDays != 5 {
			t.Errorf("change %+v", c[0])
		}
		pages := pagesOf(t, db, time.Time{})
		want := map[string]counter.Page{
			"/a":               {Page: "/a", Views: 5 + 3 + 1, Visitors: 2 + 1 + 1},
			"/b":               {Page: "/b", Views: 2, Visitors: 1},
			counter.OtherPages: {Page: counter.OtherPages, Views: 5, Visitors: 5},
		}
		for p, w := range want {
			if got := pages[p]; got.Views != w.Views || got.Visitors != w.Visitors {
				t.Errorf("%s: %+v; want %+v", p, got, w)
			}
		}
		if pages["/a"].FirstSeen != time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC) {
			t.Errorf("/a first seen %v", pages["/a"].FirstSeen)
		}
		// The site's days hold every day its pages count on.
		h := historyOf(t, db, "blog")
		if len(h.Days) != 4 || h.Days[0].Date != "2026-02-20" || h.Days[0].Views != 5 {
			t.Errorf("site days %+v", h.Days)
		}
		again, err := db.Import([]counter.Imported{imp}, o)
		if err != nil || again[0].Changed() {
			t.Errorf("second import: %+v, %v", again, err)
		}
		// Page days come by date, as counter.Imported says.
		backwards := counter.Imported{Name: "blog", PageDays: []counter.PageDay{imp.PageDays[4], imp.PageDays[0]}}
		if _, err := db.Import([]counter.Imported{backwards}, o); err == nil || !strings.Contains(err.Error(), "out of order") {
			t.Errorf("page days out of order: %v", err)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check after import: %v", err)
	}
}

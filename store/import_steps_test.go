package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
	"hitcounter/store/kv"
	"hitcounter/store/kv/boltkv"
)

// stepsNow is the time of the imports below: days of history before it.
var stepsNow = day1.AddDate(0, 0, 40).Add(-12 * time.Hour)

// grownSite makes the site blog with views on a few days up to stepsNow.
func grownSite(tb testing.TB) string {
	tb.Helper()
	path := newSite(tb)
	with(tb, path, Options{}, func(db *DB) {
		for i, at := range []time.Time{stepsNow.AddDate(0, 0, -30), stepsNow.AddDate(0, 0, -10), stepsNow.AddDate(0, 0, -1), stepsNow} {
			for p := range 5 {
				visitAll(tb, db, pageView("blog.example", fmt.Sprintf("/p%d", p*7+i), at, p%2 == 0))
			}
		}
	})
	return path
}

// siteHistory is a site's history of 35 days of 100 pages each, up to
// stepsNow: more page days than one piece of an import.
func siteHistory() counter.Imported {
	imp := counter.Imported{Name: "blog", Referrers: []counter.Referrer{{Host: "news.example", Hits: 9}}}
	for d := 34; d >= 0; d-- {
		date := stepsNow.AddDate(0, 0, -d).Format(time.DateOnly)
		imp.Days = append(imp.Days, day(date, 100*uint64(d%4+1), 50))
		for p := range 100 {
			imp.PageDays = append(imp.PageDays, counter.PageDay{Date: date, Page: fmt.Sprintf("/p%02d", p), Views: uint64(d%4 + 1), Visitors: 1})
		}
	}
	return imp
}

// siteState is all that the file shows of site blog.
type siteState struct {
	History  counter.History
	Pages    []counter.Page
	PageDays []counter.PageDay
	Info     counter.Info
}

func stateOf(tb testing.TB, path string) siteState {
	tb.Helper()
	var s siteState
	with(tb, path, Options{ReadOnly: true}, func(db *DB) {
		var err error
		s.History = historyOf(tb, db, "blog")
		s.History.TalliedSince = time.Time{} // when the file was made
		if s.Pages, err = db.Pages("blog", time.Time{}); err != nil {
			tb.Fatal(err)
		}
		if s.PageDays, err = db.PageDays("blog", counter.PageDay{}, 1<<20); err != nil {
			tb.Fatal(err)
		}
		if s.Info, err = db.Counter("blog"); err != nil {
			tb.Fatal(err)
		}
		err = db.view(func(tx kv.Tx) error {
			if tx.Bucket(bucketImporting) != nil {
				return errors.New("the import's work is left in the file")
			}
			return nil
		})
		if err != nil {
			tb.Error(err)
		}
	})
	return s
}

// samePagesAndTotals fails t where an import in steps, got, shows other
// pages, page days or totals than the same import at once, want.
func samePagesAndTotals(t *testing.T, got, want siteState) {
	t.Helper()
	if !reflect.DeepEqual(got.Pages, want.Pages) {
		t.Errorf("pages in steps differ from at once: %s", firstDiff(got.Pages, want.Pages))
	}
	if !reflect.DeepEqual(got.PageDays, want.PageDays) {
		t.Errorf("page days in steps differ from at once: %s", firstDiff(got.PageDays, want.PageDays))
	}
	if got.Info.Count != want.Info.Count || got.Info.Visitors != want.Info.Visitors {
		t.Errorf("in steps %d views, %d visitors; at once %d, %d", got.Info.Count, got.Info.Visitors, want.Info.Count, want.Info.Visitors)
	}
}

// TestImportInStepsKeepsHitsMeanwhile imports a site's history a piece a
// step while hits come between the steps, on pages the import has and
// has not, on the import's day, the day before and the day after (which
// folds the import's day): the file ends as if the import had been made at
// once before the hits.
func TestImportInStepsKeepsHitsMeanwhile(t *testing.T) {
	hits := []Visit{
		pageView("blog.example", "/p01", stepsNow, true),
		pageView("blog.example", "/new", stepsNow, true),
		pageView("blog.example", "/p50", stepsNow.Add(time.Minute), false),
		pageView("blog.example", "/p03", stepsNow.AddDate(0, 0, -1), true), // a late batch
		pageView("news.example", "/p02", stepsNow, false),
		pageView("blog.example", "/p02", stepsNow.AddDate(0, 0, 1), true), // folds the import's day
		pageView("blog.example", "/p04", stepsNow.AddDate(0, 0, 1), false),
	}
	o := ImportOptions{Now: stepsNow}
	stepped, once := grownSite(t), grownSite(t)
	var done []Visit
	opens := 0
	open := func() (*DB, error) {
		if opens++; opens > 1 && len(done) < len(hits) && opens%4 == 0 {
			with(t, stepped, Options{}, func(db *DB) { visitAll(t, db, hits[len(done)]) })
			done = append(done, hits[len(done)])
		}
		return testOpen(stepped, Options{})
	}
	changes, stats, err := importInSteps(open, []counter.Imported{siteHistory()}, o, time.Nanosecond, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != len(hits) {
		t.Fatalf("%d hits between %d steps, want %d: make the import longer", len(done), stats.Steps, len(hits))
	}
	var want []ImportChange
	with(t, once, Options{}, func(db *DB) {
		if want, err = db.Import([]counter.Imported{siteHistory()}, o); err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			visitAll(t, db, h)
		}
	})
	if !reflect.DeepEqual(changes, want) {
		t.Errorf("changes in steps %+v\nat once %+v", changes, want)
	}
	got, wantState := stateOf(t, stepped), stateOf(t, once)
	if !reflect.DeepEqual(got.History, wantState.History) {
		t.Errorf("history in steps:\n%v\nat once:\n%v", got.History.Days[len(got.History.Days)-3:], wantState.History.Days[len(wantState.History.Days)-3:])
	}
	samePagesAndTotals(t, got, wantState)
	t.Logf("%d steps, %d hits between them; longest held %v, last %v", stats.Steps, len(done), stats.Longest, stats.Last)
}

// TestImportInStepsAllOrNothing fails an import in its last piece, and
// stops one halfway as a crash would: neither changes what the file shows,
// and the next import does the whole.
func TestImportInStepsAllOrNothing(t *testing.T) {
	o := ImportOptions{Now: stepsNow}
	bad := siteHistory()
	bad.PageDays = append(bad.PageDays, counter.PageDay{Date: "2026-13-01", Page: "/late", Views: 1})
	disordered := siteHistory()
	disordered.PageDays = append(disordered.PageDays, counter.PageDay{Date: "2026-01-01", Page: "/early", Views: 1})
	for _, tc := range []struct {
		name   string
		imp    counter.Imported
		failAt int // the open that fails, as a crash or a busy file would
		want   string
	}{
		{"bad date in the last piece", bad, 0, "2026-13-01"},
		{"out of order in the last piece", disordered, 0, "out of order"},
		{"stopped halfway", siteHistory(), 12, "stopped"},
		{"stopped before the last step", siteHistory(), -1, "stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := grownSite(t)
			before := stateOf(t, path)
			if tc.failAt < 0 {
				// Count the steps of a whole import on a copy.
				var stats ImportStats
				var err error
				twin := grownSite(t)
				if _, stats, err = importInSteps(func() (*DB, error) { return testOpen(twin, Options{}) }, []counter.Imported{tc.imp}, o, time.Nanosecond, 100); err != nil {
					t.Fatal(err)
				}
				tc.failAt = stats.Steps
			}
			opens := 0
			open := func() (*DB, error) {
				if opens++; tc.failAt > 0 && opens >= tc.failAt {
					return nil, errors.New("stopped")
				}
				return testOpen(path, Options{})
			}
			_, _, err := importInSteps(open, []counter.Imported{tc.imp}, o, time.Nanosecond, 100)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one saying %q", err, tc.want)
			}
			after := stateOfLeft(t, path, tc.failAt > 0)
			if !reflect.DeepEqual(after, before) {
				t.Errorf("a failed import changed the site:\n%+v\nbefore:\n%+v", after.History, before.History)
			}
			if tc.failAt == 0 {
				return
			}
			// The next import takes over what was left, and does it all.
			if _, _, err := ImportInSteps(func() (*DB, error) { return testOpen(path, Options{}) }, []counter.Imported{tc.imp}, o, 0); err != nil {
				t.Fatal(err)
			}
			once := grownSite(t)
			with(t, once, Options{}, func(db *DB) {
				if _, err := db.Import([]counter.Imported{tc.imp}, o); err != nil {
					t.Fatal(err)
				}
			})
			if got, want := stateOf(t, path), stateOf(t, once); !reflect.DeepEqual(got, want) {
				t.Errorf("import after a stopped one: %+v\nwant %+v", got.History, want.History)
			}
		})
	}
}

// stateOfLeft is stateOf for a file an import may have left its work in.
func stateOfLeft(tb testing.TB, path string, left bool) siteState {
	tb.Helper()
	if !left {
		return stateOf(tb, path)
	}
	copyPath := filepath.Join(tb.TempDir(), "copy.db")
	with(tb, path, Options{ReadOnly: true}, func(db *DB) {
		b, err := bolt.Open(copyPath, 0o600, nil)
		if err != nil {
			tb.Fatal(err)
		}
		defer b.Close()
		err = db.view(func(tx kv.Tx) error {
			return b.Update(func(to *bolt.Tx) error { return copyAll(tx, boltkv.Tx(to)) })
		})
		if err != nil {
			tb.Fatal(err)
		}
	})
	with(tb, copyPath, Options{}, func(db *DB) {
		err := db.update(func(tx kv.Tx) error {
			if tx.Bucket(bucketImporting) == nil {
				return nil
			}
			return tx.DeleteBucket(bucketImporting)
		})
		if err != nil {
			tb.Fatal(err)
		}
	})
	return stateOf(tb, copyPath)
}

// firstDiff says where two lists first differ.
func firstDiff[T any](got, want []T) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("at %d, %+v, want %+v", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d, want %d", len(got), len(want))
}

// TestImportInStepsRacedByMerge merges two pages of the site while an
// import of it runs: the import changes nothing and says why, and the
// merge stands.
func TestImportInStepsRacedByMerge(t *testing.T) {
	o := ImportOptions{Now: stepsNow}
	merge := func(tb testing.TB, path string) {
		tb.Helper()
		with(tb, path, Options{}, func(db *DB) {
			if _, err := db.MergePage("blog", "/p7", "/p0"); err != nil {
				tb.Fatal(err)
			}
		})
	}
	path, want := grownSite(t), grownSite(t)
	merge(t, want)
	opens := 0
	open := func() (*DB, error) {
		if opens++; opens == 3 {
			merge(t, path)
		}
		return testOpen(path, Options{})
	}
	_, _, err := importInSteps(open, []counter.Imported{siteHistory()}, o, time.Nanosecond, 100)
	if !errors.Is(err, ErrImportRaced) {
		t.Fatalf("got error %v, want ErrImportRaced", err)
	}
	if got, want := stateOf(t, path), stateOf(t, want); !reflect.DeepEqual(got, want) {
		t.Errorf("after the raced import: %+v\nwant %+v", got.Pages, want.Pages)
	}
}

// TestImportInStepsCutsADate imports, a few rows a piece, a site's history
// whose days have more pages than a piece and than the site's room, some
// of them the site's already: a date's pieces add up under (other pages)
// and in each page as the import in one transaction does, with or
// without -replace, so that no piece is bigger than its rows however many
// pages a day has.
func TestImportInStepsCutsADate(t *testing.T) {
	imp := counter.Imported{Name: "blog"}
	for d := 2; d >= 1; d-- {
		date := stepsNow.AddDate(0, 0, -d).Format(time.DateOnly)
		imp.Days = append(imp.Days, day(date, 1000, 500))
		for p := range 60 {
			imp.PageDays = append(imp.PageDays, counter.PageDay{Date: date, Page: fmt.Sprintf("/q%02d", p), Views: uint64(p%5 + d), Visitors: 1})
		}
	}
	for _, replace := range []bool{false, true} {
		t.Run(fmt.Sprint("replace=", replace), func(t *testing.T) {
			o := ImportOptions{Now: stepsNow, Replace: replace}
			site := func() string {
				path := newSite(t, "max-pages=25")
				with(t, path, Options{}, func(db *DB) {
					for p := range 30 { // the site's room taken but 5
						visitAll(t, db, pageView("blog.example", fmt.Sprintf("/q%02d", 59-p), stepsNow.AddDate(0, 0, -1), true))
					}
				})
				return path
			}
			stepped, once := site(), site()
			open := func() (*DB, error) { return testOpen(stepped, Options{}) }
			changes, stats, err := importInSteps(open, []counter.Imported{imp}, o, time.Nanosecond, 7)
			if err != nil {
				t.Fatal(err)
			}
			var want []ImportChange
			with(t, once, Options{}, func(db *DB) {
				if want, err = db.Import([]counter.Imported{imp}, o); err != nil {
					t.Fatal(err)
				}
			})
			if !reflect.DeepEqual(changes, want) {
				t.Errorf("changes in steps %+v\nat once %+v", changes, want)
			}
			got, wantState := stateOf(t, stepped), stateOf(t, once)
			samePagesAndTotals(t, got, wantState)
			if stats.Steps < 10 {
				t.Errorf("%d steps: want a date cut into pieces", stats.Steps)
			}
		})
	}
}

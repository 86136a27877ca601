package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// costDay is a day of n hits whose p50 and p99 are as given.
func costDay(date string, n uint32, p50, p99 time.Duration) meter.Day {
	d := meter.Day{Date: date, Build: "test"}
	d.Kinds[meter.Hit] = meter.Figures{Count: n, Wall: [3]time.Duration{p50, p50, p99}}
	d.Kinds[meter.Commit] = meter.Figures{Count: n, Wall: [3]time.Duration{p50 / 2, p50 / 2, p99 / 2}}
	return d
}

// TestFoldCosts folds a day at a time, with the clock of each day: the
// history keeps a year, a day whose p99 doubled is a warning, kept 30
// days, and a day folded twice keeps the fuller record.
func TestFoldCosts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter.db")
	with(t, path, Options{Create: true}, func(db *DB) {
		start := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)
		var warned []string
		for i := range 400 {
			now := start.AddDate(0, 0, i+1).Add(5 * time.Minute) // the first request after midnight
			date := start.AddDate(0, 0, i).Format(time.DateOnly)
			p99 := 9 * time.Millisecond
			if i == 100 {
				p99 = 30 * time.Millisecond
			}
			w, err := db.FoldCosts([]meter.Day{costDay(date, 500, 3*time.Millisecond, p99)}, now)
			if err != nil {
				t.Fatal(err)
			}
			warned = append(warned, w...)
			if i == 100 {
				h, err := db.Costs(time.Time{})
				if err != nil || len(h.Warnings) != 2 {
					t.Fatalf("the day after: warnings %q, %v; want the hit's and the commit's", h.Warnings, err)
				}
			}
			if i == 131 {
				if h, _ := db.Costs(time.Time{}); len(h.Warnings) != 0 {
					t.Errorf("warnings kept past 30 days: %q", h.Warnings)
				}
			}
		}
		want := []string{
			"2026-02-09: hit p99 was 30ms, 3.3 times its median of 9ms over the 14 days before",
			"2026-02-09: commit p99 was 15ms, 3.3 times its median of 4.5ms over the 14 days before",
		}
		if strings.Join(warned, "\n") != strings.Join(want, "\n") {
			t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warned, "\n"), strings.Join(want, "\n"))
		}
		h, err := db.Costs(time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		now := start.AddDate(0, 0, 400)
		if len(h.Days) != meter.HistoryDays || h.Days[0].Date != meter.Oldest(now) || h.Days[len(h.Days)-1].Date != "2026-12-05" {
			t.Errorf("history of %d days, %s to %s; want %d days, %s to 2026-12-05", len(h.Days), h.Days[0].Date, h.Days[len(h.Days)-1].Date,
				meter.HistoryDays, meter.Oldest(now))
		}
		// Folded again with fewer hits (a file left by a process that
		// raced), the day keeps its fuller record.
		last := h.Days[len(h.Days)-1]
		if _, err := db.FoldCosts([]meter.Day{costDay(last.Date, 3, time.Second, time.Second)}, now); err != nil {
			t.Fatal(err)
		}
		h, _ = db.Costs(now.AddDate(0, 0, -1))
		if len(h.Days) != 1 || h.Days[0] != last {
			t.Errorf("after a second fold with fewer hits: %+v, want %+v", h.Days, last)
		}
	})
}

// TestBuildCosts: a new build whose first 100 hits cost over 1.5 times
// the build before's is a warning; the build before is kept.
func TestBuildCosts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter.db")
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	fig := func(p50 time.Duration) meter.Figures {
		return meter.Figures{Count: meter.BuildRequests, Wall: [3]time.Duration{p50, p50, p50}}
	}
	with(t, path, Options{Create: true}, func(db *DB) {
		for _, st := range []struct {
			build string
			kind  meter.Kind
			p50   time.Duration
			warn  string
		}{
			{"v1", meter.Hit, 2 * time.Millisecond, ""},
			{"v1", meter.Login, 80 * time.Millisecond, ""},
			{"v2", meter.Hit, 2100 * time.Microsecond, ""},
			{"v2", meter.Login, 320 * time.Millisecond, "2026-12-04: login p50 over the first 100 of build v2 was 320ms, 4.0 times build v1's 80ms"},
			{"v3", meter.Hit, 2 * time.Millisecond, ""},
		} {
			w, err := db.BuildCosts(st.build, st.kind, fig(st.p50), now)
			if err != nil || w != st.warn {
				t.Errorf("%s %s at %v: warning %q, %v; want %q", st.build, st.kind, st.p50, w, err, st.warn)
			}
		}
		h, err := db.Costs(now)
		if err != nil || h.Build.ID != "v3" || h.Before.ID != "v2" || h.Before.Kinds[meter.Login].P50() != 320*time.Millisecond {
			t.Errorf("builds %+v and %+v, %v; want v3, and v2 before it", h.Build, h.Before, err)
		}
		if len(h.Warnings) != 1 {
			t.Errorf("warnings kept: %q, want the login's", h.Warnings)
		}
	})
}

// TestMigrateV3ToV4: the committed file of the version 3 release, written
// to by this version (a day's costs folded), is of this version, keeps
// every key it had, and has the costs.
func TestMigrateV3ToV4(t *testing.T) {
	path := copyOf(t, formatFileV3)
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.FoldCosts([]meter.Day{costDay("2026-12-04", 50, time.Millisecond, 5*time.Millisecond)}, time.Date(2026, 12, 5, 0, 1, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, db); v != schemaVersion {
			t.Errorf("version %d after the first write, want %d", v, schemaVersion)
		}
		h, err := db.Costs(time.Time{})
		if err != nil || len(h.Days) != 1 || h.Days[0].Kinds[meter.Hit].Count != 50 {
			t.Errorf("costs after the migration: %+v, %v", h, err)
		}
	})
	dump := dumpFile(t, path)
	for line := range strings.Lines(formatDumpV3) {
		if strings.Contains(line, "version = ") {
			continue
		}
		if !strings.Contains(dump, line) {
			t.Errorf("after the migration, the v3 file lost %q", line)
		}
	}
	if !strings.Contains(dump, fmt.Sprintf("  version = %08x\n", schemaVersion)) || !strings.Contains(dump, "costs/\n  days/\n    2026-12-04 = ") {
		t.Errorf("after the migration:\n%s", dump)
	}
}

// TestCommittedTimesEachCommit: Options.Committed hears of every commit,
// and of nothing that did not commit.
func TestCommittedTimesEachCommit(t *testing.T) {
	path := newDB(t, "a")
	var times []time.Duration
	with(t, path, Options{Committed: func(d time.Duration) { times = append(times, d) }}, func(db *DB) {
		if _, err := db.Visit(Visit{Name: "a", Now: day1, Outcome: counter.Outcome{Kind: counter.View}}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Visit(Visit{Name: "no such counter", Now: day1, Outcome: counter.Outcome{Kind: counter.View}}); err == nil {
			t.Fatal("a hit on no counter was taken")
		}
	})
	if len(times) != 1 || times[0] <= 0 {
		t.Errorf("commits heard: %v, want one, of some time", times)
	}
}

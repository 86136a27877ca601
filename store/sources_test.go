package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"hitcounter/counter"
)

// Sources are kept as referrers are: a view's source adds to the day's
// row and then to the history, a hit that does not count adds nothing,
// the counter's own host is none, and past counter.MaxSources hosts the
// views go under counter.OtherSources, today's and the history's hosts
// counted together.
func TestSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	day := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	with(t, path, Options{Create: true}, func(db *DB) {
		if err := db.Create("c", 0, day); err != nil {
			t.Fatal(err)
		}
		view := func(at time.Time, src string, k counter.Kind) {
			t.Helper()
			if _, err := db.Visit(Visit{Name: "c", Now: at, RefHost: "me.example", Source: src, Outcome: counter.Outcome{Kind: k}}); err != nil {
				t.Fatal(err)
			}
		}
		// Half the bound on the first day, folded by the second's first
		// hit; the rest, and more, on the second.
		for i := range counter.MaxSources / 2 {
			view(day, fmt.Sprintf("h%03d.example", i), counter.View)
		}
		view(day, "me.example", counter.View)
		view(day, "www.google.com", counter.Bot)
		next := day.AddDate(0, 0, 1)
		for i := range counter.MaxSources + 5 {
			view(next, fmt.Sprintf("h%03d.example", i), counter.View)
		}
		view(next, "bing.com", counter.View)
		h, err := db.History("c", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		hosts, other := 0, uint64(0)
		for _, s := range h.Sources {
			if s.Host == counter.OtherSources {
				other = s.Hits
			} else {
				hosts++
			}
			if s.Host == "me.example" || s.Host == "Google" {
				t.Errorf("source %q kept", s.Host)
			}
		}
		if hosts != counter.MaxSources || other != 6 {
			t.Errorf("%d sources and %d views under %s, want %d and 6 (5 hosts and Bing past the bound)", hosts, other, counter.OtherSources, counter.MaxSources)
		}
		st := counter.Summarise(h, next)
		if len(st.Sources) != counter.TopSources || st.Sources[0].Hits != 2 {
			t.Errorf("the statistics' sources %v", st.Sources)
		}
	})
	if _, err := Check(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

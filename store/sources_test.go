package store

import (
	"fmt"
	"path/filepath"
	"reflect"
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
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

// A joined visit, the script's count of a page whose image was counted
// already, adds its source to the view's and changes nothing else: not
// the views, visitors, days, tally, referrers or the page's row, whether
// its day is in the today bucket or in the history; it answers the
// figures with that view in them. A source that is the counter's own
// host adds nothing either.
func TestJoinedAddsItsSourceAlone(t *testing.T) {
	day2 := day1.Add(2 * time.Minute) // the next UTC day
	for _, tc := range []struct {
		name, counter, host, target string
		past                        bool // the today bucket moved on to day2
		source                      string
		want                        string // the sources after it
	}{
		{"plain today", "c", "me.example", "", false, "news.ycombinator.com", "[{Hacker News 1}]"},
		{"plain past", "c", "me.example", "", true, "news.ycombinator.com", "[{Hacker News 1}]"},
		{"site today", "blog", "blog.example", "/posts/a/", false, "news.ycombinator.com", "[{Hacker News 1}]"},
		{"site past", "blog", "blog.example", "/posts/a/", true, "news.ycombinator.com", "[{Hacker News 1}]"},
		{"plain, its own host", "c", "me.example", "", false, "me.example", "[]"},
		{"site, its own host", "blog", "blog.example", "/posts/a/", false, "www.blog.example", "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newSite(t)
			with(t, path, Options{}, func(db *DB) {
				if err := db.Create("c", 0, day1); err != nil {
					t.Fatal(err)
				}
				view := Visit{Name: tc.counter, Now: day1, RefHost: tc.host, Target: tc.target,
					Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true, PageVisitor: true}}
				if _, err := db.Visit(view); err != nil {
					t.Fatal(err)
				}
				if tc.past {
					later := view
					later.Now, later.Outcome = day2, counter.Outcome{Kind: counter.Reload}
					if _, err := db.Visit(later); err != nil {
						t.Fatal(err)
					}
				}
				type state struct {
					h     counter.History
					g     Glance
					pages []counter.Page
				}
				read := func() state {
					t.Helper()
					var s state
					var err error
					if s.h, err = db.History(tc.counter, time.Time{}); err != nil {
						t.Fatal(err)
					}
					if s.g, err = db.Glance(tc.counter, tc.target, nil, day1); err != nil {
						t.Fatal(err)
					}
					if tc.target != "" {
						if s.pages, err = db.Pages(tc.counter, time.Time{}); err != nil {
							t.Fatal(err)
						}
					}
					return s
				}
				before := read()
				joined := view
				// What it was judged does not matter: it counts nothing.
				joined.Source, joined.Joined, joined.List = tc.source, true, []string{"/posts/a/"}
				c, err := db.Visit(joined)
				if err != nil {
					t.Fatal(err)
				}
				after := read()
				if got := fmt.Sprint(after.h.Sources); got != tc.want {
					t.Errorf("sources %s, want %s", got, tc.want)
				}
				after.h.Sources = before.h.Sources
				if !reflect.DeepEqual(before, after) {
					t.Errorf("a joined visit changed more than the sources:\nbefore %+v\nafter  %+v", before, after)
				}
				want := Figures{Views: 1, Visitors: 1, PageViews: 1, PageVisitors: 1}
				if c.Figures != want || c.FirstToday || c.FirstPastCap {
					t.Errorf("answered %+v, first today %v; want %+v, false", c.Figures, c.FirstToday, want)
				}
				if tc.target != "" && (len(c.Listed) != 1 || c.Listed[0].Views != 1) {
					t.Errorf("listed %+v, want /posts/a/ with its view", c.Listed)
				}
			})
			if _, err := testCheck(path, time.Second); err != nil {
				t.Errorf("check: %v", err)
			}
		})
	}
}

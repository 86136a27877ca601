package store

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"hitcounter/counter"
)

// TestTopPagesAcrossTheTrim views, on each of three days, 200 pages of its
// own three times and /under twice (the day's 201st), and reads the top
// 50 over the three days as they stand (the days before today folded, not
// trimmed yet), then after the next day's first hit has trimmed them: the
// same list, of 3-view pages only. /under's 6 views add up to more than
// any listed page's, but it was never among a day's KeptPagesADay most
// viewed: the list leaves it out, as doc.go says.
func TestTopPagesAcrossTheTrim(t *testing.T) {
	path := newSite(t, "public-pages=on", "max-pages=1000")
	start := day1.Truncate(24 * time.Hour)
	var before []counter.Page
	with(t, path, Options{}, func(db *DB) {
		for d := range 3 {
			at := start.AddDate(0, 0, d).Add(time.Hour)
			var visits []Visit
			for p := range KeptPagesADay {
				for range 3 {
					visits = append(visits, pageView("blog.example", fmt.Sprintf("/d%d/%03d", d, p), at, true))
				}
			}
			visits = append(visits, pageView("blog.example", "/under", at, true), pageView("blog.example", "/under", at, true))
			if _, err := db.VisitAll(visits); err != nil {
				t.Fatal(err)
			}
		}
		now := start.AddDate(0, 0, 2).Add(2 * time.Hour)
		var err error
		if before, err = db.TopPages("blog", now, counter.TopQuery{N: counter.MaxTop, Days: 3}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.VisitAll([]Visit{pageView("blog.example", "/new", now.AddDate(0, 0, 1), true)}); err != nil {
			t.Fatal(err)
		}
		after, err := db.TopPages("blog", now.AddDate(0, 0, 1), counter.TopQuery{N: counter.MaxTop, Days: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(before, after) {
			t.Errorf("after the trim:\n%v\nbefore:\n%v", after, before)
		}
		all, err := db.Pages("blog", time.Time{}) // of all time: its record
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(all, func(p counter.Page) bool { return p.Page == "/under" }); i < 0 || all[i].Views != 6 {
			t.Errorf("/under in the pages of all time: %v, want 6 views", all[max(i, 0)])
		}
	})
	if len(before) != counter.MaxTop {
		t.Fatalf("%d pages, want %d", len(before), counter.MaxTop)
	}
	for i, p := range before {
		// Ties rank by visitors, then by key: /d0/000 first.
		if want := fmt.Sprintf("/d0/%03d", i); p.Page != want || p.Views != 3 {
			t.Errorf("page %d: %s with %d views, want %s with 3", i, p.Page, p.Views, want)
		}
	}
}

// TestTopPagesRefused: a plain counter, a site that did not turn
// public-pages on, and one behind a password have no list to give.
func TestTopPagesRefused(t *testing.T) {
	q := counter.TopQuery{N: 5, Days: 30}
	for _, tc := range []struct {
		name     string
		settings []string
		password bool
		want     error
	}{
		{"public-pages off", nil, false, counter.ErrPagesPrivate},
		{"behind a password", []string{"public-pages=on"}, true, counter.ErrPagesPrivate},
		{"public", []string{"public-pages=on"}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newSite(t, tc.settings...)
			with(t, path, Options{}, func(db *DB) {
				if tc.password {
					if err := db.SetPasswordHash("blog", []byte("$2a$10$x")); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := db.TopPages("blog", day1, q); !errors.Is(err, tc.want) {
					t.Errorf("got %v, want %v", err, tc.want)
				}
			})
		})
	}
	path := newDB(t)
	with(t, path, Options{}, func(db *DB) {
		if err := db.CreateWith("plain", 0, day1, counter.DefaultSettings()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TopPages("plain", day1, q); !errors.Is(err, counter.ErrNotSite) {
			t.Errorf("a plain counter: %v, want ErrNotSite", err)
		}
		if _, err := db.TopPages("nosuch", day1, q); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("no such counter: %v, want ErrNotFound", err)
		}
	})
}

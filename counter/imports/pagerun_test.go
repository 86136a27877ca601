package imports

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"hitcounter/counter"
)

// TestPageRunSums adds up rows in any order, many merges' worth, as a map
// of every page's day does.
func TestPageRunSums(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := newPageDays()
	type key struct{ date, page string }
	want := map[key]counter.PageDay{}
	day0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 5 * freshRows {
		at := day0.AddDate(0, 0, r.IntN(300)).Add(time.Duration(r.IntN(86400)) * time.Second)
		page := fmt.Sprintf("/p/%d", r.IntN(400))
		views, visitors := uint64(r.IntN(5)), uint64(r.IntN(2))
		if err := p.addCounts(at, page, views, visitors); err != nil {
			t.Fatal(err)
		}
		k := key{at.Format(time.DateOnly), page}
		d := want[k]
		d.Date, d.Page, d.Views, d.Visitors = k.date, k.page, d.Views+views, d.Visitors+visitors
		want[k] = d
	}
	if err := p.flush(); err != nil {
		t.Fatal(err)
	}
	var wantDays []counter.PageDay
	for _, d := range want {
		wantDays = append(wantDays, d)
	}
	sortPageDays(wantDays)
	rows := p.list()
	if rows.Len() != len(wantDays) {
		t.Errorf("Len %d, want %d", rows.Len(), len(wantDays))
	}
	if got := (counter.Imported{PageRows: rows}).AllPageDays(); !reflect.DeepEqual(got, wantDays) {
		t.Errorf("the run's %d page days differ from the map's %d", len(got), len(wantDays))
	}
	// Read in pieces of any size, the same.
	next := rows.Open()
	var got []counter.PageDay
	for n := 1; ; n = n%3000 + 7 {
		some := next(n)
		if len(some) > n {
			t.Fatalf("asked for %d, got %d", n, len(some))
		}
		if len(some) == 0 {
			break
		}
		got = append(got, some...)
	}
	if !reflect.DeepEqual(got, wantDays) {
		t.Errorf("read in pieces, %d page days differ", len(got))
	}
}

// TestPageBookTwice refuses a page's day given twice, naming the first
// second line of any, however far apart the two are; the days a cap
// folded add up instead.
func TestPageBookTwice(t *testing.T) {
	fill := func(b *pageBook, from, n int) {
		for i := range n {
			if err := b.add(counter.PageDay{Date: "2025-01-01", Page: fmt.Sprintf("/f/%d", from+i), Views: 1}, from+i); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b pageBook
	b.add(counter.PageDay{Date: "2025-01-02", Page: "/a", Views: 1}, 1)
	b.add(counter.PageDay{Date: "2025-01-03", Page: "/b", Views: 1}, 2)
	fill(&b, 10, 2*freshRows) // merged between
	b.add(counter.PageDay{Date: "2025-01-03", Page: "/b", Views: 1}, 3*freshRows)
	b.add(counter.PageDay{Date: "2025-01-02", Page: "/a", Views: 1}, 3*freshRows+1)
	_, err := b.sorted()
	var ie *counter.ImportError
	if !errors.As(err, &ie) || ie.Line != 3*freshRows || ie.Reason != "a page's day given twice, first on line 2" || ie.Quote != `"/b" on 2025-01-03` {
		t.Errorf("got %v, want /b's second line refused", err)
	}

	c := pageBook{cap: NewPageCap(nil, 1)}
	for i, page := range []string{"/kept", "/x", "/y", "/x", counter.OtherPages} {
		if err := c.add(counter.PageDay{Date: "2025-01-01", Page: page, Views: 10, Visitors: 1}, i+1); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := c.sorted()
	if err != nil {
		t.Fatal(err)
	}
	want := []counter.PageDay{{Date: "2025-01-01", Page: counter.OtherPages, Views: 40, Visitors: 4}, {Date: "2025-01-01", Page: "/kept", Views: 10, Visitors: 1}}
	if got := (counter.Imported{PageRows: rows}).AllPageDays(); !reflect.DeepEqual(got, want) {
		t.Errorf("capped: got %+v, want %+v", got, want)
	}
}

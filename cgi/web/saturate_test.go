package web

import (
	"math"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// A file may hold figures as high as a count goes (an import, a damaged
// day): the 7- and 30-day cards and the hits not counted add them up
// without wrapping round to a small number.
func TestStatsCardsSaturate(t *testing.T) {
	a, _ := testApp(t, "page")
	const most = math.MaxUint64
	full := counter.Tally{Views: most, Visitors: most, GitHub: most}
	for _, k := range counter.NotCountedKinds {
		full.NotCounted[k] = most
	}
	imp := counter.Imported{Name: "page", Total: most, HasTotal: true, Visitors: most, HasVisitors: true,
		Referrers: []counter.Referrer{{Host: "a.example", Hits: most}, {Host: "b.example", Hits: most}}}
	for i := 40; i >= 0; i-- {
		imp.Days = append(imp.Days, counter.Day{Date: testNow.AddDate(0, 0, -i).Format(time.DateOnly), Tally: full})
	}
	for i := range counter.TopReferrers + 2 {
		imp.Referrers = append(imp.Referrers, counter.Referrer{Host: string(rune('c'+i)) + ".example", Hits: most})
	}
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Import([]counter.Imported{imp}, store.ImportOptions{Replace: true, Now: testNow})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	w := serve(a, "GET", "/page/stats")
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	body := w.Body.String()
	top := group(most)
	for _, label := range []string{"today", "last 7 days", "last 30 days", "total"} {
		card := "<b>" + top + "</b><span>" + label + "</span>"
		if n := strings.Count(body, card); n != 2 { // views and visitors
			t.Errorf("%d cards %q, want 2 (views and visitors)", n, card)
		}
	}
	// Each row of hits not counted, the sum of them and GitHub's views:
	// the largest count in every column.
	if n, want := strings.Count(body, `<td class="n">`+top+`</td>`), 3*(len(counter.NotCountedKinds)+2); n < want {
		t.Errorf("%d cells of the tables show the largest count, want at least %d", n, want)
	}
	// Nothing shows a figure that wrapped round: no count is both large
	// and short of the top.
	for k := uint64(1); k <= 64; k++ {
		if wrapped := group(most - k); strings.Contains(body, wrapped) {
			t.Errorf("page shows %s, a sum that wrapped", wrapped)
		}
	}
}

func TestAddCount(t *testing.T) {
	for _, tc := range []struct{ a, b, want uint64 }{
		{1, 2, 3},
		{math.MaxUint64, 0, math.MaxUint64},
		{math.MaxUint64, 1, math.MaxUint64},
		{math.MaxUint64, math.MaxUint64, math.MaxUint64},
		{math.MaxUint64 - 1, 1, math.MaxUint64},
	} {
		if got := counter.AddCount(tc.a, tc.b); got != tc.want {
			t.Errorf("AddCount(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

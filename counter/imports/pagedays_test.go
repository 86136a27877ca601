package imports

import (
	"reflect"
	"testing"
	"time"

	"hitcounter/counter"
)

func TestPageDays(t *testing.T) {
	p := newPageDays()
	for _, v := range []struct {
		at      string
		page    string
		visitor bool
	}{
		{"2026-01-02T23:59:59+01:00", "/b", true}, // 22:59:59 UTC
		{"2026-01-02T00:00:00Z", "/a", false},
		{"2026-01-03T00:30:00+01:00", "/b", false}, // still the 2nd in UTC
		{"1970-01-01T00:00:00Z", "/a", true},
		{"1969-12-31T23:59:59Z", "/a", true},
		{"0001-01-01T00:00:00Z", "/a", false},
	} {
		at, err := time.Parse(time.RFC3339, v.at)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.add(at, v.page, v.visitor); err != nil {
			t.Fatal(err)
		}
	}
	want := []counter.PageDay{
		{Date: "0001-01-01", Page: "/a", Views: 1},
		{Date: "1969-12-31", Page: "/a", Views: 1, Visitors: 1},
		{Date: "1970-01-01", Page: "/a", Views: 1, Visitors: 1},
		{Date: "2026-01-02", Page: "/a", Views: 1},
		{Date: "2026-01-02", Page: "/b", Views: 2, Visitors: 1},
	}
	if got := (counter.Imported{PageRows: p.list()}).AllPageDays(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if !p.known("/b") || p.known("/c") {
		t.Errorf("known: /b %v, /c %v", p.known("/b"), p.known("/c"))
	}
}

package counter

import (
	"testing"
	"time"
)

// TestSumPeriods places days in each period, the days before and after
// them left out, and the series ends with today.
func TestSumPeriods(t *testing.T) {
	now := time.Date(2026, 12, 7, 23, 59, 0, 0, time.UTC)
	day := func(ago int, views uint64) Day {
		return Day{Date: now.AddDate(0, 0, -ago).Format(time.DateOnly), Tally: Tally{Views: views}}
	}
	days := []Day{day(-1, 1000), day(0, 1), day(1, 2), day(6, 4), day(7, 8), day(13, 16), day(14, 32),
		day(29, 64), day(30, 128), day(59, 256), day(60, 512), {Date: "not a date", Tally: Tally{Views: 2048}}}
	p := SumPeriods(days, now, 4)
	for _, tc := range []struct {
		name      string
		got, want uint64
	}{
		{"today", p.Today.Views, 1},
		{"yesterday", p.Yesterday.Views, 2},
		{"last 7", p.Last7.Views, 1 + 2 + 4},
		{"7 before", p.Before7.Views, 8 + 16},
		{"last 30", p.Last30.Views, 1 + 2 + 4 + 8 + 16 + 32 + 64},
		{"30 before", p.Before30.Views, 128 + 256},
		{"last 4", p.LastN.Views, 1 + 2},
		{"4 before", p.BeforeN.Views, 4 + 8},
		{"series, today", p.Series[SeriesDays-1].Views, 1},
		{"series, 29 days ago", p.Series[0].Views, 64},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	if p.N != 4 {
		t.Errorf("N: got %d, want 4", p.N)
	}
}

func TestChangeText(t *testing.T) {
	for _, tc := range []struct {
		now, before uint64
		want        string
	}{
		{0, 0, "–"}, {5, 0, "new"}, {5, 4, "+25 %"}, {3, 4, "−25 %"}, {4, 4, "±0 %"}, {0, 4, "−100 %"}, {1001, 1000, "±0 %"},
	} {
		if got := ChangeText(tc.now, tc.before); got != tc.want {
			t.Errorf("ChangeText(%d, %d): got %q, want %q", tc.now, tc.before, got, tc.want)
		}
	}
}

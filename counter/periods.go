package counter

import (
	"math"
	"strconv"
	"time"
)

// The owner's overview and report put each counter's recent days side by
// side with the days before them: a rise or a fall shows at a glance.

// SeriesDays is how many days the overview's small chart of a counter
// covers.
const SeriesDays = 30

// MaxReportDays bounds the report's period: the store reads twice as many
// days of every counter.
const MaxReportDays = 90

// DayCount is one day's views and visitors, as the small chart draws it.
type DayCount struct {
	Views, Visitors uint64
}

// Periods are a counter's figures over the periods the overview and the
// report compare: UTC days, today included in each "last" period, the
// period before it the same number of days just before.
type Periods struct {
	Today, Yesterday Tally
	Last7, Before7   Tally
	Last30, Before30 Tally
	// N is the report's period in days; LastN and BeforeN its figures.
	N              int
	LastN, BeforeN Tally
	// Series is the last SeriesDays days, oldest first, today last.
	Series [SeriesDays]DayCount
}

// PeriodsSince is the first UTC day whose hits SumPeriods needs for a
// report period of n days, as of now.
func PeriodsSince(now time.Time, n int) time.Time {
	back := max(2*n, 2*30, SeriesDays)
	return now.UTC().AddDate(0, 0, 1-back)
}

// SumPeriods adds up days (any order, no date twice needed) into the
// periods as of now, with a report period of n days.
func SumPeriods(days []Day, now time.Time, n int) Periods {
	p := Periods{N: n}
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	for _, d := range days {
		t, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			continue
		}
		back := int(today.Sub(t).Hours() / 24)
		if back < 0 {
			continue
		}
		add := func(into *Tally) { *into = into.Plus(d.Tally) }
		switch back {
		case 0:
			add(&p.Today)
		case 1:
			add(&p.Yesterday)
		}
		switch {
		case back < 7:
			add(&p.Last7)
		case back < 14:
			add(&p.Before7)
		}
		switch {
		case back < 30:
			add(&p.Last30)
		case back < 60:
			add(&p.Before30)
		}
		switch {
		case back < n:
			add(&p.LastN)
		case back < 2*n:
			add(&p.BeforeN)
		}
		if back < SeriesDays {
			s := &p.Series[SeriesDays-1-back]
			s.Views, s.Visitors = AddCount(s.Views, d.Views), AddCount(s.Visitors, d.Visitors)
		}
	}
	return p
}

// TopHosts is the n hosts of refs with the most hits, most first, and the
// hits of the others (other among them) added up, as the statistics page
// ranks referrers and sources.
func TopHosts(refs []Referrer, n int, other string) ([]Referrer, uint64) {
	return top(refs, n, other)
}

// ChangeRatio is the change from before to now, as a fraction: 0.25 for a
// quarter more; infinite for a rise from nothing, 0 for nothing to
// nothing.
func ChangeRatio(now, before uint64) float64 {
	switch {
	case before == 0 && now == 0:
		return 0
	case before == 0:
		return math.Inf(1)
	}
	return (float64(now) - float64(before)) / float64(before)
}

// ChangeText is the change from before to now as the overview and the
// report write it: +25 %, −10 %, "new" from nothing, "–" for nothing.
func ChangeText(now, before uint64) string {
	r := ChangeRatio(now, before)
	switch {
	case before == 0 && now == 0:
		return "–"
	case math.IsInf(r, 1):
		return "new"
	}
	p := math.Round(r * 100)
	switch {
	case p > 0:
		return "+" + strconv.Itoa(int(p)) + " %"
	case p < 0:
		return "−" + strconv.Itoa(int(-p)) + " %"
	}
	return "±0 %"
}

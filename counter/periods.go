package counter

import (
	"math"
	"slices"
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

// Calendar places days in the periods as of one moment, for a report
// period of N days: made once, it sums every counter's days without
// parsing a date. Make it with NewCalendar.
type Calendar struct {
	n int
	// dates are the days it places, oldest first, today last, as stored
	// (2006-01-02), so that they sort as text.
	dates []string
}

// NewCalendar is the calendar as of now for a report period of n days.
func NewCalendar(now time.Time, n int) Calendar {
	back := max(2*n, 2*30, SeriesDays)
	now = now.UTC()
	c := Calendar{n: n, dates: make([]string, back)}
	for i := range back {
		c.dates[back-1-i] = now.AddDate(0, 0, -i).Format(time.DateOnly)
	}
	return c
}

// N is the report period the calendar places days in, in days.
func (c Calendar) N() int { return c.n }

// Since is the first day the calendar places, as stored.
func (c Calendar) Since() string { return c.dates[0] }

// Add adds the tally t of day date to p; a day the calendar does not
// place is left out.
func (c Calendar) Add(p *Periods, date string, t Tally) {
	i, found := slices.BinarySearch(c.dates, date)
	if !found {
		return
	}
	back := len(c.dates) - 1 - i
	add := func(into *Tally) { *into = into.Plus(t) }
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
	case back < c.n:
		add(&p.LastN)
	case back < 2*c.n:
		add(&p.BeforeN)
	}
	if back < SeriesDays {
		s := &p.Series[SeriesDays-1-back]
		s.Views, s.Visitors = AddCount(s.Views, t.Views), AddCount(s.Visitors, t.Visitors)
	}
}

// SumPeriods adds up days into the periods as of now, with a report
// period of n days.
func SumPeriods(days []Day, now time.Time, n int) Periods {
	c := NewCalendar(now, n)
	p := Periods{N: n}
	for _, d := range days {
		c.Add(&p, d.Date, d.Tally)
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

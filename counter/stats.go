package counter

import (
	"cmp"
	"slices"
	"time"
)

// History is what the store keeps about one counter.
type History struct {
	Info
	Days      []Day      // oldest first
	Referrers []Referrer // any order
	// Sources are the hosts (or groups) readers came from, any order.
	Sources []Referrer
	// TalliedSince is when the file began to keep visitors and the hits
	// not counted (its migration from an older version); zero if unknown.
	TalliedSince time.Time
}

// ChartDays is how many days the statistics chart shows.
const ChartDays = 90

// TopReferrers is how many referring hosts the statistics show.
const TopReferrers = 10

// Stats is what the statistics page shows of a counter.
type Stats struct {
	Name     string
	Total    uint64 // views, since the counter was made
	Visitors uint64 // unique visitors, each day's added up
	Show     Show   // what the counter's image shows
	Created  time.Time
	// Reload is the counter's reload window: a visitor's hits within it
	// after a counted view are reloads.
	Reload time.Duration
	// Today, Last7 and Last30 add up UTC days, today included.
	Today, Last7, Last30 Tally
	FirstDay             string // the first day with a hit, "" for none
	Chart                []Day  // the last ChartDays days, oldest first, days without hits as 0
	Referrers            []Referrer
	OtherReferrers       uint64 // hits from hosts past TopReferrers
	Sources              []Referrer
	OtherSources         uint64 // views from sources past TopSources
	Protected            bool
	Now                  time.Time
	// TalliedSince is when visitors and the hits not counted began to be
	// kept; zero if unknown.
	TalliedSince time.Time
}

// Summarise turns a history into the figures of the statistics page, as of
// now (days are UTC, as stored).
func Summarise(h History, now time.Time) Stats {
	now = now.UTC()
	s := Stats{Name: h.Name, Total: h.Count, Visitors: h.Visitors, Show: h.Settings.Show,
		Created: h.Created, Reload: h.Settings.Reload, Protected: h.Protected(), Now: now, TalliedSince: h.TalliedSince}
	if len(h.Days) > 0 {
		s.FirstDay = h.Days[0].Date
	}
	byDate := make(map[string]Tally, len(h.Days))
	for _, d := range h.Days {
		byDate[d.Date] = byDate[d.Date].Plus(d.Tally)
	}
	for i := 0; i < ChartDays; i++ {
		date := now.AddDate(0, 0, i-ChartDays+1).Format(time.DateOnly)
		t := byDate[date]
		s.Chart = append(s.Chart, Day{Date: date, Tally: t})
		switch back := ChartDays - 1 - i; {
		case back == 0:
			s.Today, s.Last7, s.Last30 = t, s.Last7.Plus(t), s.Last30.Plus(t)
		case back < 7:
			s.Last7, s.Last30 = s.Last7.Plus(t), s.Last30.Plus(t)
		case back < 30:
			s.Last30 = s.Last30.Plus(t)
		}
	}
	s.Referrers, s.OtherReferrers = top(h.Referrers, TopReferrers, OtherReferrers)
	s.Sources, s.OtherSources = top(h.Sources, TopSources, OtherSources)
	return s
}

// top is the n hosts of refs with the most hits, most first, and the
// hits of the others (other among them) added up.
func top(refs []Referrer, n int, other string) ([]Referrer, uint64) {
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b Referrer) int {
		if c := cmp.Compare(b.Hits, a.Hits); c != 0 {
			return c
		}
		return cmp.Compare(a.Host, b.Host)
	})
	var shown []Referrer
	var rest uint64
	for _, r := range refs {
		if len(shown) < n && r.Host != other {
			shown = append(shown, r)
		} else {
			rest = AddCount(rest, r.Hits)
		}
	}
	return shown, rest
}

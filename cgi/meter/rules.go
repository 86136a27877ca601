package meter

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The rules of when a cost has moved.
const (
	// Window is the number of days before a day that its figures are
	// compared with.
	Window = 14
	// MinDays is how many of those days must have enough samples.
	MinDays = 7
	// MinSamples is the count a kind needs in a day for the day to be
	// judged, or to be part of the judgement: a p99 of a handful of
	// requests is noise.
	MinSamples = 20
	// DayFactor is how many times its median over the window a day's p50
	// or p99 must reach to be a warning.
	DayFactor = 2.0
	// BuildRequests is how many requests of a kind a new build is judged
	// on, against the previous build's first as many.
	BuildRequests = 100
	// BuildFactor is how many times the previous build's p50 over its
	// first requests the new build's must reach to be a warning.
	BuildFactor = 1.5
	// HistoryDays is how long the history keeps a day.
	HistoryDays = 366
	// WarningDays is how long a warning is kept and shown.
	WarningDays = 30
)

// Check judges day against the days before it (any order, day itself
// left out): for each kind with at least MinSamples that day, and with
// MinDays of the Window days before it holding as many, a p50 or a p99
// more than DayFactor times its median over those days is a warning. It
// returns the warnings, one line each.
func Check(day Day, before []Day) []string {
	from := dayBefore(day.Date, Window)
	var window []Day
	for _, d := range before {
		if d.Date >= from && d.Date < day.Date {
			window = append(window, d)
		}
	}
	var out []string
	for _, k := range Kinds() {
		f := day.Kinds[k]
		if f.Count < MinSamples {
			continue
		}
		var p50s, p99s []time.Duration
		for _, d := range window {
			if g := d.Kinds[k]; g.Count >= MinSamples {
				p50s, p99s = append(p50s, g.P50()), append(p99s, g.P99())
			}
		}
		if len(p50s) < MinDays {
			continue
		}
		for _, c := range []struct {
			name      string
			got, base time.Duration
		}{{"p50", f.P50(), median(p50s)}, {"p99", f.P99(), median(p99s)}} {
			if c.base > 0 && float64(c.got) > DayFactor*float64(c.base) {
				out = append(out, fmt.Sprintf("%s: %s %s was %s, %.1f times its median of %s over the %d days before",
					day.Date, k, c.name, Round(c.got), float64(c.got)/float64(c.base), Round(c.base), len(p50s)))
			}
		}
	}
	return out
}

// KeepWarnings is the record of the warnings kept, a line each, each
// beginning with its date: kept (the record as it was) with lines added,
// and those of more than WarningDays before now dropped.
func KeepWarnings(kept []byte, lines []string, now time.Time) []byte {
	from := now.UTC().AddDate(0, 0, -WarningDays).Format(time.DateOnly)
	var keep []string
	for line := range strings.Lines(string(kept)) {
		if line = strings.TrimSuffix(line, "\n"); line >= from {
			keep = append(keep, line)
		}
	}
	return []byte(strings.Join(append(keep, lines...), "\n"))
}

// DecodeWarnings reads the record of the warnings kept.
func DecodeWarnings(rec []byte) []string {
	if len(rec) == 0 {
		return nil
	}
	return strings.Split(string(rec), "\n")
}

// Build is what a build's first requests cost: the figures of each kind
// over its first BuildRequests requests (a kind with fewer has fewer).
type Build struct {
	ID    string
	Kinds [NumKinds]Figures
}

// CheckBuild judges kind k of build cur, once it has BuildRequests
// requests, against the previous build prev's first as many: a p50 more
// than BuildFactor times prev's is a warning, on date.
func CheckBuild(date string, prev, cur Build, k Kind) (string, bool) {
	p, c := prev.Kinds[k], cur.Kinds[k]
	if prev.ID == "" || prev.ID == cur.ID || p.Count < BuildRequests || c.Count < BuildRequests || p.P50() <= 0 {
		return "", false
	}
	if float64(c.P50()) <= BuildFactor*float64(p.P50()) {
		return "", false
	}
	return fmt.Sprintf("%s: %s p50 over the first %d of build %s was %s, %.1f times build %s's %s",
		date, k, BuildRequests, cur.ID, Round(c.P50()), float64(c.P50())/float64(p.P50()), prev.ID, Round(p.P50())), true
}

// Round rounds a time for a person to read: three figures at most.
func Round(d time.Duration) time.Duration {
	switch {
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

func median(v []time.Duration) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// dayBefore is the date n days before date, both YYYY-MM-DD.
func dayBefore(date string, n int) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.AddDate(0, 0, -n).Format(time.DateOnly)
}

// Oldest is the first date the history keeps on date today: the
// HistoryDays days before it (today is not folded yet).
func Oldest(today time.Time) string {
	return today.UTC().AddDate(0, 0, -HistoryDays).Format(time.DateOnly)
}

// Trend is one figure of one kind over the days of a history, oldest
// first: Pick chooses the figure; a day without the kind has 0.
func Trend(days []Day, k Kind, pick func(Figures) time.Duration) []time.Duration {
	out := make([]time.Duration, len(days))
	for i, d := range days {
		if d.Kinds[k].Count > 0 {
			out[i] = pick(d.Kinds[k])
		}
	}
	return out
}

// sparks are the eight heights of a text sparkline.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws v as a line of block characters, from the lowest
// (▁) to the highest (█) of its values; a day without a value is a space.
func Sparkline(v []time.Duration) string {
	lo, hi := time.Duration(0), time.Duration(0)
	for _, x := range v {
		if x > 0 && (lo == 0 || x < lo) {
			lo = x
		}
		hi = max(hi, x)
	}
	out := make([]rune, len(v))
	for i, x := range v {
		switch {
		case x == 0:
			out[i] = ' '
		case hi == lo:
			out[i] = sparks[0]
		default:
			out[i] = sparks[int(float64(x-lo)/float64(hi-lo)*float64(len(sparks)-1)+0.5)]
		}
	}
	return string(out)
}

// Row is one figure that doctor and the statistics page show.
type Row struct {
	Label string
	Kind  Kind
	Pick  func(Figures) time.Duration
}

// Shown are the figures doctor and the statistics page show: what a hit
// and a commit take, and a password check.
var Shown = []Row{
	{"hit p50", Hit, Figures.P50},
	{"hit p99", Hit, Figures.P99},
	{"commit p50", Commit, Figures.P50},
	{"commit p99", Commit, Figures.P99},
	{"login check p50", Login, Figures.P50},
}

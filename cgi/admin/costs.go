package admin

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"hitcounter/cgi/internal/buildinfo"
	"hitcounter/cgi/meter"
	"hitcounter/cgi/rundir"
	"hitcounter/store"
)

// runVersion prints the build: version, commit and Go version.
func runVersion(e *cmdEnv, _ []string) error {
	fmt.Fprintln(e.stdout, buildinfo.Read())
	return nil
}

// costReport is the history and what the runtime directory holds that is
// not folded into it yet.
type costReport struct {
	store.CostHistory
	Pending []meter.Day // today's, and any day not folded yet
}

// readCosts reads the report of the last days days.
func (e *cmdEnv) readCosts(days int) (costReport, error) {
	var r costReport
	err := e.view(func(db *store.DB) error {
		var err error
		r.CostHistory, err = db.Costs(e.cfg.Now().AddDate(0, 0, -days))
		return err
	})
	if err != nil {
		return r, err
	}
	// What the runtime directory holds, if it can be read: nothing is
	// lost if not, it is today's alone.
	run := rundir.New(e.cfg.RunDir, e.cfg.DB, nil)
	defer run.Close()
	r.Pending, _, _ = meter.Read(run)
	return r, nil
}

// runCosts prints the history of what the counter cost on this machine,
// a line a day and kind, or as JSON with -json.
func runCosts(e *cmdEnv, _ []string) error {
	r, err := e.readCosts(e.costDays)
	if err != nil {
		return err
	}
	if e.json {
		return writeCostsJSON(e.stdout, r)
	}
	if len(r.Days) == 0 && len(r.Pending) == 0 {
		fmt.Fprintln(e.stdout, "no costs recorded yet: they are kept from the first request after an upgrade to this version")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "day\tkind\tcount\tp50\tp90\tp99\tCPU p50\t")
	for _, list := range []struct {
		days    []meter.Day
		pending bool
	}{{r.Days, false}, {r.Pending, true}} {
		for _, d := range list.days {
			date := d.Date
			if list.pending {
				date += " (so far)"
			}
			for _, k := range meter.Kinds() {
				f := d.Kinds[k]
				if f.Count == 0 {
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", date, k, f.Count, meter.Round(f.Wall[0]), meter.Round(f.Wall[1]),
					meter.Round(f.Wall[2]), costText(f.CPU[0]))
			}
		}
	}
	tw.Flush()
	for _, w := range r.Warnings {
		fmt.Fprintln(e.stdout, "WARNING: "+w)
	}
	return nil
}

// costText is a time as the commands show it, "-" for none.
func costText(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return meter.Round(d).String()
}

// costsJSON is the report for scripts: days (the history, then the days
// not folded yet, each marked), each with its build and, per kind, the
// count and the times in microseconds; the warnings; the builds' first
// requests.
type costsJSON struct {
	Days     []costDayJSON   `json:"days"`
	Warnings []string        `json:"warnings"`
	Builds   []costBuildJSON `json:"builds"`
}

type costDayJSON struct {
	Date   string                  `json:"date"`
	Folded bool                    `json:"folded"`
	Build  string                  `json:"build,omitempty"`
	Kinds  map[string]costKindJSON `json:"kinds"`
}

type costBuildJSON struct {
	Build string                  `json:"build"`
	Kinds map[string]costKindJSON `json:"kinds"`
}

type costKindJSON struct {
	Count  uint64 `json:"count"`
	P50    int64  `json:"p50_us"`
	P90    int64  `json:"p90_us"`
	P99    int64  `json:"p99_us"`
	CPUP50 int64  `json:"cpu_p50_us"`
	CPUP90 int64  `json:"cpu_p90_us"`
	CPUP99 int64  `json:"cpu_p99_us"`
}

// writeCostsJSON writes r for scripts (costsJSON).
func writeCostsJSON(w io.Writer, r costReport) error {
	out := costsJSON{Days: []costDayJSON{}, Warnings: r.Warnings, Builds: []costBuildJSON{}}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	for _, d := range r.Days {
		out.Days = append(out.Days, costDayJSON{Date: d.Date, Folded: true, Build: d.Build, Kinds: kindsJSON(d.Kinds)})
	}
	for _, d := range r.Pending {
		out.Days = append(out.Days, costDayJSON{Date: d.Date, Kinds: kindsJSON(d.Kinds)})
	}
	for _, bu := range []meter.Build{r.Build, r.Before} {
		if bu.ID != "" {
			out.Builds = append(out.Builds, costBuildJSON{Build: bu.ID, Kinds: kindsJSON(bu.Kinds)})
		}
	}
	return json.NewEncoder(w).Encode(out)
}

// kindsJSON is the figures of each kind that has any.
func kindsJSON(kinds [meter.NumKinds]meter.Figures) map[string]costKindJSON {
	m := map[string]costKindJSON{}
	for _, k := range meter.Kinds() {
		f := kinds[k]
		if f.Count == 0 {
			continue
		}
		m[k.String()] = costKindJSON{Count: uint64(f.Count),
			P50: f.Wall[0].Microseconds(), P90: f.Wall[1].Microseconds(), P99: f.Wall[2].Microseconds(),
			CPUP50: f.CPU[0].Microseconds(), CPUP90: f.CPU[1].Microseconds(), CPUP99: f.CPU[2].Microseconds()}
	}
	return m
}

package admin

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"hitcounter/cgi/internal/buildinfo"
	"hitcounter/cgi/meter"
	"hitcounter/cgi/rundir"
	"hitcounter/counter/costs"
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
	Pending []costs.Day // today's, and any day not folded yet
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
		days    []costs.Day
		pending bool
	}{{r.Days, false}, {r.Pending, true}} {
		for _, d := range list.days {
			date := d.Date
			if list.pending {
				date += " (so far)"
			}
			for _, k := range costs.Kinds() {
				f := d.Kinds[k]
				if f.Count == 0 {
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", date, k, f.Count, costs.Round(f.Wall[0]), costs.Round(f.Wall[1]),
					costs.Round(f.Wall[2]), cpuText(f.CPU[0]))
			}
		}
	}
	tw.Flush()
	for _, w := range r.Warnings {
		fmt.Fprintln(e.stdout, "WARNING: "+w)
	}
	return nil
}

func cpuText(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return costs.Round(d).String()
}

// writeCostsJSON writes the report for scripts: days (the history, then
// the days not folded yet, each marked), each with its build and, per
// kind, the count and the times in microseconds; the warnings; the
// builds' first requests. No encoding/json: the binary does not link it.
func writeCostsJSON(w io.Writer, r costReport) error {
	var b strings.Builder
	b.WriteString("{\"days\":[")
	first := true
	for _, list := range []struct {
		days    []costs.Day
		pending bool
	}{{r.Days, false}, {r.Pending, true}} {
		for _, d := range list.days {
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(`{"date":` + strconv.Quote(d.Date))
			if list.pending {
				b.WriteString(`,"folded":false`)
			} else {
				b.WriteString(`,"folded":true,"build":` + strconv.Quote(d.Build))
			}
			writeKindsJSON(&b, d.Kinds)
			b.WriteByte('}')
		}
	}
	b.WriteString("],\"warnings\":[")
	for i, line := range r.Warnings {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(line))
	}
	b.WriteString("],\"builds\":[")
	first = true
	for _, bu := range []costs.Build{r.Build, r.Before} {
		if bu.ID == "" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`{"build":` + strconv.Quote(bu.ID))
		writeKindsJSON(&b, bu.Kinds)
		b.WriteByte('}')
	}
	b.WriteString("]}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeKindsJSON(b *strings.Builder, kinds [costs.NumKinds]costs.Figures) {
	b.WriteString(`,"kinds":{`)
	first := true
	for _, k := range costs.Kinds() {
		f := kinds[k]
		if f.Count == 0 {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(b, `%q:{"count":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"cpu_p50_us":%d,"cpu_p90_us":%d,"cpu_p99_us":%d}`,
			k.String(), f.Count, f.Wall[0].Microseconds(), f.Wall[1].Microseconds(), f.Wall[2].Microseconds(),
			f.CPU[0].Microseconds(), f.CPU[1].Microseconds(), f.CPU[2].Microseconds())
	}
	b.WriteByte('}')
}

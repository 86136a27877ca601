package admin

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/health"
	"hitcounter/counter"
	"hitcounter/store"
)

// reportTop is how many pages and sources the report lists a counter.
const reportTop = 5

// Bounds past which the report asks the owner to act.
const (
	reportNearFull    = 0.8                // of the file's cap
	reportStaleBackup = 8 * 24 * time.Hour // a weekly backup missed
)

// runReport prints a plain-text summary of every counter over the last
// days days against the days before, and anything the owner should act
// on: what cron mails its owner when run from a crontab with MAILTO.
func runReport(e *cmdEnv, _ []string) error {
	if e.reportDays < 1 || e.reportDays > counter.MaxReportDays {
		return usagef("report: -days %d: must be from 1 to %d", e.reportDays, counter.MaxReportDays)
	}
	now := e.cfg.Now().UTC()
	var o store.Overview
	var h health.Report
	err := e.view(func(db *store.DB) error {
		var err error
		if o, err = reportOverview(db, now, e.reportDays); err != nil {
			return err
		}
		if c, ok, cerr := db.Cluster(); ok {
			h.Cluster(e.cfg.DB, c, cerr)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if store.IsRemote(e.cfg.DB) || h.Database(e.cfg.DB) {
		h.RunDir(e.cfg.RunDir, e.cfg.DB, false)
	}
	maxSize := int64(e.cfg.MaxDBSize)
	if o.Cap > 0 {
		maxSize = o.Cap // a cluster's quota
	}
	writeReport(e.stdout, o, h.Problems(), now, e.reportDays, maxSize)
	return nil
}

// reportOverview reads the overview the report of now over days days
// shows: of the days whole days that ended before today (UTC), each set
// against as many whole days before them. A period with today's first
// hours in it, against whole days, would read as a fall every week to an
// owner whose site is as busy as ever.
func reportOverview(db *store.DB, now time.Time, days int) (store.Overview, error) {
	return db.Overview(reportEnd(now), days, reportTop)
}

// reportEnd is the last day of the report of now: yesterday, UTC.
func reportEnd(now time.Time) time.Time { return now.UTC().AddDate(0, 0, -1) }

// writeReport writes the report of o, as reportOverview read it as of
// now, over a period of days days, with the doctor's problems and the
// file's cap.
func writeReport(w io.Writer, o store.Overview, problems []string, now time.Time, days int, maxSize int64) {
	end := reportEnd(now)
	first := end.AddDate(0, 0, 1-days).Format(time.DateOnly)
	fmt.Fprintf(w, "Counters, the last %d day(s): %s to %s (UTC, whole days), against the %d before.\n\n",
		days, first, end.Format(time.DateOnly), days)
	act := reportActions(o, problems, now, maxSize)
	if len(act) == 0 {
		fmt.Fprintln(w, "Nothing to act on.")
	} else {
		fmt.Fprintln(w, "To act on:")
		for _, a := range act {
			fmt.Fprintf(w, "- %s\n", a)
		}
	}
	var all, before counter.Tally
	var quiet []string
	for _, c := range o.Counters {
		all, before = all.Plus(c.LastN), before.Plus(c.BeforeN)
		if c.LastN.Views == 0 && c.BeforeN.Views == 0 && c.LastN.AllNotCounted() == 0 {
			quiet = append(quiet, c.Name)
			continue
		}
		fmt.Fprintln(w)
		writeReportCounter(w, c)
	}
	if len(quiet) > 0 {
		fmt.Fprintf(w, "\nNo hits in either period: %s.\n", strings.Join(quiet, ", "))
	}
	if len(o.Counters) > 1 {
		fmt.Fprintf(w, "\nAll %d counters: %s, %s.\n", len(o.Counters),
			figureAgainst(all.Views, before.Views, "view"), figureAgainst(all.Visitors, before.Visitors, "visitor"))
	}
	if len(o.Counters) == 0 {
		fmt.Fprintln(w, "\nNo counters yet: make one with counter create NAME.")
	}
}

// writeReportCounter writes one counter's part of the report.
func writeReportCounter(w io.Writer, c store.CounterOverview) {
	kind := ""
	if c.Settings.IsSite() {
		kind = " (site)"
	}
	fmt.Fprintf(w, "%s%s: %s, %s\n", c.Name, kind, figureAgainst(c.LastN.Views, c.BeforeN.Views, "view"),
		figureAgainst(c.LastN.Visitors, c.BeforeN.Visitors, "visitor"))
	if n := c.LastN.AllNotCounted(); n > 0 {
		var parts []string
		for _, k := range counter.NotCountedKinds {
			if m := c.LastN.NotCounted[k]; m > 0 {
				parts = append(parts, strconv.FormatUint(m, 10)+" "+k.String())
			}
		}
		fmt.Fprintf(w, "  not counted: %s\n", strings.Join(parts, ", "))
	}
	if len(c.Pages) > 0 {
		parts := make([]string, len(c.Pages))
		for i, p := range c.Pages {
			parts[i] = fmt.Sprintf("%s %d", p.Page, p.Views)
		}
		fmt.Fprintf(w, "  top pages: %s\n", strings.Join(parts, ", "))
	}
	if len(c.Sources) > 0 {
		parts := make([]string, len(c.Sources))
		for i, s := range c.Sources {
			parts[i] = fmt.Sprintf("%s %d", s.Host, s.Hits)
		}
		fmt.Fprintf(w, "  sources (all time): %s\n", strings.Join(parts, ", "))
	}
}

// figureAgainst writes n of noun against before: "12 views (+20 % on
// 10)".
func figureAgainst(n, before uint64, noun string) string {
	s := strconv.FormatUint(n, 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	if before == 0 {
		return s + " (none before)"
	}
	return s + " (" + counter.ChangeText(n, before) + " on " + strconv.FormatUint(before, 10) + ")"
}

// reportActions are what the owner should act on: the cost meter's
// warnings, the doctor's problems, a file near its cap, a backup missed.
func reportActions(o store.Overview, problems []string, now time.Time, maxSize int64) []string {
	var act []string
	for _, w := range o.CostWarnings {
		act = append(act, "cost: "+w)
	}
	for _, p := range problems {
		act = append(act, "doctor: "+p)
	}
	if maxSize <= 0 {
		maxSize = store.DefaultMaxSize
	}
	if float64(o.Size) >= reportNearFull*float64(maxSize) {
		act = append(act, fmt.Sprintf("file: %d bytes, %.0f %% of its cap of %d: writes fail past it (COUNTER_MAX_DB_SIZE raises it)",
			o.Size, 100*float64(o.Size)/float64(maxSize), maxSize))
	}
	switch {
	case o.LastBackup.IsZero():
		act = append(act, "backup: never made (counter backup FILE, from cron)")
	case now.Sub(o.LastBackup) > reportStaleBackup:
		act = append(act, "backup: the last on "+o.LastBackup.UTC().Format("2006-01-02 15:04")+" UTC, over 8 days ago")
	}
	return act
}

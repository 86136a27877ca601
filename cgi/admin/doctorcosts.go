package admin

import (
	"fmt"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// costTable times a password check at cost 10, 11 and 12 here, and says
// what PHP's default would cost: PHP 8.4 raised it from 10 to 12, four
// times the work, which is why this counter pins 10. pinned is the median
// already timed at counter.PasswordCost. (Asking the PHP here for its own
// default would link os/exec into every hit's binary.)
func (d *doctor) costTable(pinned time.Duration) {
	fmt.Fprintln(d.w, "a password check here, by bcrypt cost:")
	byCost := map[int]time.Duration{counter.PasswordCost: pinned}
	for cost := counter.PasswordCost; cost <= counter.MaxVerifyCost; cost++ {
		t, ok := byCost[cost]
		if !ok {
			times, err := counter.TimeHash(cost, 3)
			if err != nil {
				fmt.Fprintf(d.w, "  cost %d: %v\n", cost, err)
				continue
			}
			t = medianOf(times)
			byCost[cost] = t
		}
		note := ""
		if cost == counter.PasswordCost {
			note = "  (the counter's, pinned)"
		}
		fmt.Fprintf(d.w, "  cost %d: %s, %.0f checks a second per core%s\n", cost, ms(t), float64(time.Second)/float64(t), note)
	}
	if t12, t10 := byCost[12], byCost[10]; t12 > 0 && t10 > 0 {
		fmt.Fprintf(d.w, "  PHP's password_hash default is cost 12 since PHP 8.4 (10 before): %s a check here, %.1f times cost 10\n",
			ms(t12), float64(t12)/float64(t10))
	}
}

// costs prints what hits, commits and logins cost here lately, from the
// history and today's figures so far, each with its trend over the last
// 30 days, and the warnings kept.
func (d *doctor) costs(e *cmdEnv) {
	r, err := e.readCosts(30)
	if err != nil {
		fmt.Fprintf(d.w, "costs: %v\n", err)
		return
	}
	days := append(append([]meter.Day(nil), r.Days...), r.Pending...)
	if len(days) == 0 {
		fmt.Fprintln(d.w, "costs: none recorded yet (COUNTER_COSTS=off, or no request since the upgrade)")
		return
	}
	fmt.Fprintf(d.w, "what the counter costs here (the last %d day(s), today so far last; `counter costs` for the figures):\n", len(days))
	for _, row := range meter.Shown {
		trend := meter.Trend(days, row.Kind, row.Pick)
		fmt.Fprintf(d.w, "  %-17s %9s  %s\n", row.Label, costText(trend[len(trend)-1]), meter.Sparkline(trend))
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(d.w, "WARNING: "+w)
	}
}

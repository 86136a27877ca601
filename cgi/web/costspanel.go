package web

import (
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/store"
)

// costView is what the costs panel shows: the last costDays days of the
// history, today's figures so far, and the warnings kept.
type costView struct {
	days     []meter.Day
	warnings []string
}

// costDays is how many days the panel's sparklines cover.
const costDays = 30

// loadCosts reads the costs panel's figures from db and the runtime
// directory; a panel that cannot be read is left out, never the page.
func (a *App) loadCosts(db *store.DB) *costView {
	if a.cfg.NoCosts {
		return nil
	}
	h, err := db.Costs(a.now().AddDate(0, 0, -costDays))
	if err != nil {
		a.log.Printf("costs: %v", err)
		return nil
	}
	v := &costView{days: append(h.Days, a.proc.Meter.Pending()...), warnings: h.Warnings}
	if len(v.days) > costDays {
		v.days = v.days[len(v.days)-costDays:]
	}
	return v
}

// costsAreFor is the panel's first line: what its figures are for.
const costsAreFor = `What these are for: to see that this machine keeps up, and to hear of it when an upgrade, an ageing SD card or a busy CPU makes a hit, a commit or a login check slower (a warning then shows here).`

// Geometry of a sparkline, in SVG user units.
const sparkW, sparkH = 120, 24

// writeCosts writes the panel: what this counter costs on this machine,
// each figure today (so far) and its line over the last days, with the
// warnings first.
func writeCosts(p *htmlPage, v *costView) {
	if v == nil || len(v.days) == 0 {
		return
	}
	p.raw(`<section class="costs"><h2>What this counter costs on this machine</h2>`, "\n")
	p.raw(`<p class="sub">`, costsAreFor, "</p>\n")
	p.raw(`<p class="sub">Measured on every request here, per UTC day: the last `, itoa(len(v.days)), ` day(s), today so far on the right.</p>`, "\n")
	for _, w := range v.warnings {
		p.raw(`<p class="msg warn">`)
		p.text(w)
		p.raw("</p>\n")
	}
	p.raw(`<table class="costs"><thead><tr><th>figure</th><th class="n">today</th><th>last `, itoa(len(v.days)), " days</th></tr></thead><tbody>\n")
	for _, row := range meter.Shown {
		trend := meter.Trend(v.days, row.Kind, row.Pick)
		p.raw("<tr><td>", row.Label, `</td><td class="n">`)
		p.text(durationText(trend[len(trend)-1]))
		p.raw("</td><td>")
		writeSparkline(p, row.Label, v.days, trend)
		p.raw("</td></tr>\n")
	}
	p.raw("</tbody></table></section>\n")
}

// writeSparkline draws values as a line from the first day to the last,
// its lowest and highest in the title; a day without a value (no login
// that day, say) is passed over, the line joining the days around it.
func writeSparkline(p *htmlPage, label string, days []meter.Day, values []time.Duration) {
	var lo, hi time.Duration
	for _, x := range values {
		if x > 0 && (lo == 0 || x < lo) {
			lo = x
		}
		hi = max(hi, x)
	}
	title := label + ": no figures yet"
	if hi > 0 {
		title = label + " from " + days[0].Date + " to " + days[len(days)-1].Date + ": " + durationText(lo) + " to " + durationText(hi)
	}
	// Stretched to the cell's width: the strokes keep their width, and
	// today's dot is a stroke of no length with a round cap.
	p.raw(`<svg class="spark" viewBox="0 0 `, itoa(sparkW), " ", itoa(sparkH), `" preserveAspectRatio="none" role="img" aria-label="`)
	p.text(title)
	p.raw(`"><title>`)
	p.text(title)
	p.raw("</title>")
	step := float64(sparkW-4) / float64(max(1, len(values)-1))
	y := func(x time.Duration) float64 {
		if hi == 0 {
			return sparkH / 2
		}
		return float64(sparkH-3) - float64(sparkH-6)*float64(x)/float64(hi)
	}
	p.raw(`<polyline points="`)
	sep, last := "", -1
	for i, x := range values {
		if x > 0 {
			p.raw(sep, num(2+float64(i)*step), ",", num(y(x)))
			sep, last = " ", i
		}
	}
	p.raw(`"/>`)
	if last >= 0 {
		x, y := num(2+float64(last)*step), num(y(values[last]))
		p.raw(`<polyline class="dot" points="`, x, ",", y, " ", x, ",", y, `"/>`)
	}
	p.raw("</svg>")
}

// durationText is a time as the panel shows it: three figures at most.
func durationText(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return meter.Round(d).String()
}

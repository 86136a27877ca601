package web

import (
	"strconv"

	"hitcounter/counter"
)

// Geometry of the daily chart, in SVG user units; it scales to the page.
const (
	chartW, chartH = 900, 300
	chartLeft      = 64 // room for the axis labels, large on a phone
	chartTop       = 16
	chartBottom    = 36 // room for the dates below the zero line
)

// writeChart draws the views and visitors per day as an inline SVG bar
// chart, drawn on the server so the page needs no script: a bar of views
// a day, with the day's visitors, never more, as a darker bar inside it.
func writeChart(p *htmlPage, days []counter.Day) {
	var peak uint64
	var sum counter.Tally
	for _, d := range days {
		peak = max(peak, d.Views, d.Visitors)
		sum = sum.Plus(d.Tally)
	}
	top := niceCeil(peak)
	plotW, plotH := float64(chartW-chartLeft-8), float64(chartH-chartTop-chartBottom)
	p.raw(`<svg class="chart" viewBox="0 0 `, itoa(chartW), " ", itoa(chartH), `" role="img" aria-label="views and visitors per day over the last `,
		itoa(len(days)), ` days: `, strconv.FormatUint(sum.Views, 10), ` views, `, strconv.FormatUint(sum.Visitors, 10), ` visitors in all">`)
	// Grid lines at 0, half and the top of the scale.
	for _, f := range []float64{0, 0.5, 1} {
		y := chartTop + plotH*(1-f)
		p.raw(`<line x1="`, itoa(chartLeft), `" x2="`, itoa(chartW-8), `" y1="`, num(y), `" y2="`, num(y), `" stroke="#dde2e6"/>`)
		p.raw(`<text x="`, itoa(chartLeft-6), `" y="`, num(y+4), `" text-anchor="end">`)
		p.text(strconv.FormatFloat(float64(top)*f, 'f', -1, 64))
		p.raw(`</text>`)
	}
	slot := plotW / float64(max(1, len(days)))
	height := func(n uint64) float64 {
		if top == 0 {
			return 0
		}
		return plotH * float64(n) / float64(top)
	}
	for i, d := range days {
		x := float64(chartLeft) + float64(i)*slot
		// The title on the group names both figures wherever the day is
		// pointed at; the bars themselves are not read out one by one.
		p.raw(`<g><title>`)
		p.text(d.Date + ": " + plural(d.Views, "view") + ", " + plural(d.Visitors, "visitor"))
		h := height(d.Views)
		p.raw(`</title><rect class="bar" x="`, num(x+slot*0.1), `" y="`, num(chartTop+plotH-h), `" width="`, num(slot*0.8), `" height="`, num(h), `"/>`)
		if d.Visitors > 0 {
			h := height(d.Visitors)
			p.raw(`<rect class="vis" x="`, num(x+slot*0.3), `" y="`, num(chartTop+plotH-h), `" width="`, num(slot*0.4), `" height="`, num(h), `"/>`)
		}
		p.raw(`</g>`)
	}
	if len(days) > 0 {
		y := num(chartH - 6)
		p.raw(`<text x="`, itoa(chartLeft), `" y="`, y, `">`)
		p.text(days[0].Date)
		p.raw(`</text><text x="`, itoa(chartW-8), `" y="`, y, `" text-anchor="end">`)
		p.text(days[len(days)-1].Date)
		p.raw(`</text>`)
	}
	p.raw("</svg>\n")
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n uint64, noun string) string {
	s := strconv.FormatUint(n, 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten, for the scale.
func niceCeil(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	for step := uint64(1); ; step *= 10 {
		for _, m := range []uint64{1, 2, 5} {
			if m*step >= n || m*step > ^uint64(0)/10 {
				return max(n, m*step)
			}
		}
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
func itoa(n int) string    { return strconv.Itoa(n) }

package web

import (
	"strconv"

	"hitcounter/counter"
)

// Geometry of the daily chart, in SVG user units; it scales to the page.
const (
	chartW, chartH = 900, 220
	chartLeft      = 48 // room for the axis labels
	chartTop       = 12
	chartBottom    = 24
)

// writeChart draws the hits per day as an inline SVG bar chart, drawn on
// the server so the page needs no script.
func writeChart(p *htmlPage, days []counter.Day) {
	var peak uint64
	for _, d := range days {
		peak = max(peak, d.Views)
	}
	top := niceCeil(peak)
	plotW, plotH := float64(chartW-chartLeft-8), float64(chartH-chartTop-chartBottom)
	p.raw(`<svg class="chart" viewBox="0 0 `, itoa(chartW), " ", itoa(chartH), `" role="img" aria-label="hits per day over the last `, itoa(len(days)), ` days">`)
	// Grid lines at 0, half and the top of the scale.
	for _, f := range []float64{0, 0.5, 1} {
		y := chartTop + plotH*(1-f)
		p.raw(`<line x1="`, itoa(chartLeft), `" x2="`, itoa(chartW-8), `" y1="`, num(y), `" y2="`, num(y), `" stroke="#dde2e6"/>`)
		p.raw(`<text x="`, itoa(chartLeft-6), `" y="`, num(y+4), `" text-anchor="end">`)
		p.text(strconv.FormatFloat(float64(top)*f, 'f', -1, 64))
		p.raw(`</text>`)
	}
	slot := plotW / float64(max(1, len(days)))
	for i, d := range days {
		h := 0.0
		if top > 0 {
			h = plotH * float64(d.Views) / float64(top)
		}
		x := float64(chartLeft) + float64(i)*slot
		p.raw(`<rect class="bar" x="`, num(x+slot*0.1), `" y="`, num(chartTop+plotH-h), `" width="`, num(slot*0.8), `" height="`, num(h), `"><title>`)
		p.text(d.Date + ": " + strconv.FormatUint(d.Views, 10))
		p.raw(`</title></rect>`)
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

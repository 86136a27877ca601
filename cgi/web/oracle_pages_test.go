package web

// The pages of html.go, put together again by html/template from
// testdata/pages.html: the library's escaping is the oracle of html.go's
// (TestPagesAsTheirTemplate). A change to a page's text changes both.

import (
	_ "embed"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

//go:embed testdata/pages.html
var pagesTemplate string

// oracle is a page as a template and its data.
type oracle struct {
	name string
	data any
}

func (o oracle) render() (string, error) {
	t, err := template.New("pages").Parse(pagesTemplate)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = t.ExecuteTemplate(&b, o.name, o.data)
	return b.String(), err
}

// statsData is the statistics page of a counter (template "stats").
type statsData struct {
	figuresAndChart
	Title, Today string
	TalliedSince string // the day, when visitors were kept since after the counter was made
	Site         *pagesData
	NotCounted   notCountedData
	Referrers    []refRow
	Sources      []sourceRow
	Costs        *costsData
	Looks        looksData
	Owner        bool   // this browser is marked as the owner's
	Logout       string // the logout form's action, "" for none
}

// figuresAndChart is what the statistics of a counter and of a site's
// page share: the figures and the chart.
type figuresAndChart struct {
	S       counter.Stats
	Figures [2]figuresData
	Chart   chartData
}

// figuresData is one group of cards: today, the last 7 and 30 days and
// the total, marked when it is what the counter's image shows.
type figuresData struct {
	Title, What string
	Shown       bool
	Cards       [4]struct{ N, Label string }
}

func tmplFigures(title, what string, shown bool, n [4]uint64) figuresData {
	f := figuresData{Title: title, What: what, Shown: shown}
	for i, label := range [4]string{"today", "last 7 days", "last 30 days", "total"} {
		f.Cards[i].N, f.Cards[i].Label = group(n[i]), label
	}
	return f
}

// refRow is a line of the top referring sites.
type refRow struct{ Host, Hits string }

// sourceRow is a line of where readers came from: a group's kind tagged.
type sourceRow struct{ Source, Kind, Views string }

func tmplStats(s counter.Stats, owner bool, site *siteView, cost *costView, sets []string, logout string) oracle {
	d := statsData{
		figuresAndChart: figuresAndChart{S: s, Chart: tmplChart(s.Chart), Figures: [2]figuresData{
			tmplFigures("Views", "every hit that counted", s.Show == counter.ShowViews,
				[4]uint64{s.Today.Views, s.Last7.Views, s.Last30.Views, s.Total}),
			tmplFigures("Unique visitors", "each visitor once a day", s.Show == counter.ShowVisitors,
				[4]uint64{s.Today.Visitors, s.Last7.Visitors, s.Last30.Visitors, s.Visitors}),
		}},
		Title: s.Name + " · statistics", Today: s.Now.Format(time.DateOnly),
		NotCounted: tmplNotCounted(s), Costs: tmplCosts(cost), Looks: tmplLooks(s.Name, sets), Owner: owner,
		Logout: logout,
	}
	if t := s.TalliedSince; !t.IsZero() && t.After(s.Created) {
		d.TalliedSince = t.UTC().Format(time.DateOnly)
	}
	if site != nil {
		d.Site = tmplPages(site)
	}
	for _, ref := range s.Referrers {
		d.Referrers = append(d.Referrers, refRow{ref.Host, group(ref.Hits)})
	}
	if s.OtherReferrers > 0 {
		d.Referrers = append(d.Referrers, refRow{"all other sites", group(s.OtherReferrers)})
	}
	for _, src := range s.Sources {
		d.Sources = append(d.Sources, sourceRow{src.Host, counter.SourceKind(src.Host), group(src.Hits)})
	}
	if s.OtherSources > 0 {
		d.Sources = append(d.Sources, sourceRow{"all other sources", "", group(s.OtherSources)})
	}
	return oracle{"stats", d}
}

// looksData shows the count in each built-in look (as a PNG) and each set
// added with digitset add (as a GIF, which animates an animated set), shown
// without counting (count=0), with the tag that asks for it.
type looksData struct {
	Name  string
	Looks []struct{ Look, Ext string }
}

func tmplLooks(name string, sets []string) looksData {
	d := looksData{Name: name}
	for i, look := range append(counter.LookNames(), sets...) {
		ext := ".png"
		if i >= len(counter.LookNames()) {
			ext = ".gif"
		}
		d.Looks = append(d.Looks, struct{ Look, Ext string }{look, ext})
	}
	return d
}

// notCountedData is the hits that reached the counter without adding to
// it, by kind, and the views that came through GitHub's proxy.
type notCountedData struct {
	Kinds       []kindRow
	Sum, GitHub kindRow
}

// kindRow is a line of the hits not counted: today, 7 and 30 days.
type kindRow struct {
	Class, Name, Means string
	N                  [3]string
}

func tmplRow(class, name, means string, n [3]uint64) kindRow {
	return kindRow{class, name, means, [3]string{group(n[0]), group(n[1]), group(n[2])}}
}

func tmplNotCounted(s counter.Stats) notCountedData {
	var d notCountedData
	for _, k := range kindLabels {
		means := k.means
		if k.kind == counter.Reload {
			means = reloadMeans(s.Reload)
		}
		d.Kinds = append(d.Kinds, tmplRow("", k.name, means, [3]uint64{s.Today.NotCounted[k.kind], s.Last7.NotCounted[k.kind], s.Last30.NotCounted[k.kind]}))
	}
	d.Sum = tmplRow("sum", "All not counted", "", [3]uint64{s.Today.AllNotCounted(), s.Last7.AllNotCounted(), s.Last30.AllNotCounted()})
	d.GitHub = tmplRow("", "Views via GitHub", "counted as views, never as visitors: GitHub’s proxy fetches the image for every reader",
		[3]uint64{s.Today.GitHub, s.Last7.GitHub, s.Last30.GitHub})
	return d
}

// loginPage is the form that stands in for protected statistics.
func tmplLogin(name, message string) oracle {
	return oracle{"login", struct{ Title, Name, Message string }{name + " · log in", name, message}}
}

// chartData is the views and visitors per day as an inline SVG bar
// chart, drawn on the server so the page needs no script: a bar of views
// a day, with the day's visitors, never more, as a darker bar inside it.
// Its geometry is worked out here, as text, for the template "chart".
type chartData struct {
	W, H, Left, Right int
	Days              int // counter.ChartDays, for the heading
	Views, Visitors   uint64
	Grid              []gridLine
	Bars              []chartBar
	DateY             string
	First, Last       string // the dates below the first and last bar
}

// gridLine is a horizontal line of the chart with its label.
type gridLine struct {
	X1, X2, TX int
	Y, TY      string
	Label      string
}

// chartBar is a day: a bar of views, with its visitors inside (Vis, nil
// for none), and a title naming both.
type chartBar struct {
	Title string
	Bar   chartRect
	Vis   *chartRect
}

type chartRect struct{ X, Y, W, H string }

func tmplChart(days []counter.Day) chartData {
	var peak uint64
	var sum counter.Tally
	for _, d := range days {
		peak = max(peak, d.Views, d.Visitors)
		sum = sum.Plus(d.Tally)
	}
	top := niceCeil(peak)
	plotW, plotH := float64(chartW-chartLeft-8), float64(chartH-chartTop-chartBottom)
	c := chartData{W: chartW, H: chartH, Left: chartLeft, Right: chartW - 8, Days: counter.ChartDays,
		Views: sum.Views, Visitors: sum.Visitors, DateY: num(chartH - 6)}
	// Grid lines at 0, half and the top of the scale.
	for _, f := range []float64{0, 0.5, 1} {
		y := chartTop + plotH*(1-f)
		c.Grid = append(c.Grid, gridLine{X1: chartLeft, X2: chartW - 8, TX: chartLeft - 6, Y: num(y), TY: num(y + 4),
			Label: strconv.FormatFloat(float64(top)*f, 'f', -1, 64)})
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
		h := height(d.Views)
		b := chartBar{Title: d.Date + ": " + plural(d.Views, "view") + ", " + plural(d.Visitors, "visitor"),
			Bar: chartRect{num(x + slot*0.1), num(chartTop + plotH - h), num(slot * 0.8), num(h)}}
		if d.Visitors > 0 {
			h := height(d.Visitors)
			b.Vis = &chartRect{num(x + slot*0.3), num(chartTop + plotH - h), num(slot * 0.4), num(h)}
		}
		c.Bars = append(c.Bars, b)
	}
	if len(days) > 0 {
		c.First, c.Last = days[0].Date, days[len(days)-1].Date
	}
	return c
}

// costsData is the panel: what this counter costs on this machine, each
// figure today (so far) and its line over the last days, with the
// warnings first.
type costsData struct {
	For      string
	Days     int
	Warnings []string
	Rows     []costRow
}

// costRow is a figure of the panel: today's, and its sparkline.
type costRow struct {
	Label, Today string
	Spark        sparkData
}

func tmplCosts(v *costView) *costsData {
	if v == nil || len(v.days) == 0 {
		return nil
	}
	d := &costsData{For: costsAreFor, Days: len(v.days), Warnings: v.warnings}
	for _, row := range meter.Shown {
		trend := meter.Trend(v.days, row.Kind, row.Pick)
		d.Rows = append(d.Rows, costRow{row.Label, durationText(trend[len(trend)-1]), tmplSparkline(row.Label, v.days, trend)})
	}
	return d
}

// sparkData is a sparkline as the template "spark" draws it.
type sparkData struct {
	W, H        int
	Title       string
	Points, Dot string
}

// sparkline draws values as a line from the first day to the last, its
// lowest and highest in the title; a day without a value (no login that
// day, say) is passed over, the line joining the days around it.
func tmplSparkline(label string, days []meter.Day, values []time.Duration) sparkData {
	var lo, hi time.Duration
	for _, x := range values {
		if x > 0 && (lo == 0 || x < lo) {
			lo = x
		}
		hi = max(hi, x)
	}
	d := sparkData{W: sparkW, H: sparkH, Title: label + ": no figures yet"}
	if hi > 0 {
		d.Title = label + " from " + days[0].Date + " to " + days[len(days)-1].Date + ": " + durationText(lo) + " to " + durationText(hi)
	}
	// Stretched to the cell's width: the strokes keep their width, and
	// today's dot is a stroke of no length with a round cap.
	step := float64(sparkW-4) / float64(max(1, len(values)-1))
	y := func(x time.Duration) float64 {
		if hi == 0 {
			return sparkH / 2
		}
		return float64(sparkH-3) - float64(sparkH-6)*float64(x)/float64(hi)
	}
	var points []string
	last := -1
	for i, x := range values {
		if x > 0 {
			points = append(points, num(2+float64(i)*step)+","+num(y(x)))
			last = i
		}
	}
	d.Points = strings.Join(points, " ")
	if last >= 0 {
		x, y := num(2+float64(last)*step), num(y(values[last]))
		d.Dot = x + "," + y + " " + x + "," + y
	}
	return d
}

// pagesData is a site's table of pages (template "pages"), with the
// periods to choose.
type pagesData struct {
	Periods []struct {
		Label, Arg string
		Current    bool
	}
	Pages    []pageRow
	Past     bool // the period has days before today
	KeptADay int
	Rest     *struct {
		Pages int
		Views string
	}
}

// pageRow is a line of the table: a page and its link, or the row of the
// other pages.
type pageRow struct {
	Page, Views, Visitors string
	Other                 bool
	// Query is the page escaped for a query, made with url.QueryEscape as
	// the request's is read back: it holds only letters, digits and
	// "%+-._~", which the template then leaves as they are.
	Query template.URL
}

func tmplPages(v *siteView) *pagesData {
	d := &pagesData{Past: v.period > 0, KeptADay: store.KeptPagesADay}
	for _, p := range periods {
		label, arg := "last "+itoa(p)+" days", itoa(p)
		if p == 0 {
			label, arg = "all time", "all"
		}
		d.Periods = append(d.Periods, struct {
			Label, Arg string
			Current    bool
		}{label, arg, p == v.period})
	}
	for _, pg := range v.pages {
		d.Pages = append(d.Pages, pageRow{Page: pg.Page, Views: group(pg.Views), Visitors: group(pg.Visitors),
			Other: pg.Page == counter.OtherPages, Query: template.URL(url.QueryEscape(pg.Page))})
	}
	if rest := v.allPages - len(v.pages); rest > 0 && len(v.pages) > 0 {
		d.Rest = &struct {
			Pages int
			Views string
		}{rest, group(v.restViews)}
	}
	return d
}

// pageData is the statistics of one page of a site (template "page"): its
// figures and chart.
type pageData struct {
	figuresAndChart
	Title, Today, Created string
}

func tmplPage(s counter.Stats) oracle {
	return oracle{"page", pageData{
		figuresAndChart: figuresAndChart{S: s, Chart: tmplChart(s.Chart), Figures: [2]figuresData{
			tmplFigures("Views", "every hit on this page that counted", false,
				[4]uint64{s.Today.Views, s.Last7.Views, s.Last30.Views, s.Total}),
			tmplFigures("Unique visitors", "each visitor of this page once a day", false,
				[4]uint64{s.Today.Visitors, s.Last7.Visitors, s.Last30.Visitors, s.Visitors}),
		}},
		Title: s.Name + " · statistics", Today: s.Now.Format(time.DateOnly), Created: s.Created.Format(time.DateOnly),
	}}
}

// indexData is the demo page (template "index"): each counter with what a
// load of the page adds to it, in each built-in look and each set added.
type indexData struct {
	Counters    []struct{ Name, Counts string }
	Looks, Sets []string
}

package web

import (
	"strconv"
	"strings"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// overviewStyle is what the overview adds to the pages' style sheet: a
// table wider than a phone scrolls on its own, the counter's name stays
// in view, and the demo's images sit in rows. On a phone the table is as
// wide as its figures, headings wrapped, so that today's, yesterday's and
// the 7 days' figures show beside the name before any scrolling.
const overviewStyle = `body{max-width:72rem}
.scroll{overflow-x:auto;margin:0 -1rem;padding:0 1rem}
table.all{min-width:46rem}table.all th{font-size:.85rem;vertical-align:bottom}
table.all th a{color:inherit;text-decoration:none;border-bottom:1px dotted var(--mute)}
table.all th a.on{border-bottom:2px solid var(--bar)}
table.all td:first-child,table.all th:first-child{position:sticky;left:0;background:var(--bg)}
table.all td small{display:block;color:var(--mute);font-size:.8rem;line-height:1.2;white-space:normal}
td.up{color:#1a7f37}td.down{color:#b42318}
svg.mini{width:6rem;height:1.5rem;display:block}svg.mini path{fill:var(--soft)}
ul.health{padding-left:1.2rem}ul.health li.bad{color:#b42318}
.row{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin:.5rem 0}
figure{margin:0}figcaption{font-size:.8rem}
code,pre{background:#f3f3f3;border-radius:4px}pre{padding:.6rem;overflow-x:auto}
@media (max-width:40rem){table.all{min-width:0}table.all th{white-space:normal}svg.mini{width:3rem}}
`

// overviewPage is the owner's overview: every counter's row, what was not
// counted and why, the top pages and sources, this browser, the
// machine's health, and on the local server the demo.
func overviewPage(v *overviewView) *htmlPage {
	p := &htmlPage{}
	p.beginStyled("Counters · overview", overviewStyle)
	p.raw(`<h1>Counters on this machine</h1><p class="sub">Days are UTC; today is `)
	p.text(v.now.UTC().Format(time.DateOnly))
	p.raw(". Views are the hits that counted; the change compares the last days with as many before them.</p>\n")
	writeHealth(p, v)
	rows := v.Counters
	v.sort.sortRows(rows)
	p.b.Grow(overviewRowBytes * len(rows))
	p.raw("<h2>Every counter</h2>\n")
	if len(rows) == 0 {
		p.raw("<p class=\"sub\">No counters yet: make one with <code>counter create NAME</code>.</p>\n")
	} else {
		writeOverviewTable(p, v.sort, rows)
	}
	writeNotCountedAll(p, rows)
	writeTopPages(p, v.Pages)
	writeTopSources(p, v.Sources, v.OtherSources)
	if len(rows) > 0 {
		ownerAllForm(p, len(rows))
	}
	if v.demo == nil {
		p.raw(`<div class="foot"><span>You are logged in as the owner: every counter's statistics page opens to this browser.</span><form method="post" action="logout"><button type="submit">Log out</button></form></div>`, "\n")
	} else {
		p.raw("<h2>Try them</h2>\n")
		list := make([]counter.Info, len(rows))
		for i := range rows {
			list[i] = rows[i].Info
		}
		slicesSortInfo(list)
		writeDemo(p, list, v.demo.sets, v.demo.here)
	}
	p.end()
	return p
}

// writeHealth writes the machine's health, one line each: the cost
// meter's warnings, the doctor's problems, the file against its cap, the
// last backup.
func writeHealth(p *htmlPage, v *overviewView) {
	p.raw("<h2>This machine</h2>\n<ul class=\"health\">\n")
	line := func(bad bool, s string) {
		p.raw("<li")
		if bad {
			p.raw(` class="bad"`)
		}
		p.raw(">")
		p.text(s)
		p.raw("</li>\n")
	}
	for _, w := range v.CostWarnings {
		line(true, "Cost: "+w)
	}
	for _, h := range v.health {
		line(true, "Doctor: "+h)
	}
	size, near := sizeLine(v.Size, v.maxSize, v.Cap > 0)
	line(near, size)
	backup, stale := backupLine(v.LastBackup, v.now)
	line(stale, backup)
	if len(v.CostWarnings) == 0 && len(v.health) == 0 {
		line(false, "No cost warnings, and nothing the doctor finds without root (run counter doctor for the bcrypt timing and the rest).")
	}
	p.raw("</ul>\n")
}

// nearFull is the share of its cap past which the file is said to be
// near it: room left for a while, time to act.
const nearFull = 0.8

// staleBackup is how old the last backup may be before the owner is told.
const staleBackup = 8 * 24 * time.Hour

// sizeLine says how large the file is against its cap, and whether it is
// near it; on a cluster, a member's file against the members' quota.
func sizeLine(size, maxSize int64, cluster bool) (string, bool) {
	if maxSize <= 0 {
		maxSize = store.DefaultMaxSize
	}
	near := float64(size) >= nearFull*float64(maxSize)
	what, of, raise := "File: ", " of its cap of ", "COUNTER_MAX_DB_SIZE raises it"
	if cluster {
		what, of, raise = "Cluster member's file: ", " of the quota of ", "defragment the members, or raise --quota-backend-bytes"
	}
	s := what + sizeText(size) + of + sizeText(maxSize) +
		" (" + strconv.FormatFloat(100*float64(size)/float64(maxSize), 'f', 1, 64) + " %)"
	if near {
		s += ": near it; writes fail past it (" + raise + ")"
	}
	return s, near
}

// sizeText writes n bytes in the largest binary unit it fills: 1.5 MiB.
func sizeText(n int64) string {
	f, unit := float64(n), "bytes"
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if f < 1024 {
			break
		}
		f, unit = f/1024, u
	}
	if unit == "bytes" {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + unit
}

// backupLine says when the file was last backed up, and whether that is
// too long ago.
func backupLine(last, now time.Time) (string, bool) {
	if last.IsZero() {
		return "Backup: never (counter backup FILE, from cron)", true
	}
	s := "Backup: last on " + last.UTC().Format("2006-01-02 15:04") + " UTC"
	stale := now.Sub(last) > staleBackup
	if stale {
		s += ", over " + strconv.Itoa(int(staleBackup/(24*time.Hour))) + " days ago"
	}
	return s, stale
}

// overviewRowBytes is about what a counter's row takes on the page.
const overviewRowBytes = 1024

// writeOverviewTable writes one row a counter, each column's heading a
// link that sorts by it (again: the other way round).
func writeOverviewTable(p *htmlPage, s overviewSort, rows []store.CounterOverview) {
	p.raw(`<div class="scroll"><table class="all"><thead><tr>`)
	for i, c := range overviewColumns {
		desc := c.desc
		if i == s.col {
			desc = !s.desc
		}
		p.raw("<th")
		if c.value != nil {
			p.raw(` class="n"`)
		}
		p.raw(`><a href="?sort=`, c.key, "&amp;order=", map[bool]string{false: "asc", true: "desc"}[desc], `"`)
		if i == s.col {
			p.raw(` class="on" aria-sort="`, map[bool]string{false: "ascending", true: "descending"}[s.desc], `"`)
		}
		p.raw(">", c.label)
		if i == s.col {
			p.raw(map[bool]string{false: " ▲", true: " ▼"}[s.desc])
		}
		p.raw("</a></th>")
		if i == 0 {
			p.raw("<th>last 30 days</th>")
		}
	}
	p.raw("</tr></thead><tbody>\n")
	for i := range rows {
		writeOverviewRow(p, &rows[i])
	}
	p.raw("</tbody></table></div>\n")
}

// writeOverviewRow writes a counter's row.
func writeOverviewRow(p *htmlPage, c *store.CounterOverview) {
	p.raw(`<tr><td><a href="`)
	p.text(c.Name)
	p.raw(`/stats">`)
	p.text(c.Name)
	p.raw("</a>")
	if c.Settings.IsSite() {
		p.raw(` <span class="tag">site</span>`)
	}
	p.raw("</td><td>")
	writeMiniChart(p, c)
	p.raw("</td>")
	count := func(n uint64) {
		p.raw(`<td class="n">`)
		p.text(group(n))
		p.raw("</td>")
	}
	change := func(now, before uint64) {
		r := counter.ChangeRatio(now, before)
		p.raw(`<td class="n`)
		switch {
		case r > 0:
			p.raw(" up")
		case r < 0:
			p.raw(" down")
		}
		p.raw(`">`)
		p.text(counter.ChangeText(now, before))
		p.raw("</td>")
	}
	count(c.Today.Views)
	count(c.Yesterday.Views)
	count(c.Last7.Views)
	change(c.Last7.Views, c.Before7.Views)
	count(c.Last30.Views)
	change(c.Last30.Views, c.Before30.Views)
	count(c.Last30.Visitors)
	p.raw(`<td class="n">`)
	p.text(group(c.Last30.AllNotCounted()))
	if why := notCountedWhy(c.Last30); why != "" {
		p.raw("<small>")
		p.text(why)
		p.raw("</small>")
	}
	p.raw("</td></tr>\n")
}

// notCountedWhy names the kinds of hits not counted in t, most first:
// "12 bots, 3 reloads".
func notCountedWhy(t counter.Tally) string {
	var parts []string
	kinds := append([]counter.Kind(nil), counter.NotCountedKinds[:]...)
	slicesSortKinds(kinds, t)
	for _, k := range kinds {
		if n := t.NotCounted[k]; n > 0 {
			parts = append(parts, group(n)+" "+kindWord(k, n))
		}
	}
	return strings.Join(parts, ", ")
}

// kindWord is a kind of hit not counted, as a noun for n of them.
func kindWord(k counter.Kind, n uint64) string {
	w := map[counter.Kind]string{counter.Reload: "reload", counter.Bot: "bot", counter.Prefetch: "prefetch",
		counter.Owner: "owner's", counter.Foreign: "foreign", counter.Ignored: "ignored"}[k]
	if n != 1 && (k == counter.Reload || k == counter.Bot) {
		w += "s"
	} else if n != 1 && k == counter.Prefetch {
		w += "es"
	}
	return w
}

// Geometry of a row's small chart, in SVG user units: a bar a day.
const miniW, miniH, miniBar = 2 * counter.SeriesDays, 20, 1.6

// writeMiniChart draws a counter's views of the last SeriesDays days as
// bars of one path, the figures in its title: small enough for a
// thousand rows.
func writeMiniChart(p *htmlPage, c *store.CounterOverview) {
	var peak, sum uint64
	for _, d := range c.Series {
		peak, sum = max(peak, d.Views), counter.AddCount(sum, d.Views)
	}
	label := plural(sum, "view") + " in the last " + itoa(counter.SeriesDays) + " days, at most " + plural(peak, "view") + " a day"
	// The title names the chart for a screen reader and on hover.
	p.raw(`<svg class="mini" viewBox="0 0 `, itoa(miniW), " ", itoa(miniH), `" preserveAspectRatio="none" role="img"><title>`)
	p.text(label)
	p.raw(`</title><path d="`)
	for i, d := range c.Series {
		if d.Views == 0 || peak == 0 {
			continue
		}
		h := max(1, int(float64(miniH)*float64(d.Views)/float64(peak)+0.5))
		p.raw("M", itoa(2*i), " ", itoa(miniH), "v-", itoa(h), "h", num(miniBar), "v", itoa(h), "z")
	}
	p.raw(`"/></svg>`)
}

package web

import (
	"cmp"
	"slices"
	"strings"

	"hitcounter/counter"
	"hitcounter/store"
)

// writeNotCountedAll writes the hits not counted of every counter added
// up, by kind, with what each kind means.
func writeNotCountedAll(p *htmlPage, rows []store.CounterOverview) {
	var today, last7, last30 counter.Tally
	for i := range rows {
		today, last7, last30 = today.Plus(rows[i].Today), last7.Plus(rows[i].Last7), last30.Plus(rows[i].Last30)
	}
	p.raw("<h2>Hits not counted, every counter</h2>\n<p class=\"sub\">They reached a counter but did not add to it; each counter's page says more.</p>\n")
	p.raw(`<table class="kinds"><thead><tr><th>hit</th><th class="n">today</th><th class="n">7 days</th><th class="n">30 days</th></tr></thead><tbody>`, "\n")
	for _, k := range kindLabels {
		means := k.means
		if k.kind == counter.Reload {
			means = "the same visitor again within the counter's reload window"
		}
		p.raw("<tr><td>", k.name, "<small>")
		p.text(means)
		p.raw("</small></td>")
		for _, t := range [3]counter.Tally{today, last7, last30} {
			p.raw(`<td class="n">`)
			p.text(group(t.NotCounted[k.kind]))
			p.raw("</td>")
		}
		p.raw("</tr>\n")
	}
	p.raw(`<tr class="sum"><td>All not counted</td>`)
	for _, t := range [3]counter.Tally{today, last7, last30} {
		p.raw(`<td class="n">`)
		p.text(group(t.AllNotCounted()))
		p.raw("</td>")
	}
	p.raw("</tr>\n</tbody></table>\n")
}

// writeTopPages writes the most viewed pages of every site.
func writeTopPages(p *htmlPage, pages []store.SitePage) {
	p.raw("<h2>Top pages, every site, last 30 days</h2>\n")
	if len(pages) == 0 {
		p.raw("<p class=\"sub\">No site has a page with views in the last 30 days.</p>\n")
		return
	}
	p.raw(`<table><thead><tr><th>page</th><th>site</th><th class="n">views</th><th class="n">visitors</th></tr></thead><tbody>`, "\n")
	for _, pg := range pages {
		p.raw("<tr><td>")
		p.text(pg.Page.Page)
		p.raw(`</td><td><a href="`)
		p.text(pg.Site)
		p.raw(`/stats">`)
		p.text(pg.Site)
		p.raw(`</a></td><td class="n">`)
		p.text(group(pg.Views))
		p.raw(`</td><td class="n">`)
		p.text(group(pg.Visitors))
		p.raw("</td></tr>\n")
	}
	p.raw("</tbody></table>\n")
}

// writeTopSources writes where readers of every counter came from.
func writeTopSources(p *htmlPage, sources []counter.Referrer, other uint64) {
	p.raw("<h2>Where readers came from, every counter</h2>\n")
	if len(sources) == 0 && other == 0 {
		p.raw("<p class=\"sub\">No views came with the page's own referrer yet: only the script (NAME.js) sees it.</p>\n")
		return
	}
	p.raw("<p class=\"sub\">Since the sources began to be kept; they are not kept by day.</p>\n")
	sourcesTable(p, sources, other)
}

// ownerAllForm offers the owner cookie of every counter at once: this
// browser's hits then count on none of them, or again on all.
func ownerAllForm(p *htmlPage, counters int) {
	p.raw("<h2>This browser</h2>\n")
	if counters > maxOwnerAll {
		p.raw(`<p class="sub">With more than `, itoa(maxOwnerAll), ` counters, a browser would drop cookies it keeps: mark it on each counter's statistics page.</p>`, "\n")
		return
	}
	p.raw(`<form class="owner" method="post" action="owner"><p>Your own visits: mark this browser as yours on every counter here, and its hits are kept apart as the owner's, not counted.</p>`,
		`<span><button type="submit" name="count" value="no">Don’t count this browser</button> `,
		`<button type="submit" name="count" value="yes">Count it again</button></span></form>`, "\n")
}

// slicesSortInfo sorts counters by name.
func slicesSortInfo(list []counter.Info) {
	slices.SortFunc(list, func(a, b counter.Info) int { return strings.Compare(a.Name, b.Name) })
}

// slicesSortKinds orders kinds by their figure in t, most first.
func slicesSortKinds(kinds []counter.Kind, t counter.Tally) {
	slices.SortStableFunc(kinds, func(a, b counter.Kind) int { return cmp.Compare(t.NotCounted[b], t.NotCounted[a]) })
}

package web

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// topPages is how many pages a site's statistics list; the export has
// them all.
const topPages = 100

// periods are the spans a site's table of pages can add up, in days; 0 is
// all time. The first is the default.
var periods = [...]int{30, 7, 90, 0}

// siteView is what a site's statistics show besides a counter's: its top
// pages over a period, or one page's own history.
type siteView struct {
	period    int            // days, 0 for all time
	from      time.Time      // the period's first day, zero for all time
	pages     []counter.Page // the top pages, most viewed first
	allPages  int            // how many rows the period has
	restViews uint64         // the views of the rows not in pages
	page      *counter.History
}

// loadSite reads, within the open db, the site's pages over the period
// r asks for, or the history of the page it asks for.
func (a *App) loadSite(r *http.Request, db *store.DB, h counter.History, since time.Time) (*siteView, error) {
	q := r.URL.Query()
	v := &siteView{period: periods[0]}
	if raw, ok := q["page"]; ok {
		key, err := counter.PageKey(raw[0], h.Settings.Site.KeepQuery)
		if err != nil {
			return nil, &counter.ParamError{Param: "page", Reason: "not a page of this site"}
		}
		ph, err := db.PageHistory(h.Name, key, since)
		if err != nil {
			return nil, err
		}
		ph.Name = h.Name + " " + key
		v.page = &ph
		return v, nil
	}
	if p := q.Get("period"); p != "" {
		n := -1
		for _, d := range periods {
			if p == strconv.Itoa(d) || p == "all" && d == 0 {
				n = d
			}
		}
		if n < 0 {
			return nil, &counter.ParamError{Param: "period", Reason: "must be 7, 30, 90 or all"}
		}
		v.period = n
	}
	if v.period > 0 {
		// Added up once the file is closed (sumPages).
		v.from = a.now().UTC().AddDate(0, 0, 1-v.period)
		return v, nil
	}
	// All time is in the pages' records, a row a page.
	pages, err := db.Pages(h.Name, time.Time{})
	if err != nil {
		return nil, err
	}
	v.rank(pages)
	return v, nil
}

// sumPages adds up the views and visitors of each of the site's pages
// over v's period from their days, read a piece to an open of the file
// as the exports read them: the days of a period are up to 90 for each
// page, and neither the file's map nor the lock is held for all of them
// at once. What it keeps is a row a page.
func (a *App) sumPages(name string, v *siteView) error {
	index := map[string]int{}
	var pages []counter.Page
	after := counter.PageDay{Date: v.from.Format(time.DateOnly)} // before the day's first page
	for {
		piece, err := a.pageDays(name, after)
		if err != nil {
			return err
		}
		for _, d := range piece {
			i, ok := index[d.Page]
			if !ok {
				i = len(pages)
				index[d.Page] = i
				pages = append(pages, counter.Page{Page: d.Page})
			}
			pages[i].Views = addCount(pages[i].Views, d.Views)
			pages[i].Visitors = addCount(pages[i].Visitors, d.Visitors)
		}
		if len(piece) < pageDaysPiece {
			break
		}
		after = piece[len(piece)-1]
	}
	v.rank(pages)
	return nil
}

// addCount adds, stopping at the largest count rather than wrapping, as
// the store adds.
func addCount(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}

// rank keeps the topPages most viewed of pages, and what the rest add up
// to.
func (v *siteView) rank(pages []counter.Page) {
	slices.SortFunc(pages, func(a, b counter.Page) int {
		if c := cmp.Compare(b.Views, a.Views); c != 0 {
			return c
		}
		return cmp.Compare(a.Page, b.Page)
	})
	v.allPages = len(pages)
	if len(pages) > topPages {
		for _, p := range pages[topPages:] {
			v.restViews = addCount(v.restViews, p.Views)
		}
		pages = pages[:topPages]
	}
	v.pages = pages
}

// writePages writes a site's table of pages, with the periods to choose.
func writePages(p *htmlPage, v *siteView) {
	p.raw("<h2>Pages</h2>\n<p class=\"sub periods\">")
	for i, d := range periods {
		if i > 0 {
			p.raw(" · ")
		}
		label, arg := "last "+itoa(d)+" days", itoa(d)
		if d == 0 {
			label, arg = "all time", "all"
		}
		if d == v.period {
			p.raw("<b>", label, "</b>")
		} else {
			p.raw(`<a href="stats?period=`, arg, `">`, label, "</a>")
		}
	}
	p.raw("</p>\n")
	if len(v.pages) == 0 {
		p.raw("<p class=\"sub\">No page has counted a view in this period.</p>\n")
		return
	}
	p.raw(`<table class="pages"><thead><tr><th>page</th><th class="n">views</th><th class="n">visitors</th></tr></thead><tbody>`, "\n")
	for _, pg := range v.pages {
		p.raw("<tr><td>")
		if pg.Page == counter.OtherPages {
			p.text(pg.Page)
			p.raw("<small>new pages past the site’s max-pages")
			if v.period > 0 {
				// Days before today keep their most viewed pages' rows.
				p.raw(", and each past day’s pages past its ", itoa(store.KeptPagesADay), " most viewed")
			}
			p.raw("</small>")
		} else {
			// A page key escaped for a query holds only letters, digits
			// and "%+-._~": safe in the attribute after text's escaping.
			p.raw(`<a href="stats?page=`)
			p.text(url.QueryEscape(pg.Page))
			p.raw(`">`)
			p.text(pg.Page)
			p.raw("</a>")
		}
		p.raw(`</td><td class="n">`)
		p.text(group(pg.Views))
		p.raw(`</td><td class="n">`)
		p.text(group(pg.Visitors))
		p.raw("</td></tr>\n")
	}
	p.raw("</tbody></table>\n")
	if rest := v.allPages - len(v.pages); rest > 0 {
		p.raw(`<p class="sub">and `, itoa(rest), " more pages with ")
		p.text(group(v.restViews))
		p.raw(" views: the exports list them all.</p>\n")
	}
}

// pagePage is the statistics of one page of a site: its figures and chart.
func pagePage(s counter.Stats) *htmlPage {
	p := &htmlPage{}
	p.begin(s.Name + " · statistics")
	p.raw(`<p class="sub"><a href="stats">← all pages</a></p><h1>`)
	p.text(s.Name)
	p.raw(`</h1><p class="sub">Days are UTC; today is `)
	p.text(s.Now.Format(time.DateOnly))
	p.raw(". First counted on ")
	p.text(s.Created.Format(time.DateOnly))
	p.raw(".</p>\n")
	figures(p, "Views", "every hit on this page that counted", false,
		[4]uint64{s.Today.Views, s.Last7.Views, s.Last30.Views, s.Total})
	figures(p, "Unique visitors", "each visitor of this page once a day", false,
		[4]uint64{s.Today.Visitors, s.Last7.Visitors, s.Last30.Visitors, s.Visitors})
	p.raw("<h2>Views and visitors per day, last ", itoa(counter.ChartDays), " days</h2>\n")
	p.raw(`<p class="legend"><span class="key views"></span>views <span class="key visitors"></span>visitors</p>`, "\n")
	writeChart(p, s.Chart)
	p.raw(`<p class="sub">Hits not counted and referring sites are kept for the whole site.</p>`, "\n")
	p.end()
	return p
}

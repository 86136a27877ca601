package imports

import (
	"time"

	"hitcounter/counter"
)

// pageDays adds up a site's views and visitors by page and UTC day, as an
// access log or GoatCounter's export gives them, a view at a time. It
// keeps each page's key once, and its days in a pageRun, a few bytes
// each.
type pageDays struct {
	number map[string]uint32 // the number of each page
	pages  []string          // the pages by number
	run    pageRun
}

func newPageDays() *pageDays {
	return &pageDays{number: map[string]uint32{}, run: pageRun{sum: true}}
}

// known reports whether page has a day yet.
func (p *pageDays) known(page string) bool {
	_, ok := p.number[page]
	return ok
}

// add counts a view of page at time at, and a visitor when visitor is
// set; it refuses a page's day past MaxPageDays.
func (p *pageDays) add(at time.Time, page string, visitor bool) error {
	var visitors uint64
	if visitor {
		visitors = 1
	}
	return p.addCounts(at, page, 1, visitors)
}

// addCounts counts views and visitors of page at time at.
func (p *pageDays) addCounts(at time.Time, page string, views, visitors uint64) error {
	return p.addNumbered(at, p.numberOf(page), views, visitors)
}

// numberOf returns the number of page, giving it one if it has none.
func (p *pageDays) numberOf(page string) uint32 {
	n, ok := p.number[page]
	if !ok {
		n = uint32(len(p.pages))
		p.number[page] = n
		p.pages = append(p.pages, page)
	}
	return n
}

// addNumbered counts views and visitors of page number n at time at. It
// refuses more than MaxPageDays page days when it next merges them
// (flush does at once).
func (p *pageDays) addNumbered(at time.Time, n uint32, views, visitors uint64) error {
	sec := at.Unix()
	day := sec / 86400
	if sec < 0 && sec%86400 != 0 {
		day-- // a day before 1970 starts below its second
	}
	return p.run.add(pageRow{day: int32(day), page: n, views: views, visitors: visitors})
}

// flush merges the page days added, refusing more than MaxPageDays.
func (p *pageDays) flush() error { return p.run.merge() }

// list returns the pages' days, by date then page; flush first, or an
// error of its last merge is lost.
func (p *pageDays) list() counter.PageRows {
	rows, _ := p.run.rows(p.pages)
	return rows
}

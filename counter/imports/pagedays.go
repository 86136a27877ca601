package imports

import (
	"fmt"
	"time"

	"hitcounter/counter"
)

// pageDays adds up a site's views and visitors by page and UTC day, as an
// access log or GoatCounter's export gives them, a view at a time. It
// keeps each page's key once and each page's day as a map entry of a
// number and two counts, some 30 to 60 bytes: MaxPageDays of them take
// about 60 MB, where a map of date and page strings took 250.
type pageDays struct {
	number map[string]uint32 // the number of each page
	pages  []string          // the pages by number
	counts map[uint64]pageCount
}

// pageCount is what one page got on one day.
type pageCount struct{ views, visitors uint64 }

// pageDayKey is the key of page number n on a day, counted in days from
// 1970-01-01 (before it, below 0).
func pageDayKey(day int64, n uint32) uint64 {
	return uint64(uint32(int32(day)))<<32 | uint64(n)
}

func newPageDays() *pageDays {
	return &pageDays{number: map[string]uint32{}, counts: map[uint64]pageCount{}}
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

// addNumbered counts views and visitors of page number n at time at.
func (p *pageDays) addNumbered(at time.Time, n uint32, views, visitors uint64) error {
	sec := at.Unix()
	day := sec / 86400
	if sec < 0 && sec%86400 != 0 {
		day-- // a day before 1970 starts below its second
	}
	k := pageDayKey(day, n)
	c, ok := p.counts[k]
	if !ok && len(p.counts) >= MaxPageDays {
		return fmt.Errorf("more than %d days of pages", MaxPageDays)
	}
	c.views += views
	c.visitors += visitors
	p.counts[k] = c
	return nil
}

// list returns the pages' days, by date then page.
func (p *pageDays) list() []counter.PageDay {
	if len(p.counts) == 0 {
		return nil
	}
	dates := map[int32]string{}
	days := make([]counter.PageDay, 0, len(p.counts))
	for k, c := range p.counts {
		day := int32(k >> 32)
		date, ok := dates[day]
		if !ok {
			date = time.Unix(int64(day)*86400, 0).UTC().Format(time.DateOnly)
			dates[day] = date
		}
		days = append(days, counter.PageDay{Date: date, Page: p.pages[uint32(k)], Views: c.views, Visitors: c.visitors})
	}
	sortPageDays(days)
	return days
}

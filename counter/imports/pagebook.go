package imports

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"hitcounter/counter"
)

// pageBook gathers a site's page days as an export gives them, a line
// each, refusing a page's day given twice and more than MaxPageDays. It
// keeps each page once and each day in a pageRun, a few bytes each, and
// finds a day given twice as the run merges them. With a cap, the pages
// past the site's room count under counter.OtherPages, added up.
type pageBook struct {
	cap    *PageCap // nil for none
	number map[string]uint32
	pages  []string
	run    pageRun
	rows   int
	// The date of the line before, and its day.
	date string
	day  int32
}

func (b *pageBook) add(d counter.PageDay, line int) error {
	switch {
	case d.Date == "":
		return &counter.ImportError{Line: line, Reason: "a page's day without a date"}
	case d.Page == "":
		return &counter.ImportError{Line: line, Reason: "a page's day without a page"}
	case len(d.Page) > counter.MaxPageLen:
		return &counter.ImportError{Line: line, Reason: fmt.Sprintf("a page longer than %d bytes", counter.MaxPageLen)}
	case !isPage(d.Page):
		return &counter.ImportError{Line: line, Reason: "the page is no page's path, such as /posts/hello", Quote: counter.Excerpt(d.Page)}
	case b.rows >= MaxPageDays:
		return &counter.ImportError{Line: line, Reason: fmt.Sprintf("more than %d days of pages", MaxPageDays)}
	}
	b.rows++
	if d.Date != b.date {
		t, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			return &counter.ImportError{Line: line, Reason: notADay, Quote: counter.Excerpt(d.Date)}
		}
		b.date, b.day = strings.Clone(d.Date), int32(t.Unix()/86400)
	}
	row := pageRow{day: b.day, line: int32(min(line, 1<<31-1)), views: d.Views, visitors: d.Visitors}
	page := d.Page
	if b.cap != nil {
		if page = b.cap.page(d.Page); page != d.Page {
			row.line = 0 // folded: added up with the others
		}
	}
	n, ok := b.number[page]
	if !ok {
		if b.number == nil {
			b.number = map[string]uint32{}
		}
		page = strings.Clone(page)
		n = uint32(len(b.pages))
		b.number[page] = n
		b.pages = append(b.pages, page)
		b.run.pages = b.pages // to name a day given twice
	}
	row.page = n
	return b.run.add(row)
}

// isPage reports whether a site can key page, as the import does: the
// refusal names its line here rather than comes from the store.
func isPage(page string) bool {
	_, err := counter.PageKey(page, nil)
	return err == nil || page == counter.OtherPages
}

// sorted returns the days by date then page, or refuses the first page's
// day given again in the file.
func (b *pageBook) sorted() (counter.PageRows, error) {
	return b.run.rows(b.pages)
}

// sortPageDays sorts page days made without lines by date then page.
func sortPageDays(days []counter.PageDay) {
	// sort.Slice shares its code with every other sort of the binary.
	sort.Slice(days, func(i, j int) bool {
		x, y := days[i], days[j]
		return x.Date < y.Date || x.Date == y.Date && x.Page < y.Page
	})
}

package imports

import (
	"fmt"
	"sort"
	"strings"

	"hitcounter/counter"
)

// maxInterned bounds the dates and pages a pageBook keeps one copy of:
// past it, each day keeps its own.
const maxInterned = 1 << 16

// pageBook gathers a site's page days as an export gives them, a line
// each, refusing a page's day given twice and more than MaxPageDays. It
// keeps each date and page once, however many days name them (a CSV
// record's fields would each hold the whole record), and finds a day
// given twice by sorting rather than with a map of every day: some 55
// bytes a page day, where the map and the strings took three times that.
type pageBook struct {
	days     []counter.PageDay
	lines    []int32 // the line of each day
	interned map[string]string
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
	case len(b.days) >= MaxPageDays:
		return &counter.ImportError{Line: line, Reason: fmt.Sprintf("more than %d days of pages", MaxPageDays)}
	}
	d.Date, d.Page = b.intern(d.Date), b.intern(d.Page)
	b.days = append(b.days, d)
	b.lines = append(b.lines, int32(min(line, 1<<31-1)))
	return nil
}

// intern returns the copy of s that the book keeps.
func (b *pageBook) intern(s string) string {
	if t, ok := b.interned[s]; ok {
		return t
	}
	s = strings.Clone(s)
	if b.interned == nil {
		b.interned = map[string]string{}
	}
	if len(b.interned) < maxInterned {
		b.interned[s] = s
	}
	return s
}

// isPage reports whether a site can key page, as the import does: the
// refusal names its line here rather than comes from the store.
func isPage(page string) bool {
	_, err := counter.PageKey(page, nil)
	return err == nil || page == counter.OtherPages
}

// sorted returns the days by date then page, or refuses the first page's
// day given again in the file.
func (b *pageBook) sorted() ([]counter.PageDay, error) {
	b.interned = nil
	sort.Sort(byDatePageLine{b})
	var twice *counter.ImportError
	for i := 0; i < len(b.days); {
		j := i + 1
		for j < len(b.days) && sameDay(b.days[i], b.days[j]) {
			j++
		}
		// A run of one day, its lines in order: the second is the first
		// given again.
		if line := int(b.lines[i]); j-i > 1 && (twice == nil || int(b.lines[i+1]) < twice.Line) {
			d := b.days[i]
			twice = &counter.ImportError{Line: int(b.lines[i+1]), Reason: fmt.Sprintf("a page's day given twice, first on line %d", line), Quote: counter.Excerpt(d.Page) + " on " + d.Date}
		}
		i = j
	}
	if twice != nil {
		return nil, twice
	}
	return b.days, nil
}

func sameDay(x, y counter.PageDay) bool { return x.Date == y.Date && x.Page == y.Page }

// byDatePageLine sorts a pageBook by date, page and line.
type byDatePageLine struct{ b *pageBook }

func (s byDatePageLine) Len() int { return len(s.b.days) }

func (s byDatePageLine) Less(i, j int) bool {
	x, y := s.b.days[i], s.b.days[j]
	if x.Date != y.Date {
		return x.Date < y.Date
	}
	if x.Page != y.Page {
		return x.Page < y.Page
	}
	return s.b.lines[i] < s.b.lines[j]
}

func (s byDatePageLine) Swap(i, j int) {
	s.b.days[i], s.b.days[j] = s.b.days[j], s.b.days[i]
	s.b.lines[i], s.b.lines[j] = s.b.lines[j], s.b.lines[i]
}

// sortPageDays sorts page days made without lines by date then page.
func sortPageDays(days []counter.PageDay) {
	// sort.Slice shares its code with every other sort of the binary.
	sort.Slice(days, func(i, j int) bool {
		x, y := days[i], days[j]
		return x.Date < y.Date || x.Date == y.Date && x.Page < y.Page
	})
}

package imports

import (
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"hitcounter/counter"
)

// pageRun keeps a history's page days as a reader gathers them, in a few
// bytes each: the rows met lately as they came, in a short list, and the
// others merged, by day and page number, into one run of varints (the
// day and page as steps from the row before, then the counts), where a
// map and a PageDay a row took many times the memory (the import's
// peak is in deploy/bench/RESULTS.md).
//
// Rows of one page's day add up when sum is set; otherwise a day given
// twice is refused, unless one of the two has no line (a row that a
// PageCap folded: those add up).
type pageRun struct {
	sum   bool
	run   []byte
	n     int              // the rows in run
	fresh []pageRow        // not merged yet
	at    map[uint64]int32 // of each fresh row, when sum is set
	twice *counter.ImportError
	pages []string
}

// pageRow is one page's day.
type pageRow struct {
	day             int32 // since 1970-01-01
	page            uint32
	line            int32 // 0 for none
	views, visitors uint64
}

// freshRows is how many rows wait for a merge, at most: a merge reads
// the whole run, so they are many, yet small beside the run.
const freshRows = 1 << 15

func (r pageRow) key() uint64 { return uint64(uint32(r.day)^1<<31)<<32 | uint64(r.page) }

// add keeps a row.
func (p *pageRun) add(row pageRow) error {
	if p.sum {
		if p.at == nil {
			p.at = make(map[uint64]int32, freshRows)
		}
		if i, ok := p.at[row.key()]; ok {
			f := &p.fresh[i]
			f.views, f.visitors = counter.AddCount(f.views, row.views), counter.AddCount(f.visitors, row.visitors)
			return nil
		}
		p.at[row.key()] = int32(len(p.fresh))
	}
	p.fresh = append(p.fresh, row)
	if len(p.fresh) >= freshRows {
		return p.merge()
	}
	return nil
}

// merge merges the fresh rows into the run.
func (p *pageRun) merge() error {
	if len(p.fresh) == 0 {
		return nil
	}
	fresh := p.fresh
	sort.Slice(fresh, func(i, j int) bool {
		a, b := fresh[i].key(), fresh[j].key()
		return a < b || a == b && fresh[i].line < fresh[j].line
	})
	out := make([]byte, 0, len(p.run)+len(fresh)*8)
	var w runWriter
	var r runReader
	r.b = p.run
	old, haveOld := r.next(!p.sum)
	var last pageRow
	haveLast := false
	emit := func(row pageRow) {
		if haveLast && last.key() == row.key() {
			p.joined(&last, row)
			return
		}
		if haveLast {
			out = w.write(out, last, !p.sum)
		}
		last, haveLast = row, true
	}
	for _, f := range fresh {
		for haveOld && old.key() <= f.key() {
			emit(old)
			old, haveOld = r.next(!p.sum)
		}
		emit(f)
	}
	for haveOld {
		emit(old)
		old, haveOld = r.next(!p.sum)
	}
	if haveLast {
		out = w.write(out, last, !p.sum)
	}
	p.run, p.n = out, w.n
	p.fresh = p.fresh[:0]
	clear(p.at)
	if p.n > MaxPageDays {
		return fmt.Errorf("more than %d days of pages", MaxPageDays)
	}
	return nil
}

// joined makes last, a page's day, also what row brings to it: the two
// added up, or, of two rows of the file that give the same page's day,
// the first kept and the second refused at the end.
func (p *pageRun) joined(last *pageRow, row pageRow) {
	if p.sum || last.line == 0 || row.line == 0 {
		last.views, last.visitors = counter.AddCount(last.views, row.views), counter.AddCount(last.visitors, row.visitors)
		last.line = max(last.line, row.line)
		return
	}
	first, second := min(last.line, row.line), max(last.line, row.line)
	if p.twice == nil || int(second) < p.twice.Line {
		p.twice = &counter.ImportError{Line: int(second), Reason: fmt.Sprintf("a page's day given twice, first on line %d", first),
			Quote: counter.Excerpt(p.pages[row.page]) + " on " + dayDate(row.day)}
	}
	last.line = first
}

// rows merges what is fresh and returns the rows, for counter.Imported;
// pages are the pages by number.
func (p *pageRun) rows(pages []string) (counter.PageRows, error) {
	p.pages = pages
	if err := p.merge(); err != nil {
		return nil, err
	}
	p.fresh, p.at = nil, nil
	if p.twice != nil {
		return nil, p.twice
	}
	if p.n == 0 {
		return nil, nil
	}
	return &runRows{run: p.run, n: p.n, lines: !p.sum, pages: pages}, nil
}

// dayDate is the date of a day counted from 1970-01-01.
func dayDate(day int32) string {
	return time.Unix(int64(day)*86400, 0).UTC().Format(time.DateOnly)
}

// runWriter writes rows into a run, each as steps from the one before.
type runWriter struct {
	day  int32
	page uint32
	n    int
}

func (w *runWriter) write(b []byte, row pageRow, lines bool) []byte {
	b = binary.AppendVarint(b, int64(row.day)-int64(w.day))
	if row.day != w.day || w.n == 0 {
		b = binary.AppendUvarint(b, uint64(row.page))
	} else {
		b = binary.AppendUvarint(b, uint64(row.page-w.page))
	}
	b = binary.AppendUvarint(b, row.views)
	b = binary.AppendUvarint(b, row.visitors)
	if lines {
		b = binary.AppendUvarint(b, uint64(row.line))
	}
	w.day, w.page = row.day, row.page
	w.n++
	return b
}

// runReader reads the rows of a run that a runWriter wrote.
type runReader struct {
	b    []byte
	day  int32
	page uint32
	n    int
}

func (r *runReader) next(lines bool) (pageRow, bool) {
	if len(r.b) == 0 {
		return pageRow{}, false
	}
	uv := func() uint64 {
		v, k := binary.Uvarint(r.b)
		r.b = r.b[k:]
		return v
	}
	d, k := binary.Varint(r.b)
	r.b = r.b[k:]
	row := pageRow{day: int32(int64(r.day) + d)}
	if row.day != r.day || r.n == 0 {
		row.page = uint32(uv())
	} else {
		row.page = r.page + uint32(uv())
	}
	row.views, row.visitors = uv(), uv()
	if lines {
		row.line = int32(uv())
	}
	r.day, r.page = row.day, row.page
	r.n++
	return row, true
}

// runRows are the rows of a run as counter.PageRows gives them: by date,
// then page, each day's read and sorted by page when its first is asked
// for (a day holds at most the pages the site has room for).
type runRows struct {
	run   []byte
	n     int
	lines bool
	pages []string
}

func (rr *runRows) Len() int { return rr.n }

func (rr *runRows) Open() func(n int) []counter.PageDay {
	r := runReader{b: rr.run}
	var day []counter.PageDay // the rest of the day being read
	pending, havePending := pageRow{}, false
	return func(n int) []counter.PageDay {
		var out []counter.PageDay
		for len(out) < n {
			if len(day) == 0 {
				day = nil
				if !havePending {
					pending, havePending = r.next(rr.lines)
				}
				if !havePending {
					break
				}
				date := dayDate(pending.day)
				for d := pending.day; havePending && pending.day == d; pending, havePending = r.next(rr.lines) {
					day = append(day, counter.PageDay{Date: date, Page: rr.pages[pending.page], Views: pending.views, Visitors: pending.visitors})
				}
				sortPageDays(day)
			}
			k := min(n-len(out), len(day))
			out = append(out, day[:k]...)
			day = day[k:]
		}
		return out
	}
}

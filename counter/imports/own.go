package imports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"time"

	"hitcounter/counter"
)

// Bounds of what one exported history may hold, so that a file made to
// exhaust the Pi's memory is refused as it is read: a hundred years of
// days, and a million days of pages (a pageRun keeps them in some 8 MB).
const (
	MaxDays     = 36600
	MaxPageDays = 1_000_000
)

// exportColumns are the figures of a day in this counter's exports, as
// its CSV header and JSON keys name them, after the date: views, visitors,
// views via GitHub, then the hits not counted by kind.
func exportColumns() []string {
	cols := []string{counter.View.String(), "visitors", counter.GitHub.String()}
	for _, k := range counter.NotCountedKinds {
		cols = append(cols, k.String())
	}
	return cols
}

// setColumn sets the figure of t that column col names.
func setColumn(t *counter.Tally, col int, n uint64) {
	switch col {
	case 0:
		t.Views = n
	case 1:
		t.Visitors = n
	case 2:
		t.GitHub = n
	default:
		t.NotCounted[counter.NotCountedKinds[col-3]] = n
	}
}

// OwnJSON reads this counter's stats.json export, whose days must lie
// between FirstDay and tomorrow.
func OwnJSON(r io.Reader) (counter.Imported, error) { return ownJSON(r, nil, time.Now()) }

// OwnJSONCapped is OwnJSON with the pages the site it goes into has no
// room for under counter.OtherPages, as PageCap says: capFor gives the
// cap of the counter the file names, nil for none. Page days before the
// name in the file are not capped (this counter's exports name it
// first).
func OwnJSONCapped(r io.Reader, capFor func(name string) (*PageCap, error)) (counter.Imported, error) {
	return ownJSON(r, capFor, time.Now())
}

// ownJSON is OwnJSONCapped with its clock; a nil capFor caps nothing.
func ownJSON(r io.Reader, capFor func(name string) (*PageCap, error), now time.Time) (counter.Imported, error) {
	var imp counter.Imported
	j := newJSONReader(skipBOM(r))
	cols := exportColumns()
	var days dayBook
	var pages pageBook
	err := j.object(func(key string) error {
		var err error
		switch key {
		case "name":
			if imp.Name, err = j.str(); err == nil && counter.CheckName(imp.Name) != nil {
				err = j.failQuoting(imp.Name, "the name is not a counter name")
			}
			if err == nil && capFor != nil && pages.rows == 0 {
				pages.cap, err = capFor(imp.Name)
			}
		case "show":
			var show string
			if show, err = j.str(); err == nil {
				imp.Show, imp.HasShow = counter.ShowViews, true
				switch show {
				case counter.ShowVisitors.String():
					imp.Show = counter.ShowVisitors
				case counter.ShowViews.String():
				default:
					err = j.failQuoting(show, "show is not views or visitors")
				}
			}
		case "total":
			imp.Total, err = j.count("total")
			imp.HasTotal = true
		case "visitors":
			imp.Visitors, err = j.count("visitors")
			imp.HasVisitors = true
		case "created":
			imp.Created, err = j.time("created", now)
		case "tallied_since":
			imp.TalliedSince, err = j.time("tallied_since", now)
		case "days":
			err = j.array(func() error {
				var d counter.Day
				line := j.nextLine()
				err := j.object(func(key string) error {
					if key == "date" {
						var err error
						d.Date, err = j.date(now)
						return err
					}
					if col := slices.Index(cols, key); col >= 0 {
						n, err := j.count(key)
						setColumn(&d.Tally, col, n)
						return err
					}
					return j.skip()
				})
				if err != nil {
					return err
				}
				return days.add(d, line)
			})
		case "referrers":
			seen := map[string]int{} // the line of each host
			err = j.array(func() error {
				var ref counter.Referrer
				line := j.nextLine()
				err := j.object(func(key string) error {
					var err error
					switch key {
					case "host":
						ref.Host, err = j.str()
					case "views":
						ref.Hits, err = j.count("views")
					default:
						err = j.skip()
					}
					return err
				})
				if err == nil && ref.Host == "" {
					err = &counter.ImportError{Line: line, Reason: "a referrer without a host"}
				}
				if err == nil && len(imp.Referrers) >= counter.MaxReferrers+1 {
					err = &counter.ImportError{Line: line, Reason: fmt.Sprintf("more than %d referring hosts", counter.MaxReferrers+1)}
				}
				if first, ok := seen[ref.Host]; ok && err == nil {
					err = &counter.ImportError{Line: line, Reason: fmt.Sprintf("a referring host given twice, first on line %d", first), Quote: counter.Excerpt(ref.Host)}
				}
				seen[ref.Host] = line
				imp.Referrers = append(imp.Referrers, ref)
				return err
			})
		case "sources":
			seen := map[string]int{} // the line of each source
			err = j.array(func() error {
				var src counter.Referrer
				line := j.nextLine()
				err := j.object(func(key string) error {
					var err error
					switch key {
					case "source":
						src.Host, err = j.str()
					case "views":
						src.Hits, err = j.count("views")
					default:
						err = j.skip()
					}
					return err
				})
				if err == nil {
					err = checkSource(src.Host, line, seen, len(imp.Sources))
				}
				imp.Sources = append(imp.Sources, src)
				return err
			})
		case "page_days":
			err = j.array(func() error {
				var d counter.PageDay
				line := j.nextLine()
				err := j.object(func(key string) error {
					var err error
					switch key {
					case "date":
						d.Date, err = j.date(now)
					case "page":
						d.Page, err = j.str()
					case "views":
						d.Views, err = j.count("views")
					case "visitors":
						d.Visitors, err = j.count("visitors")
					default:
						err = j.skip()
					}
					return err
				})
				if err != nil {
					return err
				}
				return pages.add(d, line)
			})
		default:
			err = j.skip()
		}
		return err
	})
	if err == nil {
		err = j.end()
	}
	if err != nil {
		return counter.Imported{}, err
	}
	if imp.Name == "" {
		return counter.Imported{}, &counter.ImportError{Reason: "the file names no counter: is it a stats.json export?"}
	}
	imp.Days = days.sorted()
	if imp.PageRows, err = pages.sorted(); err != nil {
		return counter.Imported{}, err
	}
	return imp, nil
}

// time reads a time in RFC 3339, or null as the zero time; one on a day
// checkDay refuses as of now is refused.
func (j *jsonReader) time(what string, now time.Time) (time.Time, error) {
	s, err := j.optionalStr()
	if err != nil || s == "" {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, j.failQuoting(s, "%s is not a time like 2026-01-02T15:04:05Z", what)
	}
	if ie := checkTime(t, now); ie != nil {
		return t, j.failQuoting(s, "%s: %s", what, ie.Reason)
	}
	return t.UTC(), nil
}

// date reads a day as 2006-01-02, refusing one checkDay refuses as of
// now.
func (j *jsonReader) date(now time.Time) (string, error) {
	s, err := j.str()
	if err != nil {
		return "", err
	}
	if !isDate(s) {
		return "", j.failQuoting(s, notADay)
	}
	if ie := checkDay(s, now); ie != nil {
		return "", j.failQuoting(s, "%s", ie.Reason)
	}
	return s, nil
}

// notADay says what a date must be.
const notADay = "the date is not a day like 2026-01-02"

// isDate reports whether s is a real day written as 2006-01-02.
func isDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s
}

// OwnCSV reads this counter's stats.csv export: a header naming its
// columns, then a day a line; a site's has a page column, empty on the
// lines of the whole site. Columns are found by their names, so that an
// export of an older version, with fewer, reads too. Its days must lie
// between FirstDay and tomorrow.
func OwnCSV(r io.Reader) (counter.Imported, error) { return ownCSV(r, time.Now()) }

// OwnCSVCapped is OwnCSV with the pages the site it goes into has no room
// for under counter.OtherPages, as pages says: taking the room in the
// order of the lines (by date then page, as this counter writes them,
// which is the order the store makes them in).
func OwnCSVCapped(r io.Reader, pages *PageCap) (counter.Imported, error) {
	return ownCSVCapped(r, pages, time.Now())
}

// ownCSV is OwnCSV with its clock.
func ownCSV(r io.Reader, now time.Time) (counter.Imported, error) {
	return ownCSVCapped(r, nil, now)
}

// ownCSVCapped is OwnCSVCapped with its clock; a nil pc caps nothing.
func ownCSVCapped(r io.Reader, pc *PageCap, now time.Time) (counter.Imported, error) {
	var imp counter.Imported
	cr := newCSVReader(r)
	cr.cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return imp, csvError(err)
	}
	header = slices.Clone(header) // the records that follow reuse its memory
	cols := exportColumns()
	at := make([]int, len(header)) // the export column of each field, or -1
	date, page, source := -1, -1, -1
	for i, h := range header {
		at[i] = slices.Index(cols, h)
		switch h {
		case "date":
			date = i
		case "page":
			page = i
		case "source":
			source = i
		}
	}
	sourceLine := map[string]int{}
	if date < 0 || !slices.Contains(header, cols[0]) {
		return imp, &counter.ImportError{Line: 1, Reason: "the header has no date or no views column: is it a stats.csv export?"}
	}
	var days dayBook
	pages := pageBook{cap: pc}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return imp, err
		}
		line := cr.line()
		if source >= 0 && rec[source] != "" {
			// A source's line: no date, its views, the rest empty.
			views, err := strconv.ParseUint(rec[slices.Index(header, cols[0])], 10, 64)
			if err != nil {
				return imp, &counter.ImportError{Line: line, Reason: "views is " + notACount, Quote: counter.Excerpt(rec[slices.Index(header, cols[0])])}
			}
			if err := checkSource(rec[source], line, sourceLine, len(imp.Sources)); err != nil {
				return imp, err
			}
			imp.Sources = append(imp.Sources, counter.Referrer{Host: rec[source], Hits: views})
			continue
		}
		if !isDate(rec[date]) {
			return imp, &counter.ImportError{Line: line, Reason: notADay, Quote: counter.Excerpt(rec[date])}
		}
		if ie := checkDay(rec[date], now); ie != nil {
			ie.Line = line
			return imp, ie
		}
		var t counter.Tally
		for i, field := range rec {
			if at[i] < 0 || (field == "" && page >= 0 && rec[page] != "") {
				continue // a page's line leaves the columns it does not keep empty
			}
			n, err := strconv.ParseUint(field, 10, 64)
			if err != nil {
				return imp, &counter.ImportError{Line: line, Reason: header[i] + " is " + notACount, Quote: counter.Excerpt(field)}
			}
			setColumn(&t, at[i], n)
		}
		if page >= 0 && rec[page] != "" {
			err = pages.add(counter.PageDay{Date: rec[date], Page: rec[page], Views: t.Views, Visitors: t.Visitors}, line)
		} else {
			err = days.add(counter.Day{Date: rec[date], Tally: t}, line)
		}
		if err != nil {
			return imp, err
		}
	}
	imp.Days = days.sorted()
	if imp.PageRows, err = pages.sorted(); err != nil {
		return counter.Imported{}, err
	}
	return imp, nil
}

// checkSource refuses a source of an export that this counter would not
// have written: one that is no host nor group (counter.SourceKey), one
// given twice (seen has the line of each), or more than the bound (n are
// read before it).
func checkSource(src string, line int, seen map[string]int, n int) error {
	if src != counter.OtherSources && counter.SourceKey(src) != src && counter.SourceKind(src) == "" {
		return &counter.ImportError{Line: line, Reason: "a source that is no host", Quote: counter.Excerpt(src)}
	}
	if n >= counter.MaxSources+1 {
		return &counter.ImportError{Line: line, Reason: fmt.Sprintf("more than %d sources", counter.MaxSources+1)}
	}
	if first, ok := seen[src]; ok {
		return &counter.ImportError{Line: line, Reason: fmt.Sprintf("a source given twice, first on line %d", first), Quote: counter.Excerpt(src)}
	}
	seen[src] = line
	return nil
}

// csvError is the refusal of a CSV file whose header cannot be read.
func csvError(err error) error {
	if err == io.EOF {
		return &counter.ImportError{Reason: "the file is empty"}
	}
	return err
}

// dayBook gathers days, refusing a date given twice and more than
// MaxDays.
type dayBook struct {
	days []counter.Day
	line map[string]int
}

func (b *dayBook) add(d counter.Day, line int) error {
	if d.Date == "" {
		return &counter.ImportError{Line: line, Reason: "a day without a date"}
	}
	if first, ok := b.line[d.Date]; ok {
		return &counter.ImportError{Line: line, Reason: fmt.Sprintf("a day given twice, first on line %d", first), Quote: counter.Excerpt(d.Date)}
	}
	if len(b.days) >= MaxDays {
		return &counter.ImportError{Line: line, Reason: fmt.Sprintf("more than %d days", MaxDays)}
	}
	if b.line == nil {
		b.line = map[string]int{}
	}
	b.line[d.Date] = line
	b.days = append(b.days, d)
	return nil
}

func (b *dayBook) sorted() []counter.Day {
	// sort.Slice shares its code with every other sort of the binary,
	// where slices.SortFunc would add one for this type: every process of
	// the full tool, a page's under CGI too, maps the whole binary.
	sort.Slice(b.days, func(i, j int) bool { return b.days[i].Date < b.days[j].Date })
	return b.days
}

// skipBOM drops a UTF-8 byte-order mark at the start of r, which editors
// on Windows write.
func skipBOM(r io.Reader) io.Reader {
	br, ok := r.(*bomReader)
	if ok {
		return br
	}
	return &bomReader{r: r}
}

type bomReader struct {
	r       io.Reader
	checked bool
	pending []byte
}

func (b *bomReader) Read(p []byte) (int, error) {
	if !b.checked {
		b.checked = true
		var head [3]byte
		n, err := io.ReadFull(b.r, head[:])
		if string(head[:n]) != "\xef\xbb\xbf" {
			b.pending = append(b.pending, head[:n]...)
		}
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return 0, err
		}
	}
	if len(b.pending) > 0 {
		n := copy(p, b.pending)
		b.pending = b.pending[n:]
		return n, nil
	}
	return b.r.Read(p)
}

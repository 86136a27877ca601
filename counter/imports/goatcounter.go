package imports

import (
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"hitcounter/counter"
)

// GoatCounterCSV reads GoatCounter's CSV export, as its documentation
// describes it (https://www.goatcounter.com/code/export): a row a
// pageview, under a header whose first cell carries the format's version
// before "Path" ("2Path"; the documentation writes it "2,Path"). Columns
// are found by their names, so versions 1 and 2 both read.
//
// Each row that is no event is a view of its UTC day and of its page (the
// path as counter.PageKey makes it), or a bot's hit when its Bot column is
// not 0. A page's visitors are its rows marked FirstVisit, which
// GoatCounter sets on a session's first view of a path; the day's visitors
// are its distinct sessions, remembered for the two most recent days, as
// the access logs' are. GoatCounter's referrers say where readers came
// from, not which pages showed a counter, so they are not imported. Its
// times must lie between FirstDay and tomorrow.
func GoatCounterCSV(r io.Reader) (counter.Imported, error) { return goatCounterCSV(r, time.Now()) }

// goatCounterCSV is GoatCounterCSV with its clock.
func goatCounterCSV(r io.Reader, now time.Time) (counter.Imported, error) {
	var imp counter.Imported
	cr := newCSVReader(r)
	cr.cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return imp, csvError(err)
	}
	cols, err := goatColumns(header)
	if err != nil {
		return imp, err
	}
	days := map[string]*counter.Tally{}
	pages := newPageDays()
	sessions := sessionDays{seed: maphash.MakeSeed()}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return imp, err
		}
		line := cr.line()
		fail := func(field, format string, args ...any) error {
			return &counter.ImportError{Line: line, Reason: fmt.Sprintf(format, args...), Quote: field}
		}
		if len(rec) != cols.n {
			return imp, fail("", "%d fields, but the header names %d", len(rec), cols.n)
		}
		event, ok := parseBool(rec[cols.event])
		if !ok {
			return imp, fail(counter.Excerpt(rec[cols.event]), "Event is neither true nor false")
		}
		if event {
			continue // an event is no pageview
		}
		at, err := time.Parse(time.RFC3339, rec[cols.date])
		if err != nil {
			return imp, fail(counter.Excerpt(rec[cols.date]), "Date is not a time like 2026-01-02T15:04:05Z")
		}
		if ie := checkTime(at, now); ie != nil {
			return imp, fail(counter.Excerpt(rec[cols.date]), "Date: %s", ie.Reason)
		}
		bot, err := strconv.ParseUint(rec[cols.bot], 10, 16)
		if err != nil {
			return imp, fail(counter.Excerpt(rec[cols.bot]), "Bot is not a number")
		}
		first, ok := parseBool(rec[cols.firstVisit])
		if !ok {
			return imp, fail(counter.Excerpt(rec[cols.firstVisit]), "FirstVisit is neither true nor false")
		}
		date := at.UTC().Format(time.DateOnly)
		t := days[date]
		if t == nil {
			if len(days) >= MaxDays {
				return imp, fail("", "more than %d days", MaxDays)
			}
			t = &counter.Tally{}
			days[date] = t
		}
		if bot != 0 {
			t.NotCounted[counter.Bot]++
			continue
		}
		t.Views++
		if sessions.isNew(date, rec[cols.session]) {
			t.Visitors++
		}
		page, err := counter.PageKey(rec[cols.path], nil)
		if err != nil {
			continue // a path no page can have: the site's view alone
		}
		if err := pages.add(at, page, first); err != nil {
			return imp, fail("", "%v", err)
		}
	}
	var dayBook dayBook
	for date, t := range days {
		dayBook.add(counter.Day{Date: date, Tally: *t}, 0)
	}
	imp.Days, imp.PageDays = dayBook.sorted(), pages.list()
	return imp, nil
}

// goatCols are where the columns read are in a GoatCounter export.
type goatCols struct {
	n                                           int // fields in a row
	path, event, bot, session, firstVisit, date int
}

// goatColumns finds the columns of a GoatCounter export by the names in
// its header, and checks its version.
func goatColumns(header []string) (goatCols, error) {
	c := goatCols{n: len(header)}
	bad := func(reason string) (goatCols, error) {
		return c, &counter.ImportError{Line: 1, Reason: reason}
	}
	first := header[0]
	version := first[:len(first)-len(strings.TrimLeft(first, "0123456789"))]
	names := append([]string{strings.TrimPrefix(first[len(version):], ",")}, header[1:]...)
	if isDigits(first) && len(header) > 1 {
		// The header written as the documentation shows it: "2,Path" as
		// two cells.
		version, names = first, header[1:]
		c.n--
	}
	if names[0] != "Path" {
		return bad("not GoatCounter's export: its header starts with a version and Path, as 2Path")
	}
	if version != "1" && version != "2" {
		return c, &counter.ImportError{Line: 1, Reason: "GoatCounter's export of a format this does not read (it reads versions 1 and 2)", Quote: counter.Excerpt(version)}
	}
	for _, col := range []struct {
		name string
		at   *int
	}{{"Path", &c.path}, {"Event", &c.event}, {"Bot", &c.bot}, {"Session", &c.session}, {"FirstVisit", &c.firstVisit}, {"Date", &c.date}} {
		i := slices.Index(names, col.name)
		if i < 0 {
			return bad("GoatCounter's export without its " + col.name + " column")
		}
		*col.at = i
	}
	return c, nil
}

// parseBool reads GoatCounter's booleans: true or false, 1 or 0.
func parseBool(s string) (bool, bool) {
	switch s {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// sessionDays tells a session new on a day, keeping the sessions of the
// two most recent days, at most maxVisitorsADay each.
type sessionDays struct {
	seed  maphash.Seed
	dates [2]string
	seen  [2]map[uint64]bool
}

func (s *sessionDays) isNew(date, session string) bool {
	i := 0
	switch {
	case date == s.dates[0]:
	case date == s.dates[1]:
		i = 1
	case date > s.dates[0]:
		s.dates[1], s.seen[1] = s.dates[0], s.seen[0]
		s.dates[0], s.seen[0] = date, map[uint64]bool{}
	default:
		return true // older than the days kept
	}
	key := maphash.String(s.seed, session)
	if s.seen[i][key] {
		return false
	}
	if len(s.seen[i]) < maxVisitorsADay {
		s.seen[i][key] = true
	}
	return true
}

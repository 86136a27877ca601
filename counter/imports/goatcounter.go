package imports

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"hitcounter/counter"
)

// GoatCounter's CSV export, as its source writes it (arp242/goatcounter,
// exportcsv.go, RunCSV, at c957f51c43eb; version 1 in export.go at
// 00123069cb4d): a gzip'd file (the caller unwraps it) whose header's first
// cell is the format's version followed directly by "Path", then a row a
// pageview or event. Version 2 writes
//
//	2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,
//	Referrer scheme,Screen size,Location,FirstVisit,Date
//
// with Event and FirstVisit as the database gives a boolean (0 or 1,
// true or false), Bot always 0 (it stores no bots' hits), Session as two
// hex numbers ("0-0" with sessions off) and Date in RFC 3339. Version 1
// (2020) writes 1Path,Title,Event,Bot,Session,FirstVisit,Referrer,
// Referrer scheme,Browser,Screen size,Location,Date with true and false.
// Columns are found by their names, so both read, and so does the header
// as GoatCounter's help page shows it ("2,Path", two cells).

// GoatCounterCSV reads GoatCounter's CSV export, with or without a BOM,
// its rows in any order.
//
// Each row that is no event and no bot's is a view of its UTC day and of
// its page (the path as counter.PageKey makes it); a bot's row counts as
// a bot. Visitors are counted as GoatCounter counts them (its
// cron/hit_count.go): a row marked FirstVisit, which GoatCounter sets on
// a session's first view of a path, and on every row with sessions off,
// is a visitor of its page, and a day's visitors are its pages' visitors
// added up, as GoatCounter's dashboard adds them for its total. Events
// (a click, say: GoatCounter's path is then the event's name) are no
// page's views: they are left out, and LeftOut says how many. Times must
// lie between FirstDay and tomorrow. The pages that pages has no room
// for count under counter.OtherPages, taking the room in the order of the
// rows; a nil pages is a new site's.
func GoatCounterCSV(r io.Reader, pages *PageCap) (counter.Imported, error) {
	return goatCounterCSV(r, defaultCap(pages), time.Now())
}

// goatCounterCSV is GoatCounterCSV with its clock.
func goatCounterCSV(r io.Reader, pc *PageCap, now time.Time) (counter.Imported, error) {
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
	sources := refBook{}
	var rows, events, noHost uint64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return imp, err
		}
		rows++
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
		at, err := time.Parse(time.RFC3339, rec[cols.date])
		if err != nil {
			return imp, fail(counter.Excerpt(rec[cols.date]), "Date is not a time like 2026-01-02T15:04:05Z")
		}
		if ie := checkTime(at, now); ie != nil {
			return imp, fail(counter.Excerpt(rec[cols.date]), "Date: %s", ie.Reason)
		}
		if event {
			events++
			continue
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
		if first {
			t.Visitors++
		}
		if cols.ref >= 0 {
			src, named := goatSource(rec[cols.ref], cols.scheme, rec)
			sources.add(src, 1)
			if src == "" && named {
				noHost++
			}
		}
		page, err := counter.PageKey(rec[cols.path], nil)
		if err != nil {
			continue // a path no page can have: the site's view alone
		}
		if err := pages.add(at, pc.page(page), first); err != nil {
			return imp, fail("", "%v", err)
		}
	}
	if rows == 0 {
		return imp, &counter.ImportError{Line: 1, Reason: goatHeaderOnly}
	}
	imp.Sources = sources.list()
	if noHost > 0 {
		imp.LeftOut = append(imp.LeftOut, fmt.Sprintf("%d views' referrers that name no host or group kept here (GoatCounter's campaigns, and its groups such as Email or RSS)", noHost))
	}
	return goatDone(imp, days, pages, events, "events")
}

// goatDone gives imp the days and page rows a GoatCounter export added up
// to, and says how many of what (its rows or their visitors) were events,
// which it leaves out.
func goatDone(imp counter.Imported, days map[string]*counter.Tally, pages *pageDays, events uint64, what string) (counter.Imported, error) {
	var dayBook dayBook
	for date, t := range days {
		dayBook.add(counter.Day{Date: date, Tally: *t}, 0)
	}
	if err := pages.flush(); err != nil {
		return imp, &counter.ImportError{Reason: err.Error()}
	}
	imp.Days, imp.PageRows = dayBook.sorted(), pages.list()
	if events > 0 {
		imp.LeftOut = append(imp.LeftOut, fmt.Sprintf("%d %s (GoatCounter's events name no page: no view counts them)", events, what))
	}
	return imp, nil
}

// goatHeaderOnly explains an export with no rows: GoatCounter writes a
// row only for the pageviews it stored one by one, and it stores them
// only with a setting that is off by default (settings.go, CollectHits).
const goatHeaderOnly = "GoatCounter's CSV export with a header and no rows: GoatCounter " +
	"puts pageviews in it only while its setting Settings > Data collection > " +
	"\"Individual pageviews\" is on, and that is off by default; " +
	"import its ZIP export instead (Settings > Export, the JSON/ZIP one), which holds the counts"

// goatCols are where the columns read are in a GoatCounter export.
type goatCols struct {
	n                                  int // fields in a row
	path, event, bot, firstVisit, date int
	ref, scheme                        int // Referrer and Referrer scheme, -1 when absent
}

// goatSource is the source (counter.SourceKey) of a view that came with
// GoatCounter's Referrer ref, the page's own document.referrer as its
// count.js sends it, as GoatCounter keeps it (ref.go, cleanRefURL, at
// 00123069cb4d): of scheme h, the URL without its scheme ("host/path"),
// whose host is the source; of scheme g, a group's name ("Google",
// "Hacker News"), a source when this counter has the group. Any other
// (c, a campaign's name; o, an app's id) is none. named says the view
// had a referrer.
func goatSource(ref string, scheme int, rec []string) (src string, named bool) {
	if ref == "" {
		return "", false
	}
	s := "h"
	if scheme >= 0 {
		s = rec[scheme]
	}
	switch s {
	case "h", "":
		host := ref
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		return counter.SourceKey(host), true
	case "g":
		if counter.SourceKind(ref) != "" {
			return ref, true
		}
	}
	return "", true
}

// goatColumns finds the columns of a GoatCounter export by the names in
// its header, and checks its version.
func goatColumns(header []string) (goatCols, error) {
	c := goatCols{n: len(header), ref: -1, scheme: -1}
	bad := func(reason string) (goatCols, error) {
		return c, &counter.ImportError{Line: 1, Reason: reason}
	}
	first := header[0]
	version := first[:len(first)-len(strings.TrimLeft(first, "0123456789"))]
	names := append([]string{first[len(version):]}, header[1:]...)
	if isDigits(first) && len(header) > 1 {
		// The header written as GoatCounter's help page shows it:
		// "2,Path" as two cells.
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
	}{{"Path", &c.path}, {"Event", &c.event}, {"Bot", &c.bot}, {"FirstVisit", &c.firstVisit}, {"Date", &c.date}} {
		i := slices.Index(names, col.name)
		if i < 0 {
			return bad("GoatCounter's export without its " + col.name + " column")
		}
		*col.at = i
	}
	c.ref, c.scheme = slices.Index(names, "Referrer"), slices.Index(names, "Referrer scheme")
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

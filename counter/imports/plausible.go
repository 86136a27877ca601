package imports

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"hitcounter/counter"
)

// Plausible's CSV export, as its source writes it (plausible/analytics,
// lib/plausible/exports.ex at 06eb5d3b8924: export_queries names the
// files imported_visitors_FIRST_LAST.csv and so on, stream_archive puts
// them in a ZIP as ClickHouse writes a query's answer in CSVWithNames:
// a header of the columns' names, then a row a day, or a day and page).
// This reads three of them, by their columns' names:
//
//	imported_visitors  date, visitors, pageviews, bounces, visits, visit_duration
//	imported_pages     date, hostname, page, visits, visitors, pageviews, ...
//	imported_sources   date, source, referrer, utm_..., pageviews, visitors, visits, ...
//
// Dates are days in the site's time zone, taken here as they are.

// PlausibleZIP reads Plausible's CSV export: a day's views and visitors
// are imported_visitors' pageviews and visitors (its visitors are
// distinct, as they are here), and each page's day is imported_pages'
// (pages as counter.PageKey makes them), its hostname the page's host,
// which a live hit records as its referrer. Its sources are
// imported_sources' (plausibleSource), each with its visits: a live
// source counts the view that came in, as Plausible's visit is a
// session that came in, not the pages read after it. Entry and exit pages,
// custom events, locations, devices, browsers and systems are left out:
// a counter here does not keep them. The pages that pages has no room
// for count under counter.OtherPages, taking the room in the order of
// the rows (by day, as Plausible writes them); a nil pages is a new
// site's.
func PlausibleZIP(r io.ReaderAt, size int64, pages *PageCap) (counter.Imported, error) {
	return plausibleZIP(r, size, defaultCap(pages), time.Now())
}

// plausibleKind is the kind of file of Plausible's export that a file of
// the ZIP is, "" for one not read.
func plausibleKind(name string) string {
	base := path.Base(name)
	for _, kind := range []string{"imported_visitors", "imported_pages", "imported_sources"} {
		if strings.HasPrefix(base, kind) && strings.HasSuffix(base, ".csv") {
			return kind
		}
	}
	return ""
}

func plausibleZIP(r io.ReaderAt, size int64, pc *PageCap, now time.Time) (counter.Imported, error) {
	var imp counter.Imported
	entries, err := readZIP(r, size, func(name string) bool { return plausibleKind(name) != "" })
	if err != nil {
		return imp, &counter.ImportError{Reason: "not a ZIP file: " + err.Error()}
	}
	files := map[string]*zipEntry{}
	for i := range entries {
		f := &entries[i]
		kind := plausibleKind(f.name)
		if files[kind] != nil {
			return imp, &counter.ImportError{Reason: "Plausible's export with two " + kind + " files"}
		}
		files[kind] = f
	}
	if files["imported_visitors"] == nil {
		return imp, &counter.ImportError{Reason: "not Plausible's export: it has no imported_visitors_*.csv"}
	}
	in := func(kind string, cols []string, row func(line int, rec []string, at []int) error) error {
		f := files[kind]
		if f == nil {
			return nil
		}
		rc, err := f.open(r, size)
		if err != nil {
			return &counter.ImportError{Reason: err.Error()}
		}
		defer rc.Close()
		if err := readNamedCSV(rc, cols, row); err != nil {
			return fmt.Errorf("%s: %w", path.Base(f.name), err)
		}
		return nil
	}
	num := func(line int, col, s string) (uint64, error) {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, &counter.ImportError{Line: line, Reason: col + " is not a count", Quote: counter.Excerpt(s)}
		}
		return n, nil
	}
	day := func(line int, s string) (time.Time, error) {
		at, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return at, &counter.ImportError{Line: line, Reason: "date is not a day like 2026-01-02", Quote: counter.Excerpt(s)}
		}
		if ie := checkTime(at, now); ie != nil {
			ie.Line = line
			return at, ie
		}
		return at, nil
	}
	var dayBook dayBook
	err = in("imported_visitors", []string{"date", "visitors", "pageviews"}, func(line int, rec []string, at []int) error {
		if _, err := day(line, rec[at[0]]); err != nil {
			return err
		}
		visitors, err := num(line, "visitors", rec[at[1]])
		if err != nil {
			return err
		}
		views, err := num(line, "pageviews", rec[at[2]])
		if err != nil {
			return err
		}
		return dayBook.add(counter.Day{Date: rec[at[0]], Tally: counter.Tally{Views: views, Visitors: visitors}}, line)
	})
	if err != nil {
		return imp, err
	}
	pages := newPageDays()
	refs := refBook{}
	err = in("imported_pages", []string{"date", "hostname", "page", "visitors", "pageviews"}, func(line int, rec []string, at []int) error {
		t, err := day(line, rec[at[0]])
		if err != nil {
			return err
		}
		visitors, err := num(line, "visitors", rec[at[3]])
		if err != nil {
			return err
		}
		views, err := num(line, "pageviews", rec[at[4]])
		if err != nil {
			return err
		}
		// The page's host, as a live hit's Referer names it.
		if h := counter.ReferrerHost("https://" + rec[at[1]] + "/"); h == rec[at[1]] {
			refs.add(h, views)
		}
		page, err := counter.PageKey(rec[at[2]], nil)
		if err != nil {
			return nil // a path no page can have: the site's day has it
		}
		if err := pages.addCounts(t, pc.page(page), views, visitors); err != nil {
			return &counter.ImportError{Line: line, Reason: err.Error()}
		}
		return nil
	})
	if err != nil {
		return imp, err
	}
	if err := pages.flush(); err != nil {
		return imp, &counter.ImportError{Reason: err.Error()}
	}
	sources := refBook{}
	var noHost uint64
	err = in("imported_sources", []string{"date", "source", "referrer", "visits"}, func(line int, rec []string, at []int) error {
		if _, err := day(line, rec[at[0]]); err != nil {
			return err
		}
		visits, err := num(line, "visits", rec[at[3]])
		if err != nil {
			return err
		}
		if src := plausibleSource(rec[at[1]], rec[at[2]]); src != "" {
			sources.add(src, visits)
		} else if rec[at[1]] != "" || rec[at[2]] != "" {
			noHost += visits
		}
		return nil
	})
	if err != nil {
		return imp, err
	}
	imp.Days, imp.PageRows, imp.Referrers, imp.Sources = dayBook.sorted(), pages.list(), refs.list(), sources.list()
	if noHost > 0 {
		imp.LeftOut = append(imp.LeftOut, fmt.Sprintf("%d visits from sources that name no host (utm_source tags, or a site Plausible names that this counter does not group)", noHost))
	}
	return imp, nil
}

// plausibleSource is the source (counter.SourceKey) of a session that
// Plausible's imported_sources gives with source and referrer: the host
// of its referrer (the page's document.referrer without its scheme),
// else its source when it is a group's name here too ("Google"); ""
// for none (a session without a referrer, or a source named by an
// utm_source tag). Plausible keeps no session from the site's own pages.
func plausibleSource(source, referrer string) string {
	if referrer != "" {
		host := referrer
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		if key := counter.SourceKey(host); key != "" {
			return key
		}
	}
	if counter.SourceKind(source) != "" {
		return source
	}
	return ""
}

// readNamedCSV reads a CSV file with a header, finding cols in it by
// name, and calls row with each record and where cols are in it.
func readNamedCSV(r io.Reader, cols []string, row func(line int, rec []string, at []int) error) error {
	cr := newCSVReader(r)
	header, err := cr.Read()
	if err != nil {
		return csvError(err)
	}
	at := make([]int, len(cols))
	for i, c := range cols {
		if at[i] = slices.Index(header, c); at[i] < 0 {
			return &counter.ImportError{Line: 1, Reason: "no " + c + " column"}
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := row(cr.line(), rec, at); err != nil {
			return err
		}
	}
}

// ExportZIP reads a ZIP export, GoatCounter's or Plausible's, telling
// them apart by the files in it, and says whose it was. pages caps the
// pages as GoatCounterZIP and PlausibleZIP say.
func ExportZIP(r io.ReaderAt, size int64, pages *PageCap) (imp counter.Imported, whose string, err error) {
	entries, err := readZIP(r, size, func(name string) bool { return strings.HasPrefix(path.Base(name), "imported_") })
	if err != nil {
		return imp, "ZIP", &counter.ImportError{Reason: "not a ZIP file: " + err.Error()}
	}
	if len(entries) > 0 {
		imp, err = PlausibleZIP(r, size, pages)
		return imp, "Plausible's CSV export", err
	}
	imp, err = GoatCounterZIP(r, size, pages)
	return imp, "GoatCounter's ZIP export", err
}

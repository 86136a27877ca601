package web

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// pageDaysPiece is how many page-days of a site an export, or the
// statistics of a period, read in one open of the file: about 300 KB at
// the longest page keys, and the lock held for one piece's read,
// whatever the history.
const pageDaysPiece = 1024

// exportWrite is how many bytes of an export are gathered before they
// are written. The transport holds the first 64 KiB to send a small
// export whole, with its length, and streams a longer one.
const exportWrite = 32 << 10

// serveExport answers /NAME/stats.csv and /NAME/stats.json with the whole
// daily history, behind the same session as the page. The answer is
// written a piece at a time as the history is read (issue 24): what it
// costs in memory does not grow with the history, and a site's page-days
// are read a piece to an open of the file, which is closed while the
// client takes them, so that a slow reader never keeps a hit waiting.
func (a *App) serveExport(w http.ResponseWriter, r *http.Request) {
	_, ext, _ := cutLast(r.URL.Path, ".")
	name := r.PathValue("name")
	v, err := a.loadStats(r, name, time.Time{})
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	tag(w, meter.Stats)
	if !a.authorised(r, v) {
		a.Refuse(w, r, errLoginRequired)
		return
	}
	h := v.history
	var first []counter.PageDay
	if h.Settings.IsSite() {
		// Read before anything is written: a file busy past the wait is
		// answered with a 503, not with an export cut short.
		if first, err = a.pageDays(name, counter.PageDay{}); err != nil {
			a.Refuse(w, r, err)
			return
		}
	}
	contentType := "text/csv; charset=utf-8"
	if ext == "json" {
		contentType = "application/json"
	}
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Disposition", `attachment; filename="`+name+`-daily.`+ext+`"`)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	e := &exportWriter{w: w, csv: ext == "csv"}
	if err := a.writeExport(e, h, first); err != nil {
		// The file failed between pieces: the client must not take what
		// it got for the whole history.
		if !gateway.Cut(w) {
			a.Refuse(w, r, err)
			return
		}
		a.log.Printf("%s %q: export cut short: %v", r.Method, r.URL.Path, err)
	}
}

// writeExport writes the history h, and a site's page-days from first
// on, reading them a piece at a time. It returns an error only for a
// read of the file that failed after the export began: a client gone
// away just ends it, and the transport says so.
func (a *App) writeExport(e *exportWriter, h counter.History, first []counter.PageDay) error {
	if e.csv {
		csvHistory(e, h)
	} else {
		jsonHistory(e, h)
	}
	if !h.Settings.IsSite() {
		e.flush()
		return nil
	}
	if !e.csv {
		e.b = append(e.b, `,"page_days":[`...)
	}
	for piece, n := first, 0; e.err == nil; n++ {
		for i, d := range piece {
			e.pageDay(d, n == 0 && i == 0)
		}
		if len(piece) < pageDaysPiece {
			break
		}
		var err error
		if piece, err = a.pageDays(h.Name, piece[len(piece)-1]); err != nil {
			return err
		}
	}
	if !e.csv {
		e.b = append(e.b, "]}\n"...)
	}
	e.flush()
	return nil
}

// pageDays reads one piece of the page-days of site name, those after
// after, in one short open of the file.
func (a *App) pageDays(name string, after counter.PageDay) ([]counter.PageDay, error) {
	db, err := a.open(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.PageDays(name, after, pageDaysPiece)
}

// exportWriter gathers an export's rows and writes them out a piece of
// exportWrite bytes at a time.
type exportWriter struct {
	w   io.Writer
	csv bool
	// sourceColumn says the CSV has a source column, after the others.
	sourceColumn bool
	b            []byte
	err          error // the first write that failed: the client went away
}

// row ends a row, and writes out the rows gathered once they fill a
// piece.
func (e *exportWriter) row() {
	if len(e.b) >= exportWrite {
		e.flush()
	}
}

// flush writes out the rows gathered.
func (e *exportWriter) flush() {
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// exportColumns are the figures of a day in the exports, after its date,
// named as in both the CSV header and the JSON keys. The hits not counted
// take their kinds' names.
func exportColumns() [3 + len(counter.NotCountedKinds)]string {
	cols := [3 + len(counter.NotCountedKinds)]string{"views", "visitors", counter.GitHub.String()}
	for i, k := range counter.NotCountedKinds {
		cols[3+i] = k.String()
	}
	return cols
}

// exportValues are a day's figures in the order of exportColumns.
func exportValues(t counter.Tally) [3 + len(counter.NotCountedKinds)]uint64 {
	vals := [3 + len(counter.NotCountedKinds)]uint64{t.Views, t.Visitors, t.GitHub}
	for i, k := range counter.NotCountedKinds {
		vals[3+i] = t.NotCounted[k]
	}
	return vals
}

// csvHistory writes the daily history as CSV, a day a line. A site's has
// a page column, empty on the lines of the whole site, which come first;
// its pages' lines follow (pageDay). A counter with sources has a last
// column, source, empty on the days' lines; its sources' lines follow
// the days', a source a line with no date (they are kept in all, not by
// day) and its views, the other columns empty.
func csvHistory(e *exportWriter, h counter.History) {
	e.b = append(e.b, "date"...)
	if h.Settings.IsSite() {
		e.b = append(e.b, ",page"...)
	}
	for _, c := range exportColumns() {
		e.b = append(e.b, ',')
		e.b = append(e.b, c...)
	}
	if len(h.Sources) > 0 {
		e.b = append(e.b, ",source"...)
	}
	e.b = append(e.b, "\r\n"...)
	e.sourceColumn = len(h.Sources) > 0
	for _, d := range h.Days {
		e.b = append(e.b, d.Date...)
		if h.Settings.IsSite() {
			e.b = append(e.b, ',')
		}
		for _, n := range exportValues(d.Tally) {
			e.b = append(e.b, ',')
			e.b = strconv.AppendUint(e.b, n, 10)
		}
		e.endCSV()
	}
	for _, s := range h.Sources {
		if h.Settings.IsSite() {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, ',')
		e.b = strconv.AppendUint(e.b, s.Hits, 10)
		for range len(exportColumns()) - 1 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, ',')
		e.b = appendCSVField(e.b, s.Host)
		e.b = append(e.b, "\r\n"...)
		e.row()
	}
}

// endCSV ends a CSV line that has no source: empty in the source column,
// when there is one.
func (e *exportWriter) endCSV() {
	if e.sourceColumn {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, "\r\n"...)
	e.row()
}

// jsonHistory writes the counter, its daily history and its referring
// hosts as JSON, everything the statistics page shows, so that an import
// of it elsewhere shows the same page; a site's page-days follow
// (pageDay). The document is framed here a row at a time, each value
// encoded by encoding/json, so that a long history is written out in
// pieces (exportWriter.row) and never held whole in memory.
func jsonHistory(e *exportWriter, h counter.History) {
	b := e.b
	b = append(b, `{"name":`...)
	b = appendJSONString(b, h.Name)
	b = append(b, `,"show":`...)
	b = appendJSONString(b, h.Settings.Show.String())
	b = append(b, `,"total":`...)
	b = strconv.AppendUint(b, h.Count, 10)
	b = append(b, `,"visitors":`...)
	b = strconv.AppendUint(b, h.Visitors, 10)
	b = append(b, `,"created":`...)
	b = appendJSONTime(b, h.Created)
	b = append(b, `,"tallied_since":`...)
	b = appendJSONTime(b, h.TalliedSince)
	b = append(b, `,"days":[`...)
	cols := exportColumns()
	for i, d := range h.Days {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"date":`...)
		b = appendJSONString(b, d.Date)
		for j, n := range exportValues(d.Tally) {
			b = append(b, ',', '"')
			b = append(b, cols[j]...)
			b = append(b, '"', ':')
			b = strconv.AppendUint(b, n, 10)
		}
		b = append(b, '}')
		e.b = b
		e.row()
		b = e.b
	}
	b = append(b, `],"referrers":[`...)
	for i, r := range h.Referrers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"host":`...)
		b = appendJSONString(b, r.Host)
		b = append(b, `,"views":`...)
		b = strconv.AppendUint(b, r.Hits, 10)
		b = append(b, '}')
	}
	b = append(b, ']')
	// Sources only when there are any, so that the export of a counter
	// without is the same bytes as before there were sources.
	for i, s := range h.Sources {
		if i == 0 {
			b = append(b, `,"sources":[`...)
		} else {
			b = append(b, ',')
		}
		b = append(b, `{"source":`...)
		b = appendJSONString(b, s.Host)
		b = append(b, `,"views":`...)
		b = strconv.AppendUint(b, s.Hits, 10)
		b = append(b, '}')
		if i == len(h.Sources)-1 {
			b = append(b, ']')
		}
	}
	if !h.Settings.IsSite() {
		b = append(b, "}\n"...)
	}
	e.b = b
}

// appendJSONTime writes t in RFC 3339, UTC, or null when it is zero.
func appendJSONTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return appendJSONString(b, t.UTC().Format(time.RFC3339))
}

// pageDay writes one day of one of a site's pages: in CSV, its views and
// visitors, the columns a page does not keep left empty.
func (e *exportWriter) pageDay(d counter.PageDay, first bool) {
	b := e.b
	if e.csv {
		b = append(b, d.Date...)
		b = append(b, ',')
		b = appendCSVField(b, d.Page)
		b = append(b, ',')
		b = strconv.AppendUint(b, d.Views, 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, d.Visitors, 10)
		for range len(exportColumns()) - 2 {
			b = append(b, ',')
		}
		e.b = b
		e.endCSV()
		return
	}
	if !first {
		b = append(b, ',')
	}
	b = append(b, `{"date":`...)
	b = appendJSONString(b, d.Date)
	b = append(b, `,"page":`...)
	b = appendJSONString(b, d.Page)
	b = append(b, `,"views":`...)
	b = strconv.AppendUint(b, d.Views, 10)
	b = append(b, `,"visitors":`...)
	b = strconv.AppendUint(b, d.Visitors, 10)
	b = append(b, '}')
	e.b = b
	e.row()
}

// appendCSVField writes s as a CSV field, quoted when it holds a comma,
// a quote or a line end.
func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}

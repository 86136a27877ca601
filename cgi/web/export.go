package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"hitcounter/counter"
	"hitcounter/counter/costs"
)

// serveExport answers /NAME/stats.csv and /NAME/stats.json with the whole
// daily history, behind the same session as the page.
func (a *App) serveExport(w http.ResponseWriter, r *http.Request) {
	_, ext, _ := cutLast(r.URL.Path, ".")
	name := r.PathValue("name")
	v, err := a.loadStats(r, name, time.Time{})
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	tag(w, costs.Stats)
	if !a.authorised(r, v) {
		a.Refuse(w, r, errLoginRequired)
		return
	}
	h := v.history
	var b []byte
	var err2 error
	contentType := "text/csv; charset=utf-8"
	if ext == "csv" {
		b, err2 = a.appendSiteCSV(appendCSV(b, h), h)
	} else {
		contentType = "application/json"
		b, err2 = a.appendSiteJSON(appendJSON(b, h), h)
	}
	if err2 != nil {
		a.Refuse(w, r, err2)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`-daily.`+ext+`"`)
	writeBody(w, r, http.StatusOK, contentType, b)
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

// appendCSV writes the daily history as CSV, a day a line. A site's has
// a page column, empty on the lines of the whole site, which come first;
// appendSiteCSV adds its pages' lines.
func appendCSV(b []byte, h counter.History) []byte {
	b = append(b, "date"...)
	if h.Settings.IsSite() {
		b = append(b, ",page"...)
	}
	for _, c := range exportColumns() {
		b = append(b, ',')
		b = append(b, c...)
	}
	b = append(b, "\r\n"...)
	for _, d := range h.Days {
		b = append(b, d.Date...)
		if h.Settings.IsSite() {
			b = append(b, ',')
		}
		for _, n := range exportValues(d.Tally) {
			b = append(b, ',')
			b = strconv.AppendUint(b, n, 10)
		}
		b = append(b, "\r\n"...)
	}
	return b
}

// appendJSON writes the counter, its daily history and its referring
// hosts as JSON, everything the statistics page shows, so that an import
// of it elsewhere shows the same page. It is written by hand:
// encoding/json is kept out of the binary (cgi/deps_test.go).
func appendJSON(b []byte, h counter.History) []byte {
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
	if !h.Settings.IsSite() {
		b = append(b, "}\n"...)
	}
	return b
}

// appendJSONTime writes t in RFC 3339, UTC, or null when it is zero.
func appendJSONTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return appendJSONString(b, t.UTC().Format(time.RFC3339))
}

// appendSiteCSV adds a site's lines of each page and day to its CSV, read
// in one pass of the file: the page's views and visitors, the columns a
// page does not keep left empty.
func (a *App) appendSiteCSV(b []byte, h counter.History) ([]byte, error) {
	if !h.Settings.IsSite() {
		return b, nil
	}
	empty := len(exportColumns()) - 2
	err := a.eachPageDay(h.Name, func(d counter.PageDay) {
		b = append(b, d.Date...)
		b = append(b, ',')
		b = appendCSVField(b, d.Page)
		b = append(b, ',')
		b = strconv.AppendUint(b, d.Views, 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, d.Visitors, 10)
		for range empty {
			b = append(b, ',')
		}
		b = append(b, "\r\n"...)
	})
	return b, err
}

// appendSiteJSON ends a site's JSON with its pages' days.
func (a *App) appendSiteJSON(b []byte, h counter.History) ([]byte, error) {
	if !h.Settings.IsSite() {
		return b, nil
	}
	b = append(b, `,"page_days":[`...)
	first := true
	err := a.eachPageDay(h.Name, func(d counter.PageDay) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"date":`...)
		b = appendJSONString(b, d.Date)
		b = append(b, `,"page":`...)
		b = appendJSONString(b, d.Page)
		b = append(b, `,"views":`...)
		b = strconv.AppendUint(b, d.Views, 10)
		b = append(b, `,"visitors":`...)
		b = strconv.AppendUint(b, d.Visitors, 10)
		b = append(b, '}')
	})
	return append(b, "]}\n"...), err
}

// eachPageDay calls fn with every day of every page of site name, by date
// then page, in one read of the file.
func (a *App) eachPageDay(name string, fn func(counter.PageDay)) error {
	db, err := a.open(true)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.EachPageDay(name, func(d counter.PageDay) error {
		fn(d)
		return nil
	})
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

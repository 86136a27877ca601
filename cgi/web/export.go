package web

import (
	"net/http"
	"strconv"
	"time"
)

// serveExport answers /NAME/stats.csv and /NAME/stats.json with the whole
// daily history, behind the same session as the page.
func (a *App) serveExport(w http.ResponseWriter, r *http.Request) {
	_, ext, _ := cutLast(r.URL.Path, ".")
	name := r.PathValue("name")
	v, err := a.loadStats(name, time.Time{})
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	if !a.authorised(r, v) {
		a.Refuse(w, r, errLoginRequired)
		return
	}
	h := v.history
	var b []byte
	contentType := "text/csv; charset=utf-8"
	if ext == "csv" {
		b = append(b, "date,hits\r\n"...)
		for _, d := range h.Days {
			b = append(b, d.Date...)
			b = append(b, ',')
			b = strconv.AppendUint(b, d.Views, 10)
			b = append(b, "\r\n"...)
		}
	} else {
		contentType = "application/json"
		b = append(b, `{"name":`...)
		b = appendJSONString(b, h.Name)
		b = append(b, `,"total":`...)
		b = strconv.AppendUint(b, h.Count, 10)
		b = append(b, `,"days":[`...)
		for i, d := range h.Days {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"date":`...)
			b = appendJSONString(b, d.Date)
			b = append(b, `,"hits":`...)
			b = strconv.AppendUint(b, d.Views, 10)
			b = append(b, '}')
		}
		b = append(b, "]}\n"...)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`-daily.`+ext+`"`)
	writeBody(w, r, http.StatusOK, contentType, b)
}

package web

import (
	"net/http"
	"strconv"
	"strings"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// serveTop answers /NAME.json?top=N&days=D, counting nothing: site name's N
// most viewed pages over the last D days, for a "popular posts" box on any
// page. Only a site whose owner turned public-pages on, and whose
// statistics have no password, answers (counter.Info.PageListPublic).
func (a *App) serveTop(w http.ResponseWriter, r *http.Request, name string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	list, titles, err := a.readTop(r, name)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	tag(w, meter.JSON)
	ans := topAnswer{Top: make([]topPage, len(list))}
	for i, p := range list {
		ans.Top[i] = topPage{Page: p.Page, Title: titles[p.Page], Views: p.Views}
	}
	writeJSON(w, r, http.StatusOK, ans)
}

// readTop checks name and the query of a top list, and reads it, with
// the titles the owner gave its pages.
func (a *App) readTop(r *http.Request, name string) ([]counter.Page, map[string]string, error) {
	if err := counter.CheckName(name); err != nil {
		return nil, nil, err
	}
	raw := r.URL.RawQuery
	if len(raw) > counter.MaxQueryLen {
		return nil, nil, &counter.ParamError{Param: "query", Reason: "longer than " + strconv.Itoa(counter.MaxQueryLen) + " bytes"}
	}
	top, _, err := queryValue(raw, "top")
	if err != nil {
		return nil, nil, err
	}
	days, _, err := queryValue(raw, "days")
	if err != nil {
		return nil, nil, err
	}
	q, err := counter.ParseTop(top, days)
	if err != nil {
		return nil, nil, err
	}
	db, err := a.open(true)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	return db.TopPagesTitled(name, a.now(), q)
}

// topAnswer is the JSON of a top list, most viewed first.
type topAnswer struct {
	Top []topPage `json:"top"`
}

// topPage is one page of a top list; Title is the owner's, from the site's
// own sitemap or feed, when it has one.
type topPage struct {
	Page  string `json:"page"`
	Title string `json:"title,omitempty"`
	Views uint64 `json:"views"`
}

// asksTop reports whether a query asks for a top list: it has a top key
// (readTop checks it).
func asksTop(rawQuery string) bool {
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if k, _, _ := strings.Cut(pair, "="); k == "top" {
			return true
		}
	}
	return false
}

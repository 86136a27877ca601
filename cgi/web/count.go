package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

// serveCount answers /NAME.json, counting nothing: the figure the image
// shows, the views and visitors in all and today, and on a site those of
// the page that page= or the Referer names. page= may repeat, for an
// index page's posts (counter.MaxListedPages at most): each page's views
// and visitors come in "pages", read in the same transaction. Any page
// may read it. A counter whose statistics have a password answers with
// what its images can show alone: its count, and its views, visitors and
// pages' figures when pages are asked for.
func (a *App) serveCount(w http.ResponseWriter, r *http.Request, name string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	q, err := counter.ParseJSONQuery(r.URL.RawQuery)
	if err == nil {
		err = counter.CheckName(name)
	}
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	target := q.Page
	if t, ok := counter.RefererTarget(r.Referer()); ok && !q.HasPage {
		target = t
	}
	db, err := a.proc.Open(true)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	g, pages, err := db.GlancePages(name, target, q.Image, q.Pages, a.now())
	db.Close()
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	tag(w, meter.JSON)
	ans := countAnswer{Name: name, Count: g.Shown, Show: g.Settings.Show.String()}
	// A counter whose owner keeps its figures behind a password: the JSON
	// says what the image shows, and no more.
	if !g.Protected() {
		ans.countFigures = &countFigures{Views: g.Count, Visitors: g.Visitors, Today: dayKeyOf(a.now()),
			TodayViews: g.Today.Views, TodayVisitors: g.Today.Visitors}
		if p := g.Page; p != nil {
			ans.pageFigures = &pageFigures{Page: p.Page, PageViews: p.Views, PageVisitors: p.Visitors,
				PageTodayViews: g.PageToday.Views, PageTodayVisitors: g.PageToday.Visitors}
		}
	}
	if len(q.Pages) == 0 {
		writeJSON(w, r, http.StatusOK, ans)
		return
	}
	list := make([]listedPage, len(pages))
	for i, p := range pages {
		list[i] = listedPage(p)
	}
	if ans.countFigures != nil {
		writeJSON(w, r, http.StatusOK, struct {
			countAnswer
			Pages []listedPage `json:"pages"`
		}{ans, list})
		return
	}
	// What images show, a password or not: the counter's and each
	// page's views and visitors, without the days.
	writeJSON(w, r, http.StatusOK, listAnswer{ans.Name, ans.Count, ans.Show, g.Count, g.Visitors, list})
}

// countAnswer is the JSON of /NAME.json: what the image shows, then, for
// a counter without a password, its figures, and a page's on a site.
type countAnswer struct {
	Name  string `json:"name"`
	Count uint64 `json:"count"`
	Show  string `json:"show"`
	*countFigures
}

// listAnswer is the JSON of a read of many pages on a counter whose
// statistics have a password: what its images can show.
type listAnswer struct {
	Name     string       `json:"name"`
	Count    uint64       `json:"count"`
	Show     string       `json:"show"`
	Views    uint64       `json:"views"`
	Visitors uint64       `json:"visitors"`
	Pages    []listedPage `json:"pages"`
}

type listedPage struct {
	Page     string `json:"page"`
	Views    uint64 `json:"views"`
	Visitors uint64 `json:"visitors"`
}

type countFigures struct {
	Views         uint64 `json:"views"`
	Visitors      uint64 `json:"visitors"`
	Today         string `json:"today"`
	TodayViews    uint64 `json:"today_views"`
	TodayVisitors uint64 `json:"today_visitors"`
	*pageFigures
}

type pageFigures struct {
	Page              string `json:"page"`
	PageViews         uint64 `json:"page_views"`
	PageVisitors      uint64 `json:"page_visitors"`
	PageTodayViews    uint64 `json:"page_today_views"`
	PageTodayVisitors uint64 `json:"page_today_visitors"`
}

// glanceQuery checks name and the query of a request that reads a counter
// without counting, and reads it.
func (a *App) glanceQuery(r *http.Request, name string) (store.Glance, error) {
	err := counter.CheckName(name)
	var site imagehit.SiteHit
	if err == nil && len(r.URL.RawQuery) > counter.MaxQueryLen {
		err = &counter.ParamError{Param: "query", Reason: "longer than " + strconv.Itoa(counter.MaxQueryLen) + " bytes"}
	}
	if err == nil {
		site, err = siteParams(r.URL.RawQuery, r.Referer())
	}
	if err != nil {
		return store.Glance{}, err
	}
	return a.proc.Server().Glance(name, site)
}

// dayKeyOf is the UTC day of t as the exports write it.
func dayKeyOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// siteParams reads what a site's hit says of its page: the tag's
// page=PATH, or else the Referer's path, and the tag's show=page|site.
func siteParams(rawQuery, referer string) (imagehit.SiteHit, error) {
	var h imagehit.SiteHit
	if p, ok, err := queryValue(rawQuery, "page"); err != nil {
		return h, err
	} else if ok {
		h.Target = p
	} else if t, ok := counter.RefererTarget(referer); ok {
		h.Target = t
	}
	show, ok, err := queryValue(rawQuery, "show")
	if err != nil || !ok {
		return h, err
	}
	i, ok := counter.ParseImage(show)
	if !ok {
		return h, &counter.ParamError{Param: "show", Reason: "must be page or site"}
	}
	h.Image = &i
	return h, nil
}

// queryValue returns the value of key in rawQuery, which
// counter.ParseStyle has bounded and checked; a key given twice is refused,
// as a style's are.
func queryValue(rawQuery, key string) (string, bool, error) {
	var value string
	found := false
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != key {
			continue
		}
		if found {
			return "", false, &counter.ParamError{Param: key, Reason: "given more than once"}
		}
		var err error
		if value, err = url.QueryUnescape(v); err != nil {
			return "", false, &counter.ParamError{Param: key, Reason: "bad %-escape"}
		}
		found = true
	}
	return value, found, nil
}

package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/imagehit"
	"hitcounter/counter"
	"hitcounter/counter/costs"
	"hitcounter/store"
)

// serveCount answers /NAME.json, counting nothing: the figure the image
// shows, the views and visitors in all and today, and on a site those of
// the page that page= or the Referer names. Any page may read it. A
// counter whose statistics have a password answers with what its image
// shows alone.
func (a *App) serveCount(w http.ResponseWriter, r *http.Request, name string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	g, err := a.glanceQuery(r, name)
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	tag(w, costs.JSON)
	fields := []jsonField{
		jsonString("name", name),
		jsonCount("count", g.Shown),
		jsonString("show", g.Settings.Show.String()),
	}
	if g.Protected() {
		// Its owner keeps its figures behind a password: the JSON says
		// what the image shows, and no more.
		writeJSON(w, r, http.StatusOK, fields...)
		return
	}
	fields = append(fields,
		jsonCount("views", g.Count),
		jsonCount("visitors", g.Visitors),
		jsonString("today", dayKeyOf(a.now())),
		jsonCount("today_views", g.Today.Views),
		jsonCount("today_visitors", g.Today.Visitors))
	if p := g.Page; p != nil {
		fields = append(fields,
			jsonString("page", p.Page),
			jsonCount("page_views", p.Views),
			jsonCount("page_visitors", p.Visitors),
			jsonCount("page_today_views", g.PageToday.Views),
			jsonCount("page_today_visitors", g.PageToday.Visitors))
	}
	writeJSON(w, r, http.StatusOK, fields...)
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

package web

import (
	"html"
	"net/http"
	"strconv"
	"strings"

	"hitcounter/counter"
)

// serveIndex shows the local server's counters in use and what to paste
// into a page. The page is put together with html.EscapeString, as
// html.go's are, and checked against html/template likewise
// (TestDemoPageAsItsTemplate).
func (a *App) serveIndex(w http.ResponseWriter, r *http.Request) {
	db, err := a.open(true)
	var list []counter.Info
	var themes []string
	if err == nil {
		list, err = db.List()
		if err == nil {
			themes, err = db.DigitSetNames()
		}
		db.Close()
	}
	if err != nil {
		a.log.Printf("index: %v", err)
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	var b strings.Builder
	b.WriteString(indexHead)
	here := counter.ReferrerHost("http://" + r.Host + "/")
	for _, c := range list {
		n := html.EscapeString(c.Name) // names are plain already; escape all the same
		b.WriteString(strings.NewReplacer("NAME", n, "COUNTS", whatCounts(c.Settings, here, len(themes))).Replace(indexCounter))
		b.WriteString("<p>Built-in looks: <code>theme=</code> one of them, <code>fg</code> and <code>bg</code> recolour it.</p>\n<div class=\"row\">\n")
		for _, look := range counter.LookNames() {
			b.WriteString(strings.NewReplacer("NAME", n, "LOOK", look, "EXT", "png").Replace(indexLook))
		}
		b.WriteString("</div>\n")
		if len(themes) > 0 {
			// A GIF, which animates an animated set.
			b.WriteString("<p>Your digit sets (<code>counter digitset add</code>): <code>theme=</code> one of them.</p>\n<div class=\"row\">\n")
			for _, set := range themes {
				b.WriteString(strings.NewReplacer("NAME", n, "LOOK", html.EscapeString(set), "EXT", "gif").Replace(indexLook))
			}
			b.WriteString("</div>\n")
		}
	}
	if len(list) == 0 {
		b.WriteString("<p>No counters yet: make one with <code>counter create NAME</code>.</p>\n")
	}
	b.WriteString("</body></html>\n")
	w.Header().Set("Cache-Control", "no-store")
	writeBody(w, r, http.StatusOK, "text/html; charset=utf-8", []byte(b.String()))
}

const indexHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hit counter</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{background:#f3f3f3;border-radius:4px}pre{padding:.6rem;overflow-x:auto}
.row{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin:.5rem 0}
figure{margin:0}figcaption{font-size:.8rem}
</style></head><body>
<h1>Hit counter</h1>
<p>The counters below count as they will on your pages: a <b>view</b> when a
browser loads the image, and a <b>visitor</b> the first time that browser
comes that day (UTC). Not counted: the same browser again within the
counter's reload window (30 minutes unless set otherwise), bots and scripts
(curl too), prefetches, your own browser once marked on the statistics page,
pages of sites not on the counter's list, and ignored addresses. Each of
those is still on the statistics page, under "Hits not counted", with its
reason.</p>
`

const indexCounter = `<h2>NAME</h2>
<p>COUNTS</p>
<div class="row">
<img src="NAME.png" alt="NAME visits">
<img src="NAME.svg?digits=8&amp;fg=0f0&amp;bg=000&amp;size=32" alt="NAME visits">
<img src="NAME.gif?font=bold&amp;fg=c00&amp;bg=fff0" alt="NAME visits">
</div>
<p>Put this in a page served next to the CGI:</p>
<pre>&lt;img src="/cgi-bin/counter.cgi/NAME.png" alt="visitors"&gt;</pre>
<p>The count as JSON, without counting: <a href="NAME.json">NAME.json</a>.
Its statistics: <a href="NAME/stats">NAME/stats</a>.</p>
`

// indexLook shows a built-in look or a set and the tag that asks for it.
const indexLook = `<figure><img src="NAME.EXT?theme=LOOK" alt="NAME visits, LOOK">
<figcaption><code>&lt;img src="/cgi-bin/counter.cgi/NAME.EXT?theme=LOOK" alt="visitors"&gt;</code></figcaption></figure>
`

// whatCounts says what a load of the demo page adds to a counter of
// settings s, for its images (three, one a look and one a set of the sets
// there are): plain text, with nothing from the request but the page's
// own host (here).
func whatCounts(s counter.Settings, here string, sets int) string {
	var b strings.Builder
	n := strconv.Itoa(3 + len(counter.LookNames()) + sets)
	switch {
	case s.LimitsReferrers() && !s.AllowsReferrer(here):
		return "This counter counts only on the sites on its list (referrers=), and this page is not one: loading it counts nothing; the statistics page lists its hits as foreign."
	case s.Reload > 0:
		b.WriteString("The " + n + " images below are one counter: a browser's first load of this page counts one view, not " + n + " (the images after the first are its reloads), and loading the page again within " + plainDuration(s.Reload) + " counts nothing.")
	default:
		b.WriteString("This counter counts every hit (reload=off): each load of this page adds " + n + " views, one per image.")
	}
	if s.Show == counter.ShowVisitors {
		b.WriteString(" Its images show unique visitors: this browser adds one a day.")
	}
	return b.String()
}

package main

import (
	"bytes"
	"html/template"
	"net/http"

	"hitcounter/store"
)

// indexPage shows the local server's counters in use and what to paste
// into a page. It is parsed only when the page is asked for.
const indexPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hit counter</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{background:#f3f3f3;border-radius:4px}pre{padding:.6rem;overflow-x:auto}
.row{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin:.5rem 0}
</style></head><body>
<h1>Hit counter</h1>
<p>Every reload of this page counts one more hit on each counter below.</p>
{{range .}}
<h2>{{.Name}}</h2>
<div class="row">
<img src="{{.Name}}.png" alt="{{.Name}} visits">
<img src="{{.Name}}.svg?digits=8&amp;fg=0f0&amp;bg=000&amp;size=32" alt="{{.Name}} visits">
<img src="{{.Name}}.gif?font=bold&amp;fg=c00&amp;bg=fff0" alt="{{.Name}} visits">
</div>
<p>Put this in a page served next to the CGI:</p>
<pre>&lt;img src="/cgi-bin/counter.cgi/{{.Name}}.png" alt="visitors"&gt;</pre>
<p>The count as JSON, without counting: <a href="{{.Name}}.json">{{.Name}}.json</a></p>
{{else}}
<p>No counters yet: make one with <code>counter.cgi create NAME</code>.</p>
{{end}}
</body></html>
`

// serveIndex lists the counters with their images.
func (a *app) serveIndex(w http.ResponseWriter, r *http.Request) {
	db, err := store.Open(a.cfg.DB, store.Options{ReadOnly: true, Wait: a.cfg.Wait})
	if err != nil {
		a.log.Printf("index: %v", err)
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	list, err := db.List()
	db.Close()
	if err != nil {
		a.log.Printf("index: %v", err)
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	var body bytes.Buffer
	if err := template.Must(template.New("index").Parse(indexPage)).Execute(&body, list); err != nil {
		a.log.Printf("index: %v", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeBody(w, r, http.StatusOK, "text/html; charset=utf-8", body.Bytes())
}

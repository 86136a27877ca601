package imagehit

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"hitcounter/cgi/gateway/cgiwire"
	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/store"
)

// The script's two paths: NAME.js, the script itself, and NAME.count, the
// count it sends from the page it runs on.
const (
	ScriptExt = "js"
	CountExt  = "count"
)

// ScriptPath reads a path segment that names a counter's script
// (NAME.js) or its count (NAME.count), the extension in any case.
func ScriptPath(file string) (name, ext string, ok bool) {
	name, ext, _ = cutLast(file, ".")
	switch {
	case strings.EqualFold(ext, ScriptExt):
		return name, ScriptExt, true
	case strings.EqualFold(ext, CountExt):
		return name, CountExt, true
	}
	return "", "", false
}

// ServeCount answers the count that NAME.js sends from the page it runs
// on: a GET counts the page's view by the image's rules, as one view with
// the page's image when it carries one too, and answers in the same round
// trip what the page's elements show: the counter's (the site's) views
// and visitors, the page's, and those of the pages listed (p=). When the
// page's image counted the view, the page's source (ref=) is still kept
// with it. A HEAD counts nothing.
func (a *Server) ServeCount(r Request, name string) Answer {
	q, err := counter.ParseCountQuery(r.RawQuery)
	if err == nil {
		err = counter.CheckName(name)
	}
	if err != nil {
		return a.refuseCount(r, err)
	}
	site := SiteHit{Target: q.Page}
	if !q.HasPage {
		site = siteOf(counter.ImageQuery{}, r.Header("Referer"))
	}
	var f store.Figures
	var pages []store.PageCount
	counted, joined := false, false
	if r.Method != "HEAD" {
		var c store.Counted
		if c, joined, err = a.hit(r, name, site, "", seen.ViaScript, q.Source, q.Pages); err != nil {
			return a.refuseCount(r, err)
		}
		// A hit's own transaction read what it shows, a view or not.
		f, pages, counted = c.Figures, c.Listed, true
	}
	if joined || r.Method == "HEAD" {
		var g store.Glance
		if joined {
			// The view the page's image counted, perhaps still being
			// written, is in the figures.
			g, pages, err = a.ReadAfter(name, site, q.Pages)
		} else {
			g, pages, err = a.ReadPages(name, site, q.Pages)
		}
		if err != nil {
			ans := a.refuseCount(r, err)
			ans.Counted = counted
			return ans
		}
		f = g.Figures()
	}
	body := countJSON(f, pages)
	h := NoCache(make([]cgiwire.Field, 0, 8))
	h = append(h, cgiwire.Field{Key: "Access-Control-Allow-Origin", Value: "*"})
	ans := jsonAnswer(r, statusOK, h, body)
	ans.Counted = counted
	return ans
}

// ReadPages reads counter name and each of pages in one read transaction.
func (a *Server) ReadPages(name string, site SiteHit, pages []string) (store.Glance, []store.PageCount, error) {
	db, err := a.Open(true)
	if err != nil {
		return store.Glance{}, nil, err
	}
	defer db.Close()
	return db.GlancePages(name, site.Target, site.Image, pages, a.Cfg.Now())
}

// countJSON is the answer to a count, written by hand: the hit binary
// links no encoding/json. On a plain counter the page's figures are the
// counter's; pages is nil or those the count listed, in its order.
func countJSON(f store.Figures, pages []store.PageCount) []byte {
	b := make([]byte, 0, 128+len(pages)*64)
	b = append(b, `{"views":`...)
	b = strconv.AppendUint(b, f.Views, 10)
	b = append(b, `,"visitors":`...)
	b = strconv.AppendUint(b, f.Visitors, 10)
	b = append(b, `,"page_views":`...)
	b = strconv.AppendUint(b, f.PageViews, 10)
	b = append(b, `,"page_visitors":`...)
	b = strconv.AppendUint(b, f.PageVisitors, 10)
	b = append(b, `,"pages":[`...)
	for i, p := range pages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"page":`...)
		b = appendJSONString(b, p.Page)
		b = append(b, `,"views":`...)
		b = strconv.AppendUint(b, p.Views, 10)
		b = append(b, `,"visitors":`...)
		b = strconv.AppendUint(b, p.Visitors, 10)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes for HTML (<, > and & too), invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// refuseCount answers a count that cannot be served: the status, and the
// short public message as JSON.
func (a *Server) refuseCount(r Request, err error) Answer {
	status, msg, _ := PublicError(err)
	a.Log.Printf("%s %q: %v", r.Method, r.Path, err)
	h := NoCache(make([]cgiwire.Field, 0, 8))
	h = append(h, cgiwire.Field{Key: "Access-Control-Allow-Origin", Value: "*"}, cgiwire.Field{Key: ErrorHeader, Value: msg})
	return jsonAnswer(r, status, h, append(appendJSONString([]byte(`{"error":`), msg), "}\n"...))
}

// jsonAnswer is a complete JSON answer; the body is left out for HEAD.
func jsonAnswer(r Request, status int, h []cgiwire.Field, body []byte) Answer {
	h = append(h, cgiwire.Field{Key: "Content-Type", Value: "application/json; charset=utf-8"}, cgiwire.Field{Key: "Content-Length", Value: strconv.Itoa(len(body))})
	if r.Method == "HEAD" {
		return Answer{Status: status, Header: h}
	}
	return Answer{Status: status, Header: h, Body: [][]byte{body}}
}

// ServeScript answers NAME.js: the script, the same for every view and
// every counter (it finds its counter from its own URL), so that
// browsers and proxies keep it. No file is opened.
func (a *Server) ServeScript(r Request, name string) Answer {
	if err := counter.CheckName(name); err != nil {
		a.Log.Printf("%s %q: %v", r.Method, r.Path, err)
		body := []byte("// invalid counter name\n")
		return Answer{Status: statusBadRequest, Header: []cgiwire.Field{
			{Key: "Content-Type", Value: "text/javascript; charset=utf-8"},
			{Key: "Content-Length", Value: strconv.Itoa(len(body))},
			{Key: "X-Content-Type-Options", Value: "nosniff"},
			{Key: ErrorHeader, Value: "invalid counter name"},
		}, Body: [][]byte{body}}
	}
	var body [][]byte
	if r.Method != "HEAD" {
		body = [][]byte{[]byte(Script)}
	}
	return Answer{Status: statusOK, Header: []cgiwire.Field{
		{Key: "Content-Type", Value: "text/javascript; charset=utf-8"},
		{Key: "Content-Length", Value: strconv.Itoa(len(Script))},
		// Kept a day: an upgrade's script reaches pages within one.
		{Key: "Cache-Control", Value: "public, max-age=86400"},
		{Key: "X-Content-Type-Options", Value: "nosniff"},
		// A page that isolates itself (COEP) may still load it.
		{Key: "Cross-Origin-Resource-Policy", Value: "cross-origin"},
	}, Body: body}
}

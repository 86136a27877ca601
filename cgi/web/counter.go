package web

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"time"

	"hitcounter/counter"
)

// serveCounter answers /NAME.png, .gif, .svg (a GET counts one hit) and
// /NAME.json (counts nothing).
func (a *App) serveCounter(w http.ResponseWriter, r *http.Request) {
	name, ext, _ := cutLast(r.PathValue("file"), ".")
	if ext == "json" {
		a.serveCount(w, r, name)
		return
	}
	format, ok := counter.ParseFormat(ext)
	if !ok {
		a.log.Printf("%s %q: not a counter path", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	style, err := counter.ParseStyle(r.URL.RawQuery)
	if err == nil {
		err = counter.CheckName(name)
	}
	if err != nil {
		a.refuseImage(w, r, format, err)
		return
	}
	var n uint64
	if r.Method == http.MethodHead {
		n, err = a.count(name)
	} else {
		n, err = a.hit(name, r.Referer())
	}
	text := counter.Digits(n, style.Digits)
	status := http.StatusOK
	if err != nil {
		if errors.Is(err, counter.ErrNotFound) {
			a.refuseImage(w, r, format, err)
			return
		}
		// The visitor still gets a counter-shaped image; the owner the cause.
		a.log.Printf("%s %q not counted: %v", r.Method, name, err)
		status, _ = publicError(err)
		text = counter.Placeholder(style.Digits)
	}
	var body bytes.Buffer
	d, err := a.glyphs.NewDrawing(text, style)
	if err == nil {
		err = d.Encode(&body, format)
	}
	if err != nil {
		a.refuseImage(w, r, format, err)
		return
	}
	noCache(w.Header())
	if format == counter.SVG {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	}
	writeBody(w, r, status, format.ContentType(), body.Bytes())
}

// hit counts one hit and returns the new total. The database is closed
// before the image is drawn.
func (a *App) hit(name, referer string) (uint64, error) {
	return a.hits.Hit(name, a.now(), counter.ReferrerHost(referer))
}

// hitter counts hits: a store.Batcher in a long-lived process, where hits
// that arrive together share a commit, or oneShot.
type hitter interface {
	Hit(name string, now time.Time, refHost string) (uint64, error)
}

// oneShot counts a hit in a transaction of its own, for a CGI process.
type oneShot struct{ a *App }

func (o oneShot) Hit(name string, now time.Time, refHost string) (uint64, error) {
	db, err := o.a.open(false)
	if err != nil {
		return 0, err
	}
	n, err := db.Hit(name, now, refHost)
	if cerr := db.Close(); cerr != nil && err == nil {
		o.a.log.Printf("hit %q counted, then: %v", name, cerr)
	}
	return n, err
}

// count reads a total without counting.
func (a *App) count(name string) (uint64, error) {
	db, err := a.open(true)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	info, err := db.Counter(name)
	return info.Count, err
}

// refuseImage answers an <img> that cannot show a count with a tiny valid
// image, the status, and the reason in a header.
func (a *App) refuseImage(w http.ResponseWriter, r *http.Request, format counter.Format, err error) {
	status, msg := publicError(err)
	a.log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
	var body bytes.Buffer
	counter.EncodeBlank(&body, format)
	noCache(w.Header())
	w.Header().Set(errorHeader, msg)
	writeBody(w, r, status, format.ContentType(), body.Bytes())
}

// serveCount answers /NAME.json with the total, counting nothing.
func (a *App) serveCount(w http.ResponseWriter, r *http.Request, name string) {
	err := counter.CheckName(name)
	var n uint64
	if err == nil {
		n, err = a.count(name)
	}
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, jsonString("name", name), jsonCount("count", n))
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

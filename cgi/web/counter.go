package web

import (
	"bytes"
	"errors"
	"net/http"
	"path"
	"strings"

	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/counter/costs"
	"hitcounter/counter/draw"
	"hitcounter/store"
)

// serveCounter answers /NAME.png, .gif, .svg (a GET counts one hit, unless
// it asks count=0), /NAME.json and /NAME.shields.json (which count nothing).
// Extensions are read in any case: /NAME.PNG is an image too.
func (a *App) serveCounter(w http.ResponseWriter, r *http.Request) {
	name, ext, _ := cutLast(r.PathValue("file"), ".")
	if strings.EqualFold(ext, "json") {
		if base, shields := cutSuffixFold(name, ".shields"); shields {
			a.serveShields(w, r, base)
			return
		}
		a.serveCount(w, r, name)
		return
	}
	format, ok := counter.ParseFormat(ext)
	if !ok {
		a.log.Printf("%s %q: not a counter path", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	// The query is read once, into q, which every later step reads.
	q, err := counter.ParseImageQuery(r.URL.RawQuery)
	style := q.Style
	site := siteOf(q, r.Referer())
	if err == nil {
		err = style.CheckFormat(format)
	}
	if err == nil {
		err = counter.CheckName(name)
	}
	if err != nil {
		a.refuseImage(w, r, format, err)
		return
	}
	var n uint64
	var show counter.Show
	var theme string // the counter's default theme
	if r.Method == http.MethodHead || !q.Count {
		var g store.Glance
		g, err = a.glance(name, site)
		n, show, theme = g.Shown, g.Settings.Show, g.Settings.Theme
	} else {
		var c store.Counted
		c, err = a.hit(r, name, site, style.Set)
		n, show, theme = c.Shown, c.Show, c.Theme
		if err == nil {
			// Timed as a hit: a refused one writes nothing, the costs'
			// files and fold included.
			tag(w, costs.Hit)
		}
	}
	if theme != "" && err == nil {
		// As if the tag said theme=THEME, unless it names one; a tag
		// that cannot take it (a badge) keeps its own style.
		if qt, terr := counter.ParseImageQueryTheme(r.URL.RawQuery, theme); terr == nil {
			style = qt.Style
		}
	}
	if style.Label == "" && show == counter.ShowVisitors {
		style.Label = "visitors" // a badge says what it counts
	}
	text := counter.Digits(n, style.Digits)
	status := http.StatusOK
	if err != nil {
		if errors.Is(err, counter.ErrNotFound) || errors.Is(err, counter.ErrNoTheme) {
			a.refuseImage(w, r, format, err)
			return
		}
		// The visitor still gets a counter-shaped image; the owner the cause.
		a.log.Printf("%s %q not counted: %v", r.Method, name, err)
		status, _ = publicError(err)
		text = counter.Placeholder(style.Digits)
		if style.Set != "" {
			// A set has no dashes: the font's, at its own size.
			style = fontStyle(style.Digits)
		}
	}
	var body bytes.Buffer
	style, err = a.drawCount(&body, name, text, format, style, q.Style)
	if err != nil {
		a.refuseImage(w, r, format, err)
		return
	}
	noCache(w.Header())
	if format == counter.SVG {
		csp := "default-src 'none'; style-src 'unsafe-inline'"
		if style.Set != "" {
			csp += "; img-src data:" // the set's own files, embedded
		}
		w.Header().Set("Content-Security-Policy", csp)
	}
	if typo, ok := q.Typo, q.HasTypo; ok {
		// Unknown keys are allowed (a cache-buster), so the image is
		// drawn and the hit counted as ever: a page that worked before
		// keeps working. But this one is likely a mistake in the tag.
		w.Header().Set(errorHeader, typo.Message())
		a.warnTypo(r, name, typo)
	}
	writeBody(w, r, status, format.ContentType(), body.Bytes())
}

// drawCount draws text in style to body: in its digit set when it names
// one, else in the font. A counter's default set that is gone draws the
// tag's own style (tag) instead. It returns the style drawn.
func (a *App) drawCount(body *bytes.Buffer, name, text string, format counter.Format, style, tag counter.Style) (counter.Style, error) {
	if style.Set != "" {
		err := a.drawSet(body, name, text, format, style, tag.Set != "")
		if !errors.Is(err, errSetGone) {
			return style, err
		}
		style = tag // the font, as drawSet's log line says
	}
	d, err := a.glyphs.NewDrawing(text, style)
	if err == nil {
		err = d.Encode(body, format)
	}
	return style, err
}

// fontStyle is the default style with digits digits.
func fontStyle(digits int) counter.Style {
	s := counter.DefaultStyle()
	s.Digits = digits
	return s
}

// warnTypo tells the owner of a key that looks misspelt, once a day per
// counter, whatever process serves the hit: the visitor table, which
// says when it sees a visitor first that day, is asked about a visitor
// that no hit can be (a counter name has no '?', a page starts with '/').
// When the table cannot tell, nothing is said: the header still says it.
func (a *App) warnTypo(r *http.Request, name string, typo counter.Typo) {
	v, err := a.visitors.See(seen.Visit{Counter: name + "?typo", Now: a.now()})
	if err == nil && v.NewToday {
		a.log.Printf("%s %q: %s (said once a day per counter)", r.Method, r.URL.Path, typo.Message())
	}
}

// refuseImage answers an <img> that cannot show a count with the status,
// the reason in a header, and a small image that says in a few words
// what is wrong, at the size the tag asked for, so that the owner sees
// the mistake on his page; or, with COUNTER_ERRORS=blank, a 1x1
// transparent image. It is drawn only here, on an error.
func (a *App) refuseImage(w http.ResponseWriter, r *http.Request, format counter.Format, err error) {
	status, msg := publicError(err)
	a.log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
	var body bytes.Buffer
	if a.cfg.BlankErrors || drawError(&body, format, errorText(err, r), counter.QuerySize(r.URL.RawQuery)) != nil {
		body.Reset()
		draw.EncodeBlank(&body, format)
	}
	noCache(w.Header())
	if format == counter.SVG {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	}
	w.Header().Set(errorHeader, msg)
	writeBody(w, r, status, format.ContentType(), body.Bytes())
}

// drawError writes the image of an error that says text.
func drawError(body *bytes.Buffer, format counter.Format, text string, size int) error {
	d, err := draw.NewErrorDrawing(text, size)
	if err != nil {
		return err
	}
	return d.Encode(body, format)
}

// errorText is what an error image says, in the fewest words that point
// at the mistake: "no counter blgo", "bad fg"; else the public message.
// The name is drawn only once CheckName has passed it, which it has for
// a counter not found; counter.ErrorText bounds it all the same.
func errorText(err error, r *http.Request) string {
	var pe *counter.ParamError
	switch {
	case errors.As(err, &pe):
		return "bad " + pe.Param
	case errors.Is(err, counter.ErrNotFound):
		name, _, _ := cutLast(path.Base(r.URL.Path), ".")
		if counter.CheckName(name) == nil {
			return "no counter " + name
		}
	case errors.Is(err, counter.ErrNoTheme):
		if q, qerr := counter.ParseImageQuery(r.URL.RawQuery); qerr == nil && q.Style.Set != "" {
			return "no theme " + q.Style.Set
		}
	}
	_, msg := publicError(err)
	return msg
}

// cutSuffixFold is strings.CutSuffix with the suffix in any case.
func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

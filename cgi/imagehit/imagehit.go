// Package imagehit serves a counter's image: it judges a hit, counts it,
// and draws the answer, or the image of what is wrong. It takes a plain
// Request and gives back a plain Answer, and has no net/http in its
// graph, so that the hit binary (cgi/hit), which execs for nothing but a
// counted image, links none of it; the web handlers (cgi/web) serve the
// same Server over CGI, FastCGI and the local server.
package imagehit

import (
	"bytes"
	"errors"
	"path"
	"strconv"
	"strings"

	"hitcounter/cgi/gateway/cgiwire"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/counter/draw"
	"hitcounter/store"
)

// Server serves image requests. Its zero value is not usable: every
// field but Glyphs must be set.
type Server struct {
	Cfg  config.Config
	Log  *logline.Logger
	Hits Hitter
	// Visitors tells reloads and new visitors (Process.Visitors).
	Visitors seen.Visitors
	// Glyphs keeps glyphs drawn once in a long-lived process; nil in a
	// CGI process, which draws each once anyway.
	Glyphs *draw.GlyphCache
	// Open opens the file for one transaction.
	Open func(readOnly bool) (*store.DB, error)
	// SetTurns lets a long-lived process draw a few digit sets at once;
	// nil in a CGI process.
	SetTurns *SetTurns
}

// Request is what an image request says, as the transport read it.
type Request struct {
	Method   string // GET or HEAD
	Path     string // the path below the mount, /NAME.EXT, for the log
	RawQuery string
	// Header returns a header's first value, Values all of them (a
	// proxy's X-Forwarded-For, the Cookie lines); names are canonical.
	Header func(name string) string
	Values func(name string) []string
	Peer   string // the address of the client or proxy that sent it
}

// Answer is the whole answer to an image request.
type Answer struct {
	Status int
	Header []cgiwire.Field // canonical keys, each once
	// Body is the body in pieces, written one after another: a drawn
	// image's chunks as they filled, never joined into one copy. Nil
	// for HEAD.
	Body [][]byte
	// Counted says a hit was counted (or tallied): the request is timed
	// as a hit (meter.Hit).
	Counted bool
}

// Image reads an image's path segment (NAME.png, .gif or .svg, the
// extension in any case) into the counter's name and its image type.
func Image(file string) (name string, typ counter.ImageType, ok bool) {
	name, ext, _ := cutLast(file, ".")
	typ, ok = counter.ParseImageType(ext)
	return name, typ, ok
}

// Serve answers image request r for counter name in image type typ: a GET counts
// one hit, unless it asks count=0.
func (a *Server) Serve(r Request, name string, typ counter.ImageType) Answer {
	// The query is read once, into q, which every later step reads.
	q, err := counter.ParseImageQuery(r.RawQuery)
	style := q.Style
	site := siteOf(q, r.Header("Referer"))
	if err == nil {
		err = style.CheckImageType(typ)
	}
	if err == nil {
		err = counter.CheckName(name)
	}
	if err != nil {
		return a.Refuse(r, typ, err)
	}
	var n uint64
	var show counter.Show
	var theme string // the counter's default theme
	counted := false
	if r.Method == "HEAD" || !q.Count {
		var g store.Glance
		g, err = a.Glance(name, site)
		n, show, theme = g.Shown, g.Settings.Show, g.Settings.Theme
	} else {
		var c store.Counted
		var joined bool
		c, joined, err = a.hit(r, name, site, style.Set, seen.ViaImage, "", nil)
		n, show, theme = c.Shown, c.Show, c.Theme
		if joined {
			// The page's script counted this view: the image shows it.
			var g store.Glance
			g, _, err = a.ReadAfter(name, site, nil)
			n, show, theme = g.Shown, g.Settings.Show, g.Settings.Theme
		}
		// Timed as a hit: a refused one writes nothing, the costs'
		// files and fold included.
		counted = err == nil
	}
	if theme != "" && err == nil {
		// As if the tag said theme=THEME, unless it names one; a tag
		// that cannot take it (a badge) keeps its own style.
		if qt, terr := counter.ParseImageQueryTheme(r.RawQuery, theme); terr == nil {
			style = qt.Style
		}
	}
	if style.Label == "" && show == counter.ShowVisitors {
		style.Label = "visitors" // a badge says what it counts
	}
	text := style.CountText(n, func(text string) bool { return a.Glyphs.CanDraw(text, style) })
	status := statusOK
	if err != nil {
		if errors.Is(err, counter.ErrNotFound) || errors.Is(err, counter.ErrNoDigitSet) {
			return a.Refuse(r, typ, err)
		}
		// The visitor still gets a counter-shaped image; the owner the cause.
		a.Log.Printf("%s %q not counted: %v", r.Method, name, err)
		status, _, _ = PublicError(err)
		text = counter.Placeholder(style.Digits)
		if style.Set != "" && (errors.Is(err, store.ErrTimeout) || errors.Is(err, store.ErrMissing) || errors.Is(err, store.ErrLockIsDatabase) ||
			errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrUnknownOutcome)) {
			// The file cannot be read now, the set's dash with it:
			// the font's dashes, at its own size, without a second wait.
			style = fontStyle(style.Digits)
		}
	}
	var body chunkedBody
	style, err = a.drawCount(&body, name, text, typ, style, q.Style)
	if err != nil {
		ans := a.Refuse(r, typ, err)
		ans.Counted = counted
		return ans
	}
	h := NoCache(make([]cgiwire.Field, 0, 8))
	if typ == counter.SVG {
		csp := "default-src 'none'; style-src 'unsafe-inline'"
		if style.Set != "" {
			csp += "; img-src data:" // the set's own files, embedded
		}
		h = append(h, cgiwire.Field{Key: "Content-Security-Policy", Value: csp})
	}
	if typo, ok := q.Typo, q.HasTypo; ok {
		// Unknown keys are allowed (a cache-buster), so the image is
		// drawn and the hit counted as ever: a page that worked before
		// keeps working. But this one is likely a mistake in the tag.
		h = append(h, cgiwire.Field{Key: ErrorHeader, Value: typo.Message()})
		a.warnTypo(r, name, typo)
	}
	ans := answer(r, status, h, typ, body.Chunks()...)
	ans.Counted = counted
	return ans
}

// drawCount draws text in style to body: in its digit set when it names
// one, else in the font. A counter's default set that is gone draws the
// tag's own style (tag) instead. It returns the style drawn.
func (a *Server) drawCount(body *chunkedBody, name, text string, typ counter.ImageType, style, tag counter.Style) (counter.Style, error) {
	if style.Set != "" {
		err := a.drawSet(body, name, text, typ, style, tag.Set != "")
		switch {
		case errors.Is(err, errNoDash) || err != nil && text == counter.Placeholder(style.Digits):
			// A set without a dash piece, or one that cannot be read for
			// the dashes of a count not known: the font's, at its own size.
			style = fontStyle(style.Digits)
		case !errors.Is(err, errSetGone):
			return style, err
		default:
			style = tag // the font, as drawSet's log line says
		}
	}
	d, err := a.Glyphs.NewDrawing(text, style)
	if err == nil {
		err = d.Encode(body, typ)
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
func (a *Server) warnTypo(r Request, name string, typo counter.Typo) {
	v, err := a.Visitors.See(seen.Visit{Counter: name + "?typo", Now: a.Cfg.Now()})
	if err == nil && v.NewToday {
		a.Log.Printf("%s %q: %s (said once a day per counter)", r.Method, r.Path, typo.Message())
	}
}

// Refuse answers an <img> that cannot show a count with the status, the
// reason in a header, and a small image that says in a few words what is
// wrong, at the size the tag asked for, so that the owner sees the
// mistake on his page; or, with COUNTER_ERRORS=blank, a 1x1 transparent
// image. It is drawn only here, on an error.
func (a *Server) Refuse(r Request, typ counter.ImageType, err error) Answer {
	status, msg, _ := PublicError(err)
	return a.RefuseAs(r, typ, err, status, msg)
}

// RefuseAs is Refuse with the status and the public message given, for
// an error that PublicError does not know (the gateway's, the pages').
func (a *Server) RefuseAs(r Request, typ counter.ImageType, err error, status int, msg string) Answer {
	a.Log.Printf("%s %q: %v", r.Method, r.Path, err)
	var body bytes.Buffer
	if a.Cfg.BlankErrors || drawError(&body, typ, errorText(err, msg, r), counter.QuerySize(r.RawQuery)) != nil {
		body.Reset()
		draw.EncodeBlank(&body, typ)
	}
	h := NoCache(make([]cgiwire.Field, 0, 8))
	if typ == counter.SVG {
		h = append(h, cgiwire.Field{Key: "Content-Security-Policy", Value: "default-src 'none'; style-src 'unsafe-inline'"})
	}
	h = append(h, cgiwire.Field{Key: ErrorHeader, Value: msg})
	return answer(r, status, h, typ, body.Bytes())
}

// answer is a complete answer with its type and length; the body is left
// out for HEAD.
func answer(r Request, status int, h []cgiwire.Field, typ counter.ImageType, body ...[]byte) Answer {
	n := 0
	for _, b := range body {
		n += len(b)
	}
	h = append(h, cgiwire.Field{Key: "Content-Type", Value: typ.ContentType()}, cgiwire.Field{Key: "Content-Length", Value: strconv.Itoa(n)})
	if r.Method == "HEAD" {
		body = nil
	}
	return Answer{Status: status, Header: h, Body: body}
}

// drawError writes the image of an error that says text.
func drawError(body *bytes.Buffer, typ counter.ImageType, text string, size int) error {
	d, err := draw.NewErrorDrawing(text, size)
	if err != nil {
		return err
	}
	return d.Encode(body, typ)
}

// errorText is what an error image says, in the fewest words that point
// at the mistake: "no counter blgo", "bad fg"; else the public message msg.
// The name is drawn only once CheckName has passed it, which it has for
// a counter not found; counter.ErrorText bounds it all the same.
func errorText(err error, msg string, r Request) string {
	var pe *counter.ParamError
	switch {
	case errors.As(err, &pe):
		return "bad " + pe.Param
	case errors.Is(err, counter.ErrNotFound):
		name, _, _ := cutLast(path.Base(r.Path), ".")
		if counter.CheckName(name) == nil {
			return "no counter " + name
		}
	case errors.Is(err, counter.ErrNoDigitSet):
		if q, qerr := counter.ParseImageQuery(r.RawQuery); qerr == nil && q.Style.Set != "" {
			return "no theme " + q.Style.Set
		}
	}
	return msg
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

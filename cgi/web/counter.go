package web

import (
	"bytes"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/counter/costs"
	"hitcounter/counter/crawler"
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
	if r.Method == http.MethodHead || !q.Count {
		var g store.Glance
		g, err = a.glance(name, site)
		n, show = g.Shown, g.Settings.Show
	} else {
		var c store.Counted
		c, err = a.hit(r, name, site)
		n, show = c.Shown, c.Show
		if err == nil {
			// Timed as a hit: a refused one writes nothing, the costs'
			// files and fold included.
			tag(w, costs.Hit)
		}
	}
	if style.Label == "" && show == counter.ShowVisitors {
		style.Label = "visitors" // a badge says what it counts
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
	if typo, ok := q.Typo, q.HasTypo; ok {
		// Unknown keys are allowed (a cache-buster), so the image is
		// drawn and the hit counted as ever: a page that worked before
		// keeps working. But this one is likely a mistake in the tag.
		w.Header().Set(errorHeader, typo.Message())
		a.warnTypo(r, name, typo)
	}
	writeBody(w, r, status, format.ContentType(), body.Bytes())
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

// hit counts or tallies one hit on counter name and returns what the
// image shows. The database is closed before the image is drawn.
//
// A hit is decided, then written. The cheap checks come first, on the
// request alone: a prefetch, GitHub's image proxy (its User-Agent from
// its addresses), a bot. A view is then judged by the counter's settings,
// read in a read transaction: an ignored address, the owner's browser, a
// page on a host not allowed, then the visitor table on tmpfs, which
// tells a reload from a view and a new visitor from a known one. Only
// then does the write transaction open, with the outcome in hand: the
// visitor table's file and lock are never held with the database's.
//
// When the count is then not committed, the visitor table's marks are
// taken back (seen.Table.Unsee): the visitor's next hit is judged as if
// this one had never come, a view and not a reload, so a failed commit
// costs no view. A mark that cannot be taken back (the table failing in
// between) leaves that one retry a reload, as before.
func (a *App) hit(r *http.Request, name string, site siteHit) (store.Counted, error) {
	referer := r.Referer()
	v := store.Visit{Name: name, Now: a.now(), RefHost: counter.ReferrerHost(referer), Target: site.target, Image: site.image}
	client := a.clientAddr(r)
	addr, err := netip.ParseAddr(client)
	if err == nil {
		// One visitor however a front end spells his address.
		addr = addr.Unmap().WithZone("")
		client = addr.String()
	}
	v.Outcome.Kind = requestKind(r, addr)
	var j judged
	if v.Outcome.Kind == counter.View {
		facts, err := a.judging(v)
		if err != nil {
			return store.Counted{}, err
		}
		j = a.judge(r, v, facts, addr, client)
		v.Outcome = j.outcome
	}
	c, err := a.hits.Visit(v)
	if err != nil {
		for _, m := range j.marks {
			if uerr := a.visitors.Unsee(m.visit, m.verdict); uerr != nil {
				a.log.Printf("hit %q not counted, and the visitor table kept it: %v", name, uerr)
			}
		}
	}
	// One line for the hit, and none when it failed and says so in its
	// own. A crowded share says so once a day itself; a table that
	// cannot be used (rundir.Problem names the file and the fix) fails
	// every hit until it is mended, and says so on each counter's first
	// view of the day.
	if err == nil && j.crowded {
		a.log.Printf("hit %q: its share of today's visitor table is full: the visitors it saw longest ago are forgotten, and counted as new if they come back; other counters are not affected (said once a day)", name)
	}
	switch {
	case err != nil || j.unknown == nil:
	case c.FirstToday:
		// Short, for the problem and its fix to fit a log line.
		a.log.Printf("hit %q: visitor not known until mended (said once a day): %v", name, j.unknown)
	}
	if err == nil && c.PageErr != nil {
		// Not the path itself: it is the visitor's, and may be long.
		a.log.Printf("site %q: a hit named no page this can count (not a path like /posts/hello/, or one with . or .. segments): counted on the site alone", name)
	}
	if err == nil && c.FirstPastCap {
		a.log.Printf("site %q has as many pages as its max-pages: hits on new pages count under %s today", name, counter.OtherPages)
	}
	return c, err
}

// judging reads what hit v is judged by, in a read transaction of its
// own, closed before the judging starts.
func (a *App) judging(v store.Visit) (store.Judging, error) {
	db, err := a.open(true)
	if err != nil {
		return store.Judging{}, err
	}
	defer db.Close()
	return db.Judging(v)
}

// judged is what judge made of a view.
type judged struct {
	outcome counter.Outcome
	// marks are what the visitor table wrote, to take back if the hit
	// is not committed.
	marks   []mark
	unknown error // why the visitor could not be told apart
	crowded bool  // the counter's share of the visitor table forgot someone, first today
}

// mark is one visit the visitor table recorded, and its verdict.
type mark struct {
	visit   seen.Visit
	verdict seen.Verdict
}

// judge judges view v, which the request alone calls a view, from what
// the counter's settings say (j), from client address addr (client as
// text).
func (a *App) judge(r *http.Request, v store.Visit, j store.Judging, addr netip.Addr, client string) judged {
	s := j.Settings
	if addr.IsValid() && s.Ignores(addr) {
		return judged{outcome: counter.Outcome{Kind: counter.Ignored}}
	}
	if ownerMarked(r, v.Name, j.OwnerKey) {
		return judged{outcome: counter.Outcome{Kind: counter.Owner}}
	}
	// A Referer that names no host this can read (too long, not
	// http) is no page on an allowed site: only a missing one counts.
	unreadable := r.Referer() != "" && v.RefHost == "" && s.LimitsReferrers()
	if unreadable || !s.AllowsReferrer(v.RefHost) {
		return judged{outcome: counter.Outcome{Kind: counter.Foreign}}
	}
	var out judged
	// A view by a visitor not known: a missing run directory must not
	// cost a count.
	out.outcome, out.unknown = a.seeVisitor(seen.Visit{Counter: v.Name, Page: j.Page, Addr: client, UserAgent: r.UserAgent(), Now: v.Now, Window: s.Reload}, &out)
	return out
}

// seeVisitor asks the visitor table whether sv is a reload, a view by a
// visitor new today or a view by one known, and records in out what the
// table wrote (its marks) and whether it said the counter's share forgot
// a visitor, first today. On a site's page (sv.Page not "") the reload
// window and the page's visitors are the page's, and the site's visitors
// are asked for apart, with no window: a visitor who goes on to the next
// page is no reload.
func (a *App) seeVisitor(sv seen.Visit, out *judged) (counter.Outcome, error) {
	verdict, err := a.visitors.See(sv)
	if err != nil {
		return counter.Outcome{Kind: counter.View}, err
	}
	out.marks = append(out.marks, mark{sv, verdict})
	out.crowded = verdict.Crowded
	if verdict.Reload {
		return counter.Outcome{Kind: counter.Reload}, nil
	}
	o := counter.Outcome{Kind: counter.View, NewVisitor: verdict.NewToday}
	if sv.Page == "" {
		return o, nil
	}
	o.PageVisitor = verdict.NewToday
	site := sv
	site.Page, site.Window = "", 0
	verdict, err = a.visitors.See(site)
	if err == nil {
		out.marks = append(out.marks, mark{site, verdict})
	}
	out.crowded = out.crowded || verdict.Crowded
	o.NewVisitor = err == nil && verdict.NewToday
	return o, err
}

// siteHit is what a hit says of a site's page; a plain counter ignores it.
type siteHit struct {
	target string         // the page as the tag or the Referer gives it
	image  *counter.Image // the tag's show=page|site, nil for the site's
}

// siteOf is what an image's query q, and the Referer when q names no
// page, say of a site's page.
func siteOf(q counter.ImageQuery, referer string) siteHit {
	h := siteHit{target: q.Page, image: q.Image}
	if !q.HasPage {
		if t, ok := counter.RefererTarget(referer); ok {
			h.target = t
		}
	}
	return h
}

// siteParams reads what a site's hit says of its page: the tag's
// page=PATH, or else the Referer's path, and the tag's show=page|site.
func siteParams(rawQuery, referer string) (siteHit, error) {
	var h siteHit
	if p, ok, err := queryValue(rawQuery, "page"); err != nil {
		return h, err
	} else if ok {
		h.target = p
	} else if t, ok := counter.RefererTarget(referer); ok {
		h.target = t
	}
	show, ok, err := queryValue(rawQuery, "show")
	if err != nil || !ok {
		return h, err
	}
	i, ok := counter.ParseImage(show)
	if !ok {
		return h, &counter.ParamError{Param: "show", Reason: "must be page or site"}
	}
	h.image = &i
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

// maxUserAgent bounds the User-Agent a hit from a browser may send:
// browsers send a few hundred bytes, and a longer one, made to make the
// crawler patterns work hard, is judged a bot without asking them.
const maxUserAgent = 1024

// requestKind judges a hit from client address addr (the zero Addr when
// it is not one) on the request alone: a prefetch, a view through GitHub's
// image proxy, a bot, or, for all it says, a view. GitHub's User-Agent
// from any other address is judged as any other: the crawler list holds
// it, so it is a bot's.
func requestKind(r *http.Request, addr netip.Addr) counter.Kind {
	ua := r.UserAgent()
	switch {
	case counter.IsPrefetch(r.Header.Get):
		return counter.Prefetch
	case counter.IsGitHubCamo(ua, addr):
		return counter.GitHub
	case strings.TrimSpace(ua) == "" || len(ua) > maxUserAgent || crawler.IsCrawler(ua):
		return counter.Bot
	}
	return counter.View
}

// hitter counts hits: a store.Batcher in a long-lived process, where hits
// that arrive together share a commit, or oneShot.
type hitter interface {
	Visit(v store.Visit) (store.Counted, error)
}

// oneShot counts a hit in a transaction of its own, for a CGI process.
type oneShot struct{ a *App }

func (o oneShot) Visit(v store.Visit) (store.Counted, error) {
	db, err := o.a.open(false)
	if err != nil {
		return store.Counted{}, err
	}
	c, err := db.Visit(v)
	if cerr := db.Close(); cerr != nil && err == nil {
		o.a.log.Printf("hit %q counted, then: %v", v.Name, cerr)
	}
	return c, err
}

// glance reads counter name, and on a site the page site names, as it
// stands, counting nothing.
func (a *App) glance(name string, site siteHit) (store.Glance, error) {
	db, err := a.open(true)
	if err != nil {
		return store.Glance{}, err
	}
	defer db.Close()
	return db.Glance(name, site.target, site.image, a.now())
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
		counter.EncodeBlank(&body, format)
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
	d, err := counter.NewErrorDrawing(text, size)
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
	}
	_, msg := publicError(err)
	return msg
}

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
	var site siteHit
	if err == nil && len(r.URL.RawQuery) > counter.MaxQueryLen {
		err = &counter.ParamError{Param: "query", Reason: "longer than " + strconv.Itoa(counter.MaxQueryLen) + " bytes"}
	}
	if err == nil {
		site, err = siteParams(r.URL.RawQuery, r.Referer())
	}
	if err != nil {
		return store.Glance{}, err
	}
	return a.glance(name, site)
}

// serveShields answers /NAME.shields.json in the schema of shields.io's
// endpoint badge, so that a README can show the count in a badge
// service's styles (https://shields.io/badges/endpoint-badge). It counts
// nothing: the badge service asks again each time it draws the badge.
func (a *App) serveShields(w http.ResponseWriter, r *http.Request, name string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	g, err := a.glanceQuery(r, name)
	label := "views"
	if g.Settings.Show == counter.ShowVisitors {
		label = "visitors"
	}
	if err != nil {
		status, msg := publicError(err)
		a.log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
		writeJSON(w, r, status, jsonCount("schemaVersion", 1), jsonString("label", label),
			jsonString("message", msg), jsonString("color", "lightgrey"), jsonBool("isError", true))
		return
	}
	tag(w, costs.JSON)
	writeJSON(w, r, http.StatusOK, jsonCount("schemaVersion", 1), jsonString("label", label),
		jsonString("message", strconv.FormatUint(g.Shown, 10)), jsonString("color", "blue"))
}

// cutSuffixFold is strings.CutSuffix with the suffix in any case.
func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// dayKeyOf is the UTC day of t as the exports write it.
func dayKeyOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

package web

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/counter/crawler"
	"hitcounter/store"
)

// hit counts or tallies one hit on counter name and returns what the
// image shows. The database is closed before the image is drawn. set is
// the digit set the tag names, "" for none: one not in the database
// fails the hit (counter.ErrNoTheme) and counts nothing.
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
func (a *App) hit(r *http.Request, name string, site siteHit, set string) (store.Counted, error) {
	referer := r.Referer()
	v := store.Visit{Name: name, Now: a.now(), RefHost: counter.ReferrerHost(referer), Target: site.target, Image: site.image, Set: set}
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

// judging reads what hit v is judged by, in a read transaction closed
// before the judging starts: its own under CGI (oneShot), shared with the
// hits that come with it in a long-lived process (store.Batcher).
func (a *App) judging(v store.Visit) (store.Judging, error) {
	return a.hits.Judging(v)
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
// image proxy, a bot (its User-Agent headers as Crawler-Detect reads
// them, Sec-CH-UA and From among them, or a link preview's), or, for all
// it says, a view. GitHub's User-Agent
// from any other address is judged as any other: the crawler list holds
// it, so it is a bot's.
func requestKind(r *http.Request, addr netip.Addr) counter.Kind {
	ua := r.UserAgent()
	switch {
	case counter.IsPrefetch(r.Header.Get):
		return counter.Prefetch
	case counter.IsGitHubCamo(ua, addr):
		return counter.GitHub
	case strings.TrimSpace(ua) == "" || len(ua) > maxUserAgent || crawler.IsBotRequest(r.Header.Get):
		return counter.Bot
	}
	return counter.View
}

// hitter counts hits: a store.Batcher in a long-lived process, where hits
// that arrive together share a commit, or oneShot.
type hitter interface {
	Judging(v store.Visit) (store.Judging, error)
	Visit(v store.Visit) (store.Counted, error)
}

// oneShot counts a hit in a transaction of its own, for a CGI process.
type oneShot struct{ a *App }

func (o oneShot) Judging(v store.Visit) (store.Judging, error) {
	db, err := o.a.open(true)
	if err != nil {
		return store.Judging{}, err
	}
	defer db.Close()
	return db.Judging(v)
}

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

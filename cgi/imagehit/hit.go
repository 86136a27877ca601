package imagehit

import (
	"fmt"
	"net/netip"
	"strings"

	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/counter/crawler"
	"hitcounter/store"
)

// hit counts or tallies one hit on counter name and returns what the
// image shows. The database is closed before the image is drawn. set is
// the digit set the tag names, "" for none: one not in the database
// fails the hit (counter.ErrNoDigitSet) and counts nothing.
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
//
// via says whether the page's image or its script asks, source is the
// host of the page's own referrer that a script sends, list the pages
// whose figures it shows (store.Visit.List). When the other
// of the two came first for the same view, the hit is joined to it
// (seen.Verdict.Joined) and counts nothing: in a long-lived process, or
// a script's that carries a source the counter keeps, it goes to the
// store as a store.Visit.Joined, which writes that source alone, and c
// is what its transaction read, that view in it; otherwise nothing is
// written, and joined is set for the caller to read after the writers.
func (a *Server) hit(r Request, name string, site SiteHit, set string, via seen.Via, source string, list []string) (c store.Counted, joined bool, err error) {
	referer := r.Header("Referer")
	v := store.Visit{Name: name, Now: a.Cfg.Now(), RefHost: counter.ReferrerHost(referer), Source: source, Target: site.Target, Image: site.Image, Set: set, List: list}
	client := ClientAddr(r.Peer, r.Values("X-Forwarded-For"), a.Cfg.TrustedProxies)
	addr, err := netip.ParseAddr(client)
	if err == nil {
		// One visitor however a front end spells his address.
		addr = addr.Unmap().WithZone("")
		client = addr.String()
	}
	v.Outcome.Kind = requestKind(r, addr)
	var j judged
	if v.Outcome.Kind == counter.View {
		facts, err := a.hitFacts(v)
		if err != nil {
			return store.Counted{}, false, err
		}
		j = a.judge(r, v, facts, addr, client, via)
		if j.quiet {
			// A reload brings no reader: no source.
			v.Source = ""
		}
		if j.joined || j.quiet {
			// A CGI process with nothing to write reads after the
			// writers queued on the file (ReadAfter). A long-lived
			// process sends it as a hit, even with nothing to write, so
			// that its batcher queues it behind the view the other
			// request may still be waiting to write in the same process.
			if _, oneShot := a.Hits.(OneShot); oneShot && facts.Settings.Source(v.Source, v.RefHost) == "" {
				return store.Counted{}, true, nil
			}
			v.Joined = true
			c, err = a.Hits.Visit(v)
			return c, false, err
		}
		v.Outcome = j.outcome
	}
	c, err = a.Hits.Visit(v)
	if err != nil {
		var kept error
		for _, m := range j.marks {
			if uerr := a.Visitors.Unsee(m.visit, m.verdict); uerr != nil && kept == nil {
				kept = uerr
			}
		}
		if kept != nil {
			// Said in the hit's own line: a cluster that lost its
			// majority fails both, and one line a hit is enough.
			err = fmt.Errorf("%w; and the visitor table kept it: %v", err, kept)
		}
	}
	// One line for the hit, and none when it failed and says so in its
	// own. A crowded share says so once a day itself; a table that
	// cannot be used (rundir.Problem names the file and the fix) fails
	// every hit until it is mended, and says so on each counter's first
	// view of the day.
	if err == nil && j.crowded {
		a.Log.Printf("hit %q: its share of today's visitor table is full: the visitors it saw longest ago are forgotten, and counted as new if they come back; other counters are not affected (said once a day)", name)
	}
	switch {
	case err != nil || j.unknown == nil:
	case c.FirstToday:
		// Short, for the problem and its fix to fit a log line.
		a.Log.Printf("hit %q: visitor not known until mended (said once a day): %v", name, j.unknown)
	}
	if err == nil && c.PageErr != nil {
		// Not the path itself: it is the visitor's, and may be long.
		a.Log.Printf("site %q: a hit named no page this can count (not a path like /posts/hello/, or one with . or .. segments): counted on the site alone", name)
	}
	if err == nil && c.FirstPastCap {
		a.Log.Printf("site %q has as many pages as its max-pages: hits on new pages count under %s today", name, counter.OtherPages)
	}
	return c, false, err
}

// hitFacts reads what hit v is judged by, in a read transaction closed
// before the judging starts: its own under CGI (oneShot), shared with the
// hits that come with it in a long-lived process (store.Batcher).
func (a *Server) hitFacts(v store.Visit) (store.HitFacts, error) {
	return a.Hits.HitFacts(v)
}

// judged is what judge made of a view.
type judged struct {
	outcome counter.Outcome
	// marks are what the visitor table wrote, to take back if the hit
	// is not committed.
	marks   []mark
	unknown error // why the visitor could not be told apart
	crowded bool  // the counter's share of the visitor table forgot someone, first today
	// joined is the other request of a view already counted (the image
	// of a page whose script came first, or the other way round).
	joined bool
	// quiet is a reload of a page's script whose image reloads too
	// (seen.Verdict.Quiet): written as joined is, not as a reload.
	quiet bool
}

// mark is one visit the visitor table recorded, and its verdict.
type mark struct {
	visit   seen.Visit
	verdict seen.Verdict
}

// judge judges view v, which the request alone calls a view, from what
// the counter's settings say (j), from client address addr (client as
// text), asked by via.
func (a *Server) judge(r Request, v store.Visit, j store.HitFacts, addr netip.Addr, client string, via seen.Via) judged {
	s := j.Settings
	if addr.IsValid() && s.Ignores(addr) {
		return judged{outcome: counter.Outcome{Kind: counter.Ignored}}
	}
	if OwnerMarked(r.Values("Cookie"), v.Name, j.OwnerKey) {
		return judged{outcome: counter.Outcome{Kind: counter.Owner}}
	}
	// A Referer that names no host this can read (too long, not
	// http) is no page on an allowed site: only a missing one counts.
	unreadable := r.Header("Referer") != "" && v.RefHost == "" && s.LimitsReferrers()
	if unreadable || !s.AllowsReferrer(v.RefHost) {
		return judged{outcome: counter.Outcome{Kind: counter.Foreign}}
	}
	var out judged
	// A view by a visitor not known: a missing run directory must not
	// cost a count.
	out.outcome, out.unknown = a.seeVisitor(seen.Visit{Counter: v.Name, Page: j.Page, Addr: client, UserAgent: r.Header("User-Agent"), Now: v.Now, Window: s.Reload, Via: via}, &out)
	return out
}

// seeVisitor asks the visitor table whether sv is a reload, a view by a
// visitor new today or a view by one known, and records in out what the
// table wrote (its marks) and whether it said the counter's share forgot
// a visitor, first today. On a site's page (sv.Page not "") the reload
// window and the page's visitors are the page's, and the site's visitors
// are asked for apart, with no window: a visitor who goes on to the next
// page is no reload.
func (a *Server) seeVisitor(sv seen.Visit, out *judged) (counter.Outcome, error) {
	verdict, err := a.Visitors.See(sv)
	if err != nil {
		return counter.Outcome{Kind: counter.View}, err
	}
	if verdict.Joined {
		out.joined = true
		return counter.Outcome{}, nil
	}
	out.marks = append(out.marks, mark{sv, verdict})
	out.crowded = verdict.Crowded
	if verdict.Reload {
		out.quiet = verdict.Quiet
		return counter.Outcome{Kind: counter.Reload}, nil
	}
	o := counter.Outcome{Kind: counter.View, NewVisitor: verdict.NewToday}
	if sv.Page == "" {
		return o, nil
	}
	o.PageVisitor = verdict.NewToday
	site := sv
	site.Page, site.Window, site.Via = "", 0, seen.ViaNone
	verdict, err = a.Visitors.See(site)
	if err == nil {
		out.marks = append(out.marks, mark{site, verdict})
	}
	out.crowded = out.crowded || verdict.Crowded
	o.NewVisitor = err == nil && verdict.NewToday
	return o, err
}

// SiteHit is what a hit says of a site's page; a plain counter ignores it.
type SiteHit struct {
	Target string         // the page as the tag or the Referer gives it
	Image  *counter.Image // the tag's show=page|site, nil for the site's
}

// siteOf is what an image's query q, and the Referer when q names no
// page, say of a site's page.
func siteOf(q counter.ImageQuery, referer string) SiteHit {
	h := SiteHit{Target: q.Page, Image: q.Image}
	if !q.HasPage {
		if t, ok := counter.RefererTarget(referer); ok {
			h.Target = t
		}
	}
	return h
}

// MaxUserAgent bounds the User-Agent a hit from a browser may send:
// browsers send a few hundred bytes, and a longer one, made to make the
// crawler patterns work hard, is judged a bot without asking them.
const MaxUserAgent = 1024

// requestKind judges a hit from client address addr (the zero Addr when
// it is not one) on the request alone: a prefetch, a view through GitHub's
// image proxy, a bot (its User-Agent headers as Crawler-Detect reads
// them, Sec-CH-UA and From among them, or a link preview's), or, for all
// it says, a view. GitHub's User-Agent
// from any other address is judged as any other: the crawler list holds
// it, so it is a bot's.
func requestKind(r Request, addr netip.Addr) counter.Kind {
	ua := r.Header("User-Agent")
	switch {
	case counter.IsPrefetch(r.Header):
		return counter.Prefetch
	case counter.IsGitHubCamo(ua, addr):
		return counter.GitHub
	case strings.TrimSpace(ua) == "" || len(ua) > MaxUserAgent || crawler.IsBotRequest(r.Header):
		return counter.Bot
	}
	return counter.View
}

// Hitter counts hits: a store.Batcher in a long-lived process, where hits
// that arrive together share a commit, or OneShot.
type Hitter interface {
	HitFacts(v store.Visit) (store.HitFacts, error)
	Visit(v store.Visit) (store.Counted, error)
}

// OneShot counts a hit in a transaction of its own, for a CGI process:
// Open opens the file for one transaction.
type OneShot struct {
	Open func(readOnly bool) (*store.DB, error)
	Log  *logline.Logger
}

// HitFacts reads what v is judged by, in a read transaction of its own.
func (o OneShot) HitFacts(v store.Visit) (store.HitFacts, error) {
	db, err := o.Open(true)
	if err != nil {
		return store.HitFacts{}, err
	}
	defer db.Close()
	return db.HitFacts(v)
}

// Visit counts v in a write transaction of its own.
func (o OneShot) Visit(v store.Visit) (store.Counted, error) {
	db, err := o.Open(false)
	if err != nil {
		return store.Counted{}, err
	}
	c, err := db.Visit(v)
	if cerr := db.Close(); cerr != nil && err == nil {
		o.Log.Printf("hit %q counted, then: %v", v.Name, cerr)
	}
	return c, err
}

// Glance reads counter name, and on a site the page site names, as it
// stands, counting nothing.
func (a *Server) Glance(name string, site SiteHit) (store.Glance, error) {
	db, err := a.Open(true)
	if err != nil {
		return store.Glance{}, err
	}
	defer db.Close()
	return db.Glance(name, site.Target, site.Image, a.Cfg.Now())
}

// ReadAfter reads counter name as Glance does, and each of pages (see
// store.DB.GlancePages), once every hit already waiting to be written
// has been: it opens the file as a writer does, so that its lock queues
// behind theirs. A request joined to the view another one counted reads
// so, and shows that view, which the other's process may still be
// committing.
func (a *Server) ReadAfter(name string, site SiteHit, pages []string) (store.Glance, []store.PageCount, error) {
	db, err := a.Open(false)
	if err != nil {
		return store.Glance{}, nil, err
	}
	defer db.Close()
	return db.GlancePages(name, site.Target, site.Image, pages, a.Cfg.Now())
}

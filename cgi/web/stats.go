package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

// statsView is a counter's history with what is needed to check a session.
type statsView struct {
	history    counter.History
	sessionKey []byte
	owner      store.OwnerLogin // read only when the request has an owner's session cookie
	ownerKey   []byte           // read only when the request has an owner cookie
	site       *siteView
	costs      *costView // read only for the statistics page itself
	sets       []string  // the sets added, likewise
}

// loadStats reads the counter's history from since on, the session key
// when the statistics are protected, the owner's login when r carries an
// owner's session cookie, and the owner key when r carries an owner cookie, in one short read-only open; then, for a site's page of
// statistics over a period, its pages' figures (sumPages).
func (a *App) loadStats(r *http.Request, name string, since time.Time) (statsView, error) {
	v, err := a.readStats(r, name, since)
	if err == nil && v.site != nil && !v.site.from.IsZero() {
		err = a.sumPages(name, v.site)
	}
	return v, err
}

// readStats is loadStats's open of the file.
func (a *App) readStats(r *http.Request, name string, since time.Time) (statsView, error) {
	var v statsView
	if err := counter.CheckName(name); err != nil {
		return v, err
	}
	db, err := a.open(true)
	if err != nil {
		return v, err
	}
	defer db.Close()
	if v.history, err = db.History(name, since); err != nil {
		return v, err
	}
	if v.history.Protected() {
		v.sessionKey, err = db.SessionKey(name)
		if errors.Is(err, store.ErrNoSessionKey) {
			err = nil // no session can be valid; the login makes the key
		}
		if err != nil {
			return v, err
		}
	}
	if len(cookieTokens(r, ownerSessionCookie)) > 0 {
		if v.owner, err = db.OwnerLogin(); err != nil {
			return v, err
		}
	}
	if len(r.CookiesNamed(ownerCookie)) > 0 {
		if v.ownerKey, err = db.OwnerKeyIfMade(); err != nil {
			return v, err
		}
	}
	// The page of a site's statistics shows its pages, read only for a
	// request that may see them: the exports read them on their own, and
	// the other pages need none.
	if r.URL.Path == "/"+name+"/stats" && a.authorised(r, v) {
		if v.history.Settings.IsSite() {
			v.site, err = a.loadSite(r, db, v.history, since)
		}
		if err != nil {
			return v, err
		}
		v.costs = a.loadCosts(db)
		v.sets, err = db.DigitSetNames()
	}
	return v, err
}

// authorised reports whether r may see the statistics of v: they are
// public, or r carries a valid session of the counter or of the owner. It
// never runs bcrypt.
func (a *App) authorised(r *http.Request, v statsView) bool {
	return !v.history.Protected() || a.counterSession(r, v) || a.ownerIn(r, v.owner)
}

// counterSession reports whether r carries a valid session of v's
// counter: the one its logout ends.
func (a *App) counterSession(r *http.Request, v statsView) bool {
	h := v.history
	return h.Protected() && door{h.Name}.anySession(lock{h.PasswordHash, v.sessionKey}, cookieTokens(r, sessionCookie), a.now())
}

// serveStats answers /NAME/stats: the statistics page, or the login form
// when they are protected and r has no session.
func (a *App) serveStats(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	v, err := a.loadStats(r, name, a.now().AddDate(0, 0, -counter.ChartDays))
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	tag(w, meter.Stats)
	if !a.authorised(r, v) {
		writeHTML(w, r, http.StatusOK, loginPage(name, ""))
		return
	}
	owner := ownerMarked(r, name, v.ownerKey)
	if v.site != nil && v.site.page != nil {
		writeHTML(w, r, http.StatusOK, pagePage(counter.Summarise(*v.site.page, a.now())))
		return
	}
	writeHTML(w, r, http.StatusOK, statsPage(counter.Summarise(v.history, a.now()), owner, v.site, v.costs, v.sets, a.logoutAction(r, v)))
}

// logoutAction is where the statistics page's logout form posts: the
// counter's logout for a browser with the counter's session, which ends
// its sessions; else the owner's, for the owner's; "" for none.
func (a *App) logoutAction(r *http.Request, v statsView) string {
	switch {
	case a.counterSession(r, v):
		return "logout"
	case a.ownerIn(r, v.owner):
		return "../logout"
	}
	return ""
}

// statsPage is the statistics page; logout is the action of its logout
// form, "" for none.
func statsPage(s counter.Stats, owner bool, site *siteView, cost *costView, sets []string, logout string) *htmlPage {
	p := &htmlPage{}
	p.begin(s.Name + " · statistics")
	p.raw("<h1>")
	p.text(s.Name)
	if site != nil {
		p.raw(` <span class="tag">site</span>`)
	}
	p.raw(`</h1><p class="sub">Days are UTC; today is `)
	p.text(s.Now.Format(time.DateOnly))
	if s.FirstDay != "" {
		p.raw(". First hit on ")
		p.text(s.FirstDay)
	} else {
		p.raw(". No hits yet")
	}
	p.raw(".</p>\n")
	if !s.Protected {
		publicNote(p, s.Name)
	}
	if t := s.TalliedSince; !t.IsZero() && t.After(s.Created) {
		p.raw(`<p class="note">Visitors and hits not counted are kept since `)
		p.text(t.UTC().Format(time.DateOnly))
		p.raw(". Before that, every hit was counted as a view.</p>\n")
	}
	figures(p, "Views", "every hit that counted", s.Show == counter.ShowViews,
		[4]uint64{s.Today.Views, s.Last7.Views, s.Last30.Views, s.Total})
	figures(p, "Unique visitors", "each visitor once a day", s.Show == counter.ShowVisitors,
		[4]uint64{s.Today.Visitors, s.Last7.Visitors, s.Last30.Visitors, s.Visitors})
	p.raw("<h2>Views and visitors per day, last ", itoa(counter.ChartDays), " days</h2>\n")
	p.raw(`<p class="legend"><span class="key views"></span>views <span class="key visitors"></span>visitors</p>`, "\n")
	writeChart(p, s.Chart)
	if site != nil {
		writePages(p, site)
	}
	notCounted(p, s)
	referrers(p, s)
	sources(p, s)
	writeCosts(p, cost)
	looks(p, s.Name, sets)
	ownerForm(p, owner)
	p.raw(`<div class="foot"><span>Daily history: <a href="stats.csv">CSV</a> · <a href="stats.json">JSON</a></span>`)
	if logout != "" {
		p.raw(`<form method="post" action="`, logout, `"><button type="submit">Log out</button></form>`)
	}
	p.raw("</div>\n")
	p.end()
	return p
}

// looks shows the count in each built-in look (as a PNG) and each set
// added with digitset add (as a GIF, which animates an animated set), shown
// without counting (count=0), with the tag that asks for it.
func looks(p *htmlPage, name string, sets []string) {
	p.raw("<h2>Looks</h2>\n<p class=\"sub\">Your count in each built-in look and each digit set added with <code>digitset add</code> (shown here without counting), and its tag.</p>\n")
	for i, look := range append(counter.LookNames(), sets...) {
		ext := ".png"
		if i >= len(counter.LookNames()) {
			ext = ".gif"
		}
		p.raw(`<p class="look"><img src="../`)
		p.text(name)
		p.raw(ext, `?theme=`)
		p.text(look)
		p.raw(`&amp;count=0" alt="`)
		p.text(look)
		p.raw(`"><br><code>&lt;img src="/cgi-bin/counter.cgi/`)
		p.text(name)
		p.raw(ext, `?theme=`)
		p.text(look)
		p.raw(`" alt="visitors"&gt;</code></p>`, "\n")
	}
}

// publicNote says that the statistics of counter name have no password,
// and the command that gives them one, as the README has it.
func publicNote(p *htmlPage, name string) {
	p.raw(`<p class="note public">This page is public: anyone who has its address can see these figures. `,
		`To protect it with a password, run on the server: <code>sudo -u www-data counter passwd `)
	p.text(name)
	p.raw("</code></p>\n")
}

// figures writes one group of cards: today, the last 7 and 30 days and
// the total, marked when it is what the counter's image shows.
func figures(p *htmlPage, title, what string, shown bool, n [4]uint64) {
	p.raw(`<section class="fig`)
	if shown {
		p.raw(` shown`)
	}
	p.raw(`"><h2>`, title)
	if shown {
		p.raw(` <span class="tag">on the image</span>`)
	}
	p.raw(`</h2><p class="sub">`, what, "</p>\n<div class=\"cards\">\n")
	for i, label := range [4]string{"today", "last 7 days", "last 30 days", "total"} {
		p.raw(`<div class="card"><b>`)
		p.text(group(n[i]))
		p.raw(`</b><span>`, label, "</span></div>\n")
	}
	p.raw("</div></section>\n")
}

// kindLabels name the hits not counted on the page, and say in plain
// words what each is; reloads are explained from the counter's window.
var kindLabels = [...]struct {
	kind        counter.Kind
	name, means string
}{
	{counter.Reload, "Reloads", ""},
	{counter.Bot, "Bots", "crawlers, link previews, scripts like curl"},
	{counter.Prefetch, "Prefetches", "the browser fetched the page ahead of a click"},
	{counter.Owner, "Owner", "your own browser, marked below"},
	{counter.Foreign, "Foreign pages", "the image shown on a page of a site not on your list"},
	{counter.Ignored, "Ignored addresses", "an address on your ignore list"},
}

// notCounted writes the hits that reached the counter without adding to
// it, by kind, and the views that came through GitHub's proxy.
func notCounted(p *htmlPage, s counter.Stats) {
	p.raw("<h2>Hits not counted</h2>\n<p class=\"sub\">They reached the counter but did not add to it.</p>\n")
	p.raw(`<table class="kinds"><thead><tr><th>hit</th><th class="n">today</th><th class="n">7 days</th><th class="n">30 days</th></tr></thead><tbody>`, "\n")
	row := func(class, name, means string, n [3]uint64) {
		p.raw("<tr")
		if class != "" {
			p.raw(` class="`, class, `"`)
		}
		p.raw("><td>", name)
		if means != "" {
			p.raw("<small>")
			p.text(means)
			p.raw("</small>")
		}
		p.raw("</td>")
		for _, v := range n {
			p.raw(`<td class="n">`)
			p.text(group(v))
			p.raw("</td>")
		}
		p.raw("</tr>\n")
	}
	for _, k := range kindLabels {
		means := k.means
		if k.kind == counter.Reload {
			means = reloadMeans(s.Reload)
		}
		row("", k.name, means, [3]uint64{s.Today.NotCounted[k.kind], s.Last7.NotCounted[k.kind], s.Last30.NotCounted[k.kind]})
	}
	row("sum", "All not counted", "", [3]uint64{s.Today.AllNotCounted(), s.Last7.AllNotCounted(), s.Last30.AllNotCounted()})
	p.raw("</tbody><tbody class=\"counted\">\n")
	row("", "Views via GitHub", "counted as views, never as visitors: GitHub’s proxy fetches the image for every reader",
		[3]uint64{s.Today.GitHub, s.Last7.GitHub, s.Last30.GitHub})
	p.raw("</tbody></table>\n")
}

// reloadMeans explains a reload with the counter's own window.
func reloadMeans(window time.Duration) string {
	if window <= 0 {
		return "none: this counter counts a visitor's every hit"
	}
	return "the same visitor again within " + plainDuration(window)
}

// plainDuration writes d in the largest whole unit: 30 minutes, 2 hours.
func plainDuration(d time.Duration) string {
	n, unit := int64(d/time.Second), "second"
	switch {
	case d%time.Hour == 0:
		n, unit = int64(d/time.Hour), "hour"
	case d%time.Minute == 0:
		n, unit = int64(d/time.Minute), "minute"
	}
	s := strconv.FormatInt(n, 10) + " " + unit
	if n != 1 {
		s += "s"
	}
	return s
}

// referrers writes the top referring sites.
func referrers(p *htmlPage, s counter.Stats) {
	p.raw("<h2>Top referring sites</h2>\n")
	if len(s.Referrers) == 0 && s.OtherReferrers == 0 {
		p.raw("<p class=\"sub\">No hits came with a referring page yet.</p>\n")
		return
	}
	p.raw(`<table><thead><tr><th>site</th><th class="n">hits</th></tr></thead><tbody>`, "\n")
	row := func(host string, hits uint64) {
		p.raw("<tr><td>")
		p.text(host)
		p.raw(`</td><td class="n">`)
		p.text(group(hits))
		p.raw("</td></tr>\n")
	}
	for _, ref := range s.Referrers {
		row(ref.Host, ref.Hits)
	}
	if s.OtherReferrers > 0 {
		row("all other sites", s.OtherReferrers)
	}
	p.raw("</tbody></table>\n")
}

// sources writes where readers came from, the groups of search engines
// and social sites marked as such.
func sources(p *htmlPage, s counter.Stats) {
	p.raw("<h2>Where readers came from</h2>\n")
	if len(s.Sources) == 0 && s.OtherSources == 0 {
		p.raw("<p class=\"sub\">No views came with the page's own referrer yet: only the script (NAME.js) sees it, never the image.</p>\n")
		return
	}
	p.raw("<p class=\"sub\">The site of the page that readers followed a link on, as the script saw it: its host alone, search engines and social sites as one each.</p>\n")
	sourcesTable(p, s.Sources, s.OtherSources)
}

// sourcesTable writes the table of where readers came from: each source,
// search engines and social sites tagged as such, and the rest in one row.
func sourcesTable(p *htmlPage, sources []counter.Referrer, other uint64) {
	p.raw(`<table><thead><tr><th>source</th><th class="n">views</th></tr></thead><tbody>`, "\n")
	row := func(source, kind string, views uint64) {
		p.raw("<tr><td>")
		p.text(source)
		if kind != "" {
			p.raw(` <span class="tag">`)
			p.text(kind)
			p.raw(`</span>`)
		}
		p.raw(`</td><td class="n">`)
		p.text(group(views))
		p.raw("</td></tr>\n")
	}
	for _, s := range sources {
		row(s.Host, counter.SourceKind(s.Host), s.Hits)
	}
	if other > 0 {
		row("all other sources", "", other)
	}
	p.raw("</tbody></table>\n")
}

// ownerForm says whether this browser's hits count, with the one button
// that turns it over.
func ownerForm(p *htmlPage, marked bool) {
	p.raw("<h2>This browser</h2>\n<form class=\"owner\" method=\"post\" action=\"owner\">")
	if marked {
		p.raw(`<p><b>This browser is not counted.</b> Its hits on this counter are kept apart as the owner's.</p>`,
			`<input type="hidden" name="count" value="yes"><button type="submit">Count this browser again</button>`)
	} else {
		p.raw(`<p><b>This browser is counted.</b> Mark it as yours, and its hits on this counter are kept apart as the owner's.</p>`,
			`<input type="hidden" name="count" value="no"><button type="submit">Don’t count this browser</button>`)
	}
	p.raw("</form>\n")
}

// loginPage is the form that stands in for protected statistics.
func loginPage(name, message string) *htmlPage {
	p := &htmlPage{}
	p.begin(name + " · log in")
	p.raw("<h1>")
	p.text(name)
	p.raw("</h1><p class=\"sub\">The statistics of this counter are protected by a password.</p>\n")
	loginForm(p, message)
	p.end()
	return p
}

// loginForm writes message, if any, and the form that posts a password to
// login beside the page: a counter's, or at the root the owner's.
func loginForm(p *htmlPage, message string) {
	if message != "" {
		p.raw(`<p class="msg" role="alert">`)
		p.text(message)
		p.raw("</p>\n")
	}
	p.raw(`<form class="login" method="post" action="login">
<label>Password<br><input type="password" name="password" autocomplete="current-password" maxlength="72" required autofocus></label>
<button type="submit">Log in</button>
</form>
`)
}

// group writes n with thin spaces between thousands: 12 345.
func group(n uint64) string {
	s := strconv.FormatUint(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3*3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, "\u2009"...)
		}
		out = append(out, s[i])
	}
	return string(out)
}

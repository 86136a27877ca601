package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// statsView is a counter's history with what is needed to check a session.
type statsView struct {
	history    counter.History
	sessionKey []byte
}

// loadStats reads the counter's history from since on, and the session
// key when the statistics are protected, in one short read-only open.
func (a *App) loadStats(name string, since time.Time) (statsView, error) {
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
		v.sessionKey, err = db.SessionKey()
		if errors.Is(err, store.ErrNoSessionKey) {
			err = nil // no session can be valid; the login makes the key
		}
	}
	return v, err
}

// authorised reports whether r may see the statistics of v: they are
// public, or r carries a valid session. It never runs bcrypt.
func (a *App) authorised(r *http.Request, v statsView) bool {
	h := v.history
	if !h.Protected() {
		return true
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && validSession(v.sessionKey, c.Value, h.Name, h.PasswordHash, a.now())
}

// serveStats answers /NAME/stats: the statistics page, or the login form
// when they are protected and r has no session.
func (a *App) serveStats(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	v, err := a.loadStats(name, a.now().AddDate(0, 0, -counter.ChartDays))
	if err != nil {
		a.Refuse(w, r, err)
		return
	}
	if !a.authorised(r, v) {
		writeHTML(w, r, http.StatusOK, loginPage(name, ""))
		return
	}
	writeHTML(w, r, http.StatusOK, statsPage(counter.Summarise(v.history, a.now())))
}

func statsPage(s counter.Stats) *htmlPage {
	p := &htmlPage{}
	p.begin(s.Name + " · statistics")
	p.raw("<h1>")
	p.text(s.Name)
	p.raw(`</h1><p class="sub">Hits counted by this counter. Days are UTC; today is `)
	p.text(s.Now.Format(time.DateOnly))
	p.raw(".</p>\n<div class=\"cards\">\n")
	card := func(value, label string) {
		p.raw(`<div class="card"><b>`)
		p.text(value)
		p.raw(`</b><span>`)
		p.text(label)
		p.raw("</span></div>\n")
	}
	first := s.FirstDay
	if first == "" {
		first = "no hits yet"
	}
	card(group(s.Total), "total")
	card(group(s.Today.Views), "today")
	card(group(s.Last7.Views), "last 7 days")
	card(group(s.Last30.Views), "last 30 days")
	p.raw(`<div class="card"><b class="date">`)
	p.text(first)
	p.raw("</b><span>first day counted</span></div>\n")
	p.raw("</div>\n<h2>Hits per day, last ", itoa(counter.ChartDays), " days</h2>\n")
	writeChart(p, s.Chart)
	p.raw("<h2>Top referring sites</h2>\n")
	if len(s.Referrers) == 0 && s.OtherReferrers == 0 {
		p.raw("<p class=\"sub\">No hits came with a referring page yet.</p>\n")
	} else {
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
	p.raw(`<div class="foot"><span>Daily history: <a href="stats.csv">CSV</a> · <a href="stats.json">JSON</a></span>`)
	if s.Protected {
		p.raw(`<form method="post" action="logout"><button type="submit">Log out</button></form>`)
	}
	p.raw("</div>\n")
	p.end()
	return p
}

// loginPage is the form that stands in for protected statistics.
func loginPage(name, message string) *htmlPage {
	p := &htmlPage{}
	p.begin(name + " · log in")
	p.raw("<h1>")
	p.text(name)
	p.raw("</h1><p class=\"sub\">The statistics of this counter are protected by a password.</p>\n")
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
	p.end()
	return p
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

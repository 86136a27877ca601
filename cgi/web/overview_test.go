package web

import (
	"html"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// TestOverviewEscapesEveryValue: every value the overview shows, put in
// the hostile form, comes out as its text: a counter's name (its link
// too), a page, a source, a cost warning and a doctor's finding. Names,
// pages and hosts are checked where they are stored; should a check
// ever slip, the page still breaks no markup.
func TestOverviewEscapesEveryValue(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	c := store.CounterOverview{Info: counter.Info{Name: hostile, Settings: counter.DefaultSettings()}}
	c.Today.Views, c.Last30.NotCounted[counter.Bot] = 3, 2
	c.Series[counter.SeriesDays-1].Views = 3
	v := &overviewView{now: now, maxSize: store.DefaultMaxSize, health: []string{"doctor " + hostile}}
	v.Counters = []store.CounterOverview{c}
	v.Pages = []store.SitePage{{Site: hostile, Page: counter.Page{Page: hostile, Views: 1}}}
	v.Sources = []counter.Referrer{{Host: hostile, Hits: 1}}
	v.CostWarnings = []string{"cost " + hostile}
	v.demo = &demoView{here: "example.org"}
	body := overviewPage(v).b.String()
	for _, bad := range []string{"<script", `href="javascript`} {
		if strings.Contains(body, bad) {
			t.Errorf("%q on the page", bad)
		}
	}
	text := html.UnescapeString(body)
	for _, want := range []string{hostile + "</a>", `href="` + hostile + `/stats"`, "doctor " + hostile, "cost " + hostile, "<td>" + hostile + "</td>"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q is not on the page as its text", want)
		}
	}
}

// TestLocalOverviewOnlyToThisMachine: the local server shows its overview
// without a login to the machine it runs on alone; from another machine
// (serve -addr 0.0.0.0:8080 -db FILE) the root asks for the owner's login,
// naming no counter, and the form that stops counting every counter is
// refused. On the demo's own file (Demo) every machine sees the page.
func TestLocalOverviewOnlyToThisMachine(t *testing.T) {
	a, _ := testApp(t, "secretblog")
	a.demo = true
	for _, tc := range []struct {
		remote    string
		openToAll bool
		shown     bool
	}{
		{"127.0.0.1:40000", false, true},
		{"[::1]:40000", false, true},
		{"[::ffff:127.0.0.1]:40000", false, true},
		{"192.168.1.20:40000", false, false},
		{"[2001:db8::1]:40000", false, false},
		{"", false, false},
		{"192.168.1.20:40000", true, true},
	} {
		a.openToAll = tc.openToAll
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		r.Header.Set("User-Agent", firefoxUA)
		w := httptest.NewRecorder()
		a.Handler().ServeHTTP(w, r)
		if shown := strings.Contains(w.Body.String(), "secretblog"); w.Code != 200 || shown != tc.shown {
			t.Errorf("GET / from %q: status %d, counter named %v, want 200, %v", tc.remote, w.Code, shown, tc.shown)
		}
		r = httptest.NewRequest("POST", "/owner", strings.NewReader("count=no"))
		r.RemoteAddr = tc.remote
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		w = httptest.NewRecorder()
		a.Handler().ServeHTTP(w, r)
		if set := w.Header().Get("Set-Cookie") != ""; set != tc.shown {
			t.Errorf("POST /owner from %q: status %d, cookies set %v, want %v", tc.remote, w.Code, set, tc.shown)
		}
	}
}

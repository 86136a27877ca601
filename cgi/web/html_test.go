package web

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// hostile is a value no rule of the program lets through today (names,
// hosts and pages are checked or cleaned where they are stored), put in
// every place a page shows a value: should a check ever slip, the page
// still shows it as its text, and it breaks no markup or link.
const hostile = `"><script>alert('x&y')</script><a href="javascript:z">+é`

// oracleFixture is every page of html.go, with values that need escaping
// wherever a page shows one, in its hand-written form and its template's.
func oracleFixture(v string) map[string][2]func() (string, error) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	s := counter.Stats{Name: "blog", Total: 1234567, Visitors: 4321, Show: counter.ShowVisitors,
		Created: now.AddDate(-1, 0, 0), Reload: 30 * time.Minute, Now: now, FirstDay: "2025-12-07",
		TalliedSince: now.AddDate(0, -2, 0), OtherReferrers: 7}
	s.Today.Views, s.Today.Visitors, s.Today.GitHub = 12, 5, 2
	s.Today.NotCounted[counter.Bot] = 3
	s.Last7.Views, s.Last30.Views = 1000, 20000
	for i := range counter.ChartDays {
		d := counter.Day{Date: now.AddDate(0, 0, i-counter.ChartDays+1).Format(time.DateOnly)}
		d.Views, d.Visitors = uint64(i*7%23), uint64(i*3%11)
		s.Chart = append(s.Chart, d)
	}
	s.Chart[0].Date = v
	s.Referrers = []counter.Referrer{{Host: "example.org", Hits: 12345}, {Host: v, Hits: 1}}
	s.Sources, s.OtherSources = []counter.Referrer{{Host: "Google", Hits: 2345}, {Host: v, Hits: 2}}, 3
	site := &siteView{period: 30, pages: []counter.Page{{Page: "/blog/a post?x=1&y=<2>", Views: 40, Visitors: 3},
		{Page: v, Views: 3}, {Page: counter.OtherPages, Views: 2}}, allPages: 5, restViews: 9}
	var days []meter.Day
	for i := range 5 {
		d := meter.Day{Date: now.AddDate(0, 0, i-4).Format(time.DateOnly)}
		d.Kinds[meter.Hit] = meter.Figures{Count: 10, Wall: [3]time.Duration{time.Duration(i+1) * time.Millisecond, 0, 3 * time.Millisecond}}
		days = append(days, d)
	}
	days[0].Date = v
	cost := &costView{days: days, warnings: []string{"slow " + v}}
	prot := s
	prot.Protected = true
	page := s
	page.Name = "site/" + v
	// Set names are checked (counter.CheckDigitSetName): letters, digits and
	// ". _ -", which a URL's query carries as they are.
	sets := []string{"mine", "a.b_c-d"}
	hand := func(p *htmlPage) func() (string, error) { return func() (string, error) { return p.b.String(), nil } }
	return map[string][2]func() (string, error){
		"public statistics": {hand(statsPage(s, false, nil, nil, nil, "")), tmplStats(s, false, nil, nil, nil, "").render},
		"full statistics":   {hand(statsPage(prot, true, site, cost, sets, "logout")), tmplStats(prot, true, site, cost, sets, "logout").render},
		"site, all time":    {hand(statsPage(prot, false, &siteView{}, nil, nil, "logout")), tmplStats(prot, false, &siteView{}, nil, nil, "logout").render},
		"the owner's view":  {hand(statsPage(s, false, nil, nil, nil, "../logout")), tmplStats(s, false, nil, nil, nil, "../logout").render},
		"no hits":           {hand(statsPage(counter.Stats{Name: "empty", Now: now}, false, nil, nil, nil, "")), tmplStats(counter.Stats{Name: "empty", Now: now}, false, nil, nil, nil, "").render},
		"site's page":       {hand(pagePage(page)), tmplPage(page).render},
		"login":             {hand(loginPage("blog", "")), tmplLogin("blog", "").render},
		"login, a message":  {hand(loginPage(v, "wrong password "+v)), tmplLogin(v, "wrong password "+v).render},
	}
}

// TestPagesAsTheirTemplate: every page of html.go is, byte for byte, what
// html/template makes of testdata/pages.html with the same values, but
// for "+", which the template writes as "&#43;", the same character.
func TestPagesAsTheirTemplate(t *testing.T) {
	for name, f := range oracleFixture(hostile) {
		got, _ := f[0]()
		want, err := f[1]()
		if err != nil {
			t.Fatalf("%s: template: %v", name, err)
		}
		if want = strings.ReplaceAll(want, "&#43;", "+"); got != want {
			t.Errorf("%s: html.go and its template differ:\n%s", name, firstDifference(got, want))
		}
	}
}

// TestDemoPageAsItsTemplate: the demo part of the local server's root,
// served, is what html/template makes of it.
func TestDemoPageAsItsTemplate(t *testing.T) {
	a, _ := testApp(t, "demo", "other")
	a.demo, a.openToAll = true, true // the demo's own file: open to httptest's 192.0.2.1
	addTestSet(t, a)
	got := serve(a, "GET", "/", "Host", "example.org").Body.String()
	db, err := a.open(true)
	if err != nil {
		t.Fatal(err)
	}
	list, err := db.List()
	if err != nil {
		t.Fatal(err)
	}
	sets, err := db.DigitSetNames()
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	d := indexData{Looks: counter.LookNames(), Sets: sets}
	for _, c := range list {
		d.Counters = append(d.Counters, struct{ Name, Counts string }{c.Name, whatCounts(c.Settings, "example.org", len(sets))})
	}
	want, err := oracle{"demo", d}.render()
	if err != nil {
		t.Fatal(err)
	}
	want = strings.ReplaceAll(want, "&#39;", "'")
	start := strings.Index(got, demoIntro)
	end := strings.LastIndex(got, "</body></html>")
	if start < 0 || end < start {
		t.Fatalf("no demo on the page:\n%s", got)
	}
	if got = got[start:end]; got != want {
		t.Errorf("the demo page and its template differ:\n%s", firstDifference(got, want))
	}
}

// firstDifference shows where got and want part.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-80)
	return "html.go:  " + got[from:min(len(got), i+80)] + "\ntemplate: " + want[from:min(len(want), i+80)]
}

// TestPagesEscapeEveryValue: each value of a page comes out as its text,
// whatever it holds: no element is opened, and a page's link reads back
// whole.
func TestPagesEscapeEveryValue(t *testing.T) {
	for name, f := range oracleFixture(hostile) {
		body, _ := f[0]()
		for _, bad := range []string{"<script", `href="javascript`} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: %q in it", name, bad)
			}
		}
		if !strings.Contains(html.UnescapeString(body), hostile) && name != "no hits" && name != "login" {
			t.Errorf("%s: the value is not shown as its text", name)
		}
		if name != "full statistics" {
			continue
		}
		var found bool
		for _, m := range regexp.MustCompile(`<a href="stats\?page=([^"]*)"`).FindAllStringSubmatch(body, -1) {
			q, err := url.ParseQuery("page=" + html.UnescapeString(m[1]))
			found = found || err == nil && q.Get("page") == hostile
		}
		if !found {
			t.Errorf("no link of the page's reads back %q", hostile)
		}
	}
}

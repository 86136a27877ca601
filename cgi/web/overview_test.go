package web

import (
	"html"
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

package web

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// hits are n hits of one kind on a day, days back from testNow; newVisitors
// of them (counted views only) are new visitors.
type hits struct {
	back        int
	kind        counter.Kind
	n           int
	newVisitors int
}

// tallied is a history with hits of every kind, and what it adds up to.
var tallied = []hits{
	{0, counter.View, 3, 2}, {0, counter.GitHub, 1, 0}, {0, counter.Reload, 2, 0}, {0, counter.Bot, 1, 0},
	{0, counter.Prefetch, 1, 0}, {0, counter.Owner, 1, 0}, {0, counter.Foreign, 1, 0}, {0, counter.Ignored, 1, 0},
	{3, counter.View, 2, 1}, {3, counter.Bot, 4, 0},
	{20, counter.View, 5, 5}, {20, counter.Reload, 3, 0},
	{40, counter.View, 1, 0},
}

// visit makes the hits on counter name through the store, each judged as
// its kind says.
func visit(t *testing.T, a *App, name string, hs []hits) {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, h := range hs {
		for i := range h.n {
			o := counter.Outcome{Kind: h.kind, NewVisitor: i < h.newVisitors}
			v := store.Visit{Name: name, Now: testNow.AddDate(0, 0, -h.back), RefHost: "blog.example",
				Outcome: o}
			if _, err := db.Visit(v); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// section returns the part of body from the first from to the next to.
func section(body, from, to string) string {
	i := strings.Index(body, from)
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], to)
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}

func TestStatsShowTheBreakdown(t *testing.T) {
	a, _ := testApp(t, "page")
	configure(t, a, "page", "reload=30m")
	visit(t, a, "page", tallied)
	body := serve(a, "GET", "/page/stats").Body.String()
	views := section(body, "<h2>Views", "</section>")
	visitors := section(body, "<h2>Unique visitors", "</section>")
	kinds := section(body, `<table class="kinds">`, "</table>")
	tests := []struct {
		name, in, want string
	}{
		{"views today", views, `<b>4</b><span>today</span>`},
		{"views in 7 days", views, `<b>6</b><span>last 7 days</span>`},
		{"views in 30 days", views, `<b>11</b><span>last 30 days</span>`},
		{"views in all", views, `<b>12</b><span>total</span>`},
		{"views on the image", views, `<span class="tag">on the image</span>`},
		{"visitors today", visitors, `<b>2</b><span>today</span>`},
		{"visitors in 7 days", visitors, `<b>3</b><span>last 7 days</span>`},
		{"visitors in 30 days", visitors, `<b>8</b><span>last 30 days</span>`},
		{"visitors in all", visitors, `<b>8</b><span>total</span>`},
		{"reloads", kinds, `Reloads<small>the same visitor again within 30 minutes</small></td><td class="n">2</td><td class="n">2</td><td class="n">5</td>`},
		{"bots", kinds, `Bots<small>crawlers, link previews, scripts like curl</small></td><td class="n">1</td><td class="n">5</td><td class="n">5</td>`},
		{"prefetches", kinds, `Prefetches<small>the browser fetched the page ahead of a click</small></td><td class="n">1</td><td class="n">1</td><td class="n">1</td>`},
		{"owner", kinds, `Owner<small>your own browser, marked below</small></td><td class="n">1</td><td class="n">1</td><td class="n">1</td>`},
		{"foreign", kinds, `Foreign pages<small>the image shown on a page of a site not on your list</small></td><td class="n">1</td>`},
		{"ignored", kinds, `Ignored addresses<small>an address on your ignore list</small></td><td class="n">1</td>`},
		{"all not counted", kinds, `All not counted</td><td class="n">7</td><td class="n">11</td><td class="n">14</td>`},
		{"github", kinds, `Views via GitHub<small>counted as views, never as visitors`},
		{"github figures", kinds, `every reader</small></td><td class="n">1</td><td class="n">1</td><td class="n">1</td>`},
		{"chart title", body, `<title>2026-05-04: 4 views, 2 visitors</title>`},
		{"chart title of a day without hits", body, `<title>2026-05-03: 0 views, 0 visitors</title>`},
		{"chart label", body, `aria-label="views and visitors per day over the last 90 days: 12 views, 8 visitors in all"`},
		{"owner state", body, `This browser is counted.`},
		{"owner button", body, `<input type="hidden" name="count" value="no">`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.in, tc.want) {
				t.Errorf("page lacks %q", tc.want)
			}
		})
	}
	if strings.Contains(visitors, "on the image") {
		t.Errorf("visitors marked as on the image of a counter that shows views")
	}
	if n := strings.Count(body, `<rect class="vis"`); n != 3 {
		t.Errorf("chart has %d visitor bars, want 3 (the days with visitors)", n)
	}
}

// TestStatsPageSays checks what the page says for settings and a history
// the store may have: the image, the reload window, when tallies began.
func TestStatsPageSays(t *testing.T) {
	created := time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)
	base := counter.Stats{Name: "page", Now: testNow, Created: created, Reload: counter.DefaultReload}
	tests := []struct {
		name      string
		edit      func(*counter.Stats)
		want, not []string
	}{
		{"defaults", func(*counter.Stats) {}, []string{"within 30 minutes", "No hits yet"}, []string{"kept since"}},
		{"visitors shown", func(s *counter.Stats) { s.Show = counter.ShowVisitors },
			[]string{`<h2>Unique visitors <span class="tag">on the image</span>`}, []string{`<h2>Views <span class="tag">`}},
		{"two-hour window", func(s *counter.Stats) { s.Reload = 2 * time.Hour }, []string{"within 2 hours"}, nil},
		{"one-hour window", func(s *counter.Stats) { s.Reload = time.Hour }, []string{"within 1 hour<"}, nil},
		{"90-second window", func(s *counter.Stats) { s.Reload = 90 * time.Second }, []string{"within 90 seconds"}, nil},
		{"no window", func(s *counter.Stats) { s.Reload = 0 }, []string{"none: this counter counts a visitor"}, []string{"within"}},
		{"tallied since a migration", func(s *counter.Stats) { s.TalliedSince = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC) },
			[]string{"Visitors and hits not counted are kept since 2026-04-01. Before that, every hit was counted as a view."}, nil},
		{"tallied from the start", func(s *counter.Stats) { s.TalliedSince = created.Add(-time.Hour) }, nil, []string{"kept since"}},
		{"first hit", func(s *counter.Stats) { s.FirstDay = "2025-03-04" }, []string{"First hit on 2025-03-04."}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.edit(&s)
			body := statsPage(s, false, nil, nil, nil, "").b.String()
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("page has %q", n)
				}
			}
		})
	}
}

func TestExportsCarryEveryColumn(t *testing.T) {
	a, _ := testApp(t, "page")
	visit(t, a, "page", tallied)
	db, err := store.Open(a.cfg.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := db.History("page", time.Time{})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	since := h.TalliedSince.UTC().Format(time.RFC3339)
	tests := []struct {
		target, contentType, want string
	}{
		{"/page/stats.csv", "text/csv; charset=utf-8", "" +
			"date,views,visitors,github,reloads,bots,prefetches,owner,foreign,ignored\r\n" +
			"2026-03-25,1,0,0,0,0,0,0,0,0\r\n" +
			"2026-04-14,5,5,0,3,0,0,0,0,0\r\n" +
			"2026-05-01,2,1,0,0,4,0,0,0,0\r\n" +
			"2026-05-04,4,2,1,2,1,1,1,1,1\r\n"},
		{"/page/stats.json", "application/json", `{"name":"page","show":"views","total":12,"visitors":8,"created":"2026-05-04T12:00:00Z","tallied_since":"` + since + `","days":[` +
			`{"date":"2026-03-25","views":1,"visitors":0,"github":0,"reloads":0,"bots":0,"prefetches":0,"owner":0,"foreign":0,"ignored":0},` +
			`{"date":"2026-04-14","views":5,"visitors":5,"github":0,"reloads":3,"bots":0,"prefetches":0,"owner":0,"foreign":0,"ignored":0},` +
			`{"date":"2026-05-01","views":2,"visitors":1,"github":0,"reloads":0,"bots":4,"prefetches":0,"owner":0,"foreign":0,"ignored":0},` +
			`{"date":"2026-05-04","views":4,"visitors":2,"github":1,"reloads":2,"bots":1,"prefetches":1,"owner":1,"foreign":1,"ignored":1}],` +
			`"referrers":[{"host":"blog.example","views":12}]}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			w := serve(a, "GET", tc.target)
			if w.Code != 200 || w.Header().Get("Content-Type") != tc.contentType {
				t.Fatalf("got %d %q, want 200 %q", w.Code, w.Header().Get("Content-Type"), tc.contentType)
			}
			if got := w.Body.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestExportWithoutTalliesSaysNull(t *testing.T) {
	h := counter.History{Info: counter.Info{Name: "old", Count: 7, Settings: counter.Settings{Show: counter.ShowVisitors}},
		Days: []counter.Day{{Date: "2020-01-02", Tally: counter.Tally{Views: 7}}}}
	want := `{"name":"old","show":"visitors","total":7,"visitors":0,"created":null,"tallied_since":null,"days":[` +
		`{"date":"2020-01-02","views":7,"visitors":0,"github":0,"reloads":0,"bots":0,"prefetches":0,"owner":0,"foreign":0,"ignored":0}],"referrers":[]}` + "\n"
	var out bytes.Buffer
	e := &exportWriter{w: &out}
	jsonHistory(e, h)
	e.flush()
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// configure changes the settings of counter name.
func configure(t *testing.T, a *App, name string, settings ...string) {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Configure(name, func(s *counter.Settings) error {
		for _, kv := range settings {
			if err := s.Set(kv); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

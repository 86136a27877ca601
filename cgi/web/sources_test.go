package web

import (
	"fmt"
	"strings"
	"testing"

	"hitcounter/counter"
	"hitcounter/counter/imports"
	"hitcounter/store"
)

// sourceVisits counts views on counter name from the sources given, as
// the script's hit records them, each n times.
func sourceVisits(t *testing.T, a *App, name string, sources map[string]int) {
	t.Helper()
	db, err := store.Open(a.cfg.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for src, n := range sources {
		for range n {
			if _, err := db.Visit(store.Visit{Name: name, Now: testNow, RefHost: "me.example", Source: src}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The statistics page shows the sources, groups tagged, and the exports
// carry them (a last CSV column, a JSON list), so that this counter's own
// import of either brings them back; an export without sources is as
// before.
func TestSourcesShownAndExported(t *testing.T) {
	a, _ := testApp(t, "page", "bare")
	sourceVisits(t, a, "page", map[string]int{"www.google.de": 3, "forum.example": 2, "me.example": 5})
	body := serve(a, "GET", "/page/stats").Body.String()
	for _, want := range []string{
		"<h2>Where readers came from</h2>",
		`<tr><td>Google <span class="tag">search</span></td><td class="n">3</td></tr>`,
		`<tr><td>forum.example</td><td class="n">2</td></tr>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the statistics lack %q", want)
		}
	}
	if strings.Contains(body, "<td>me.example</td><td class=\"n\">5") {
		t.Errorf("the counter's own host is shown as a source")
	}
	csv := serve(a, "GET", "/page/stats.csv").Body.String()
	header := "date," + strings.Join(exportColumnsSlice(), ",") + ",source\r\n"
	if !strings.HasPrefix(csv, header) || !strings.Contains(csv, "\r\n,3,,,,,,,,,Google\r\n") {
		t.Errorf("stats.csv:\n%s\nwant the header %q and Google's line", csv, header)
	}
	imp, err := imports.OwnCSV(strings.NewReader(csv))
	if err != nil || fmt.Sprint(imp.Sources) != "[{Google 3} {forum.example 2}]" || len(imp.Days) != 1 || imp.Days[0].Views != 10 {
		t.Errorf("stats.csv imported: %v, %v, days %v", imp.Sources, err, imp.Days)
	}
	js := serve(a, "GET", "/page/stats.json").Body.String()
	if !strings.Contains(js, `"sources":[{"source":"Google","views":3},{"source":"forum.example","views":2}]`) {
		t.Errorf("stats.json: %s", js)
	}
	if imp, err = imports.OwnJSON(strings.NewReader(js)); err != nil || fmt.Sprint(imp.Sources) != "[{Google 3} {forum.example 2}]" {
		t.Errorf("stats.json imported: %v, %v", imp.Sources, err)
	}
	sourceVisits(t, a, "bare", map[string]int{"": 1})
	csv = serve(a, "GET", "/bare/stats.csv").Body.String()
	js = serve(a, "GET", "/bare/stats.json").Body.String()
	if strings.Contains(csv, "source") || strings.Contains(js, "sources") {
		t.Errorf("exports without sources changed:\n%s\n%s", csv, js)
	}
	if body := serve(a, "GET", "/bare/stats").Body.String(); !strings.Contains(body, "No views came with the page's own referrer yet") {
		t.Errorf("the statistics of a counter without sources do not say so")
	}
}

// A source is shown escaped, even one the store would never keep (an old
// file, a bug).
func TestSourcesEscaped(t *testing.T) {
	var p htmlPage
	sources(&p, counter.Stats{Sources: []counter.Referrer{{Host: `<script>alert(1)</script>`, Hits: 1}}})
	if s := p.b.String(); strings.Contains(s, "<script>") || !strings.Contains(s, "&lt;script&gt;") {
		t.Errorf("source shown as %s", s)
	}
}

func exportColumnsSlice() []string {
	c := exportColumns()
	return c[:]
}

package web

import (
	"encoding/json"
	"testing"
)

// TestJSONExportDecodes: the JSON export, framed here a row at a time,
// is one document that encoding/json reads back to what the file holds,
// its keys with commas, quotes, "<", "&" and letters beyond ASCII whole.
func TestJSONExportDecodes(t *testing.T) {
	a, _ := exportApp(t, OneRequest)
	w := serve(a, "GET", "/blog/stats.json")
	var doc struct {
		Name      string
		Days      []map[string]any
		Referrers []struct {
			Host  string
			Views uint64
		}
		PageDays []struct {
			Date, Page      string
			Views, Visitors uint64
		} `json:"page_days"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatalf("the export is not JSON: %v", err)
	}
	if doc.Name != "blog" || len(doc.Days) != exportDays || len(doc.Referrers) != 3 || len(doc.PageDays) != exportDays*exportPages {
		t.Fatalf("got %q, %d days, %d referrers, %d page-days; want blog, %d, 3, %d",
			doc.Name, len(doc.Days), len(doc.Referrers), len(doc.PageDays), exportDays, exportDays*exportPages)
	}
	hosts := map[string]bool{}
	for _, r := range doc.Referrers {
		hosts[r.Host] = true
	}
	if !hosts["b&c.example"] {
		t.Errorf("referrers %v lack b&c.example", doc.Referrers)
	}
	pages := map[string]bool{}
	for _, d := range doc.PageDays {
		pages[d.Page] = true
	}
	for _, want := range []string{"/a,b/001", "/café/002", "/q/003?p=1&q=%3Cx%3E"} {
		if !pages[want] {
			t.Errorf("no page-day of %q", want)
		}
	}
}

package imports

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// The Plausible test file, testdata/import/plausible-export.zip, is
// written by this generator as Plausible's own code writes its CSV
// export, at plausible/analytics 06eb5d3b89243361e85c17d09a2eeeb0760769cc,
// lib/plausible/exports.ex:
//
//   - export_queries: the files' names, imported_visitors_FIRST_LAST.csv
//     and so on, FIRST and LAST the export's first and last days;
//   - export_visitors_q: date, visitors (uniq user_id of the day's
//     sessions), pageviews (the day's pageview events), bounces, visits,
//     visit_duration;
//   - export_pages_q: by date and pathname, hostname, page, visits (uniq
//     session_id), visitors (uniq user_id), pageviews (count), the
//     scroll depths;
//   - export_sources_q: by date, source and referrer (and the utm_
//     tags), the sessions' pageviews, visitors (uniq user_id), visits
//     (sessions), visit_duration, bounces; a session's source and
//     referrer are its first pageview's, as lib/plausible/ingestion/
//     event.ex sets them at 0163eb032ea38d944c59d78b7a78c8750c4f05dc:
//     none when the referrer is the page's own host (parse_referrer),
//     the referrer without its scheme and "www." (format_referrer), the
//     source a known site's name (RefInspector: "Google") or the host,
//     and an utm_source tag in its place when there is one;
//   - stream_archive: a ZIP of stored (not compressed) entries, each the
//     answer of ClickHouse in CSVWithNames (a header of quoted names;
//     strings and dates quoted, numbers not).
//
// go test ./counter/imports -run PlausibleFile -update-goat rewrites it;
// without the flag the test fails when the committed file differs.

// plausibleView is a pageview as Plausible stores it: referrer is the
// page's document.referrer (without its scheme), utm its utm_source.
type plausibleView struct {
	user, session int
	page          string
	referrer, utm string
	at            string
}

var plausibleViews = []plausibleView{
	{user: 1, session: 11, page: "/", referrer: "news.example", at: "2026-01-02T09:15:00Z"},
	{user: 1, session: 11, page: "/", at: "2026-01-02T09:16:00Z"},
	{user: 1, session: 11, page: "/posts/café/", at: "2026-01-02T09:20:00Z"},
	{user: 2, session: 21, page: "/posts/café/", referrer: "www.google.com/", at: "2026-01-02T12:00:00Z"},
	{user: 2, session: 22, page: "/about", utm: "newsletter", at: "2026-01-03T08:00:00Z"},
	{user: 2, session: 23, page: "/about", at: "2026-01-03T18:00:00Z"},
	{user: 3, session: 31, page: "/about", at: "2026-01-03T10:00:00Z"},
}

// plausibleZIPFile writes views as Plausible's export does.
func plausibleZIPFile(views []plausibleView) []byte {
	type key struct{ date, page string }
	users := map[string]map[int]bool{}
	pageviews := map[string]int{}
	pUsers, pSessions := map[key]map[int]bool{}, map[key]map[int]bool{}
	pViews := map[key]int{}
	var dates []string
	var keys []key
	for _, v := range views {
		at, _ := time.Parse(time.RFC3339, v.at)
		d := at.Format(time.DateOnly)
		if users[d] == nil {
			users[d] = map[int]bool{}
			dates = append(dates, d)
		}
		users[d][v.user] = true
		pageviews[d]++
		k := key{d, v.page}
		if pUsers[k] == nil {
			pUsers[k], pSessions[k] = map[int]bool{}, map[int]bool{}
			keys = append(keys, k)
		}
		pUsers[k][v.user], pSessions[k][v.session] = true, true
		pViews[k]++
	}
	slices.Sort(dates)
	suffix := "_" + strings.ReplaceAll(dates[0], "-", "") + "_" + strings.ReplaceAll(dates[len(dates)-1], "-", "") + ".csv"
	var out bytes.Buffer
	z := zip.NewWriter(&out)
	file := func(name, content string) {
		w, _ := z.CreateHeader(&zip.FileHeader{Name: name + suffix, Method: zip.Store})
		w.Write([]byte(content))
	}
	var b strings.Builder
	b.WriteString(`"date","visitors","pageviews","bounces","visits","visit_duration"` + "\n")
	for _, d := range dates {
		fmt.Fprintf(&b, "\"%s\",%d,%d,%d,%d,%d\n", d, len(users[d]), pageviews[d], 0, len(users[d]), 60)
	}
	file("imported_visitors", b.String())
	b.Reset()
	b.WriteString(`"date","hostname","page","visits","visitors","pageviews","total_scroll_depth","total_scroll_depth_visits"` + "\n")
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.date+a.page, b.date+b.page) })
	for _, k := range keys {
		fmt.Fprintf(&b, "\"%s\",\"blog.example\",\"%s\",%d,%d,%d,0,0\n", k.date, k.page, len(pSessions[k]), len(pUsers[k]), pViews[k])
	}
	file("imported_pages", b.String())
	file("imported_sources", plausibleSources(views))
	file("imported_custom_events", `"date","name","link_url","path","visitors","events"`+"\n")
	z.Close()
	return out.Bytes()
}

// plausibleSources writes imported_sources: each session's source and
// referrer, its first view's, by date, source and referrer.
func plausibleSources(views []plausibleView) string {
	type row struct{ date, source, referrer, utm string }
	type sums struct {
		views, visits int
		users         map[int]bool
	}
	entry := map[int]row{}
	var order []row
	all := map[row]*sums{}
	for _, v := range views {
		r, ok := entry[v.session]
		if !ok {
			at, _ := time.Parse(time.RFC3339, v.at)
			r = row{date: at.Format(time.DateOnly), utm: v.utm}
			if v.referrer != "" {
				host, path, _ := strings.Cut(v.referrer, "/")
				host = strings.TrimPrefix(host, "www.")
				r.referrer = strings.TrimSuffix(host+"/"+path, "/")
				r.source = host
				if host == "google.com" {
					r.source = "Google" // RefInspector's name for it
				}
			}
			if v.utm != "" {
				r.source = v.utm
			}
			entry[v.session] = r
			if all[r] == nil {
				all[r] = &sums{users: map[int]bool{}}
				order = append(order, r)
			}
			all[r].visits++
		}
		all[r].views++
		all[r].users[v.user] = true
	}
	slices.SortStableFunc(order, func(a, b row) int { return strings.Compare(a.date, b.date) })
	var b strings.Builder
	b.WriteString(`"date","source","referrer","utm_source","utm_medium","utm_campaign","utm_content","utm_term","pageviews","visitors","visits","visit_duration","bounces"` + "\n")
	for _, r := range order {
		s := all[r]
		fmt.Fprintf(&b, "\"%s\",\"%s\",\"%s\",\"%s\",\"\",\"\",\"\",\"\",%d,%d,%d,%d,0\n", r.date, r.source, r.referrer, r.utm, s.views, len(s.users), s.visits, 60*s.visits)
	}
	return b.String()
}

func TestPlausibleFileIsGenerated(t *testing.T) {
	want := plausibleZIPFile(plausibleViews)
	file := filepath.Join("../../testdata/import", "plausible-export.zip")
	if *updateGoat {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if contents(t, file, got) != contents(t, file, want) {
		t.Errorf("%s is not what the generator writes: run go test ./counter/imports -run PlausibleFile -update-goat", file)
	}
}

// TestPlausibleZIP imports the generated file: each day's and page's
// pageviews and (distinct) visitors, as exports.ex counts them, pinned.
func TestPlausibleZIP(t *testing.T) {
	b := readTestFile(t, "plausible-export.zip")
	imp, whose, err := ExportZIP(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if whose != "Plausible's CSV export" {
		t.Errorf("got %q, want Plausible's", whose)
	}
	// 2 January: user 1 reads / twice and café, user 2 café; 3 January:
	// user 2 reads /about in two sessions, user 3 once.
	wantDays := []counter.Day{{Date: "2026-01-02", Tally: tally(4, 2)}, {Date: "2026-01-03", Tally: tally(3, 2)}}
	wantPages := []counter.PageDay{
		{Date: "2026-01-02", Page: "/", Views: 2, Visitors: 1},
		{Date: "2026-01-02", Page: "/posts/café", Views: 2, Visitors: 2},
		{Date: "2026-01-03", Page: "/about", Views: 3, Visitors: 2},
	}
	if !reflect.DeepEqual(imp.Days, wantDays) || !reflect.DeepEqual(imp.AllPageDays(), wantPages) {
		t.Errorf("got days %+v\npages %+v\nwant %+v\n%+v", imp.Days, imp.AllPageDays(), wantDays, wantPages)
	}
	// Every page was asked of blog.example: its views, as a live hit's
	// Referer would name the page's host.
	if want := []counter.Referrer{{Host: "blog.example", Hits: 7}}; !reflect.DeepEqual(imp.Referrers, want) {
		t.Errorf("got referrers %+v, want %+v", imp.Referrers, want)
	}
	// Sessions 11 and 21 came from news.example and Google, 22 by a
	// newsletter's link (an utm_source tag, no host); the others had no
	// referrer. A source's figure is its visits, as a live source
	// counts the view that came in, not the pages read after it.
	if want := []counter.Referrer{{Host: "Google", Hits: 1}, {Host: "news.example", Hits: 1}}; !reflect.DeepEqual(imp.Sources, want) {
		t.Errorf("got sources %+v, want %+v", imp.Sources, want)
	}
	if want := []string{"1 visits from sources that name no host (utm_source tags, or a site Plausible names that this counter does not group)"}; !reflect.DeepEqual(imp.LeftOut, want) {
		t.Errorf("got left out %q, want %q", imp.LeftOut, want)
	}
	t.Run("without imported_visitors", func(t *testing.T) {
		var out bytes.Buffer
		z := zip.NewWriter(&out)
		z.Create("imported_pages_20260102_20260103.csv")
		z.Close()
		_, err := PlausibleZIP(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
		wantRefusal(t, err, 0, "no imported_visitors")
	})
	t.Run("a bad count", func(t *testing.T) {
		var out bytes.Buffer
		z := zip.NewWriter(&out)
		w, _ := z.Create("imported_visitors_20260102_20260103.csv")
		w.Write([]byte("\"date\",\"visitors\",\"pageviews\"\n\"2026-01-02\",1,x\n"))
		z.Close()
		_, err := PlausibleZIP(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
		wantRefusal(t, err, 2, "pageviews is not a count")
	})
}

// TestPlausibleZIPPageCap reads the generated file for a site that has
// /about and room for one page more: / takes the room, café's days count
// under (other pages), and /about keeps its own.
func TestPlausibleZIPPageCap(t *testing.T) {
	b := readTestFile(t, "plausible-export.zip")
	pc := NewPageCap([]string{"/about"}, 1)
	imp, _, err := ExportZIP(bytes.NewReader(b), int64(len(b)), pc)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Folded() != 1 {
		t.Errorf("folded %d rows, want café's 1", pc.Folded())
	}
	want := []counter.PageDay{
		{Date: "2026-01-02", Page: counter.OtherPages, Views: 2, Visitors: 2},
		{Date: "2026-01-02", Page: "/", Views: 2, Visitors: 1},
		{Date: "2026-01-03", Page: "/about", Views: 3, Visitors: 2},
	}
	if !reflect.DeepEqual(imp.AllPageDays(), want) {
		t.Errorf("got pages %+v\nwant %+v", imp.AllPageDays(), want)
	}
}

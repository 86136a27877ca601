package store

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// formatFileV3 is a database written by the code of schema version 3, with
// a plain counter and a site with its pages, page days and an
// (other pages) row, as checkFormatV3 expects: the promise to owners who
// upgrade from this version.
const formatFileV3 = "../testdata/format/counter-v3.db"

// writeV3 writes formatFileV3 through the store, as the counter does, when
// TestFormat is run with -write-format under schema version 3. It was run once, with schema
// version 3; the file is committed and must never be written again.
// Not shared with the other versions' writers: it records what version 3 wrote.
func writeV3(t *testing.T) {
	if schemaVersion != 3 {
		t.Fatalf("schema version %d: the v3 file is the version 3 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV3)
	defer os.Remove(LockPath(formatFileV3))
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	site, err := counter.NewSite("blog.example,*.blog.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []string{"max-pages=2", "keep-query=p", "image=site", "show=visitors"} {
		if err := site.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	with(t, formatFileV3, Options{Create: true}, func(db *DB) {
		steps := []error{
			db.Create("home", 3, at("2026-12-03T10:00:00Z")),
			db.CreateWith("blog", 0, at("2026-12-03T11:00:00Z"), site),
		}
		view := counter.Outcome{Kind: counter.View, NewVisitor: true, PageVisitor: true}
		for _, h := range []struct {
			name, when, ref, target string
			o                       counter.Outcome
		}{
			{"home", "2026-12-03T10:05:00Z", "example.org", "", view},
			{"blog", "2026-12-03T11:05:00Z", "blog.example", "/posts/caf%C3%A9/index.html?utm_source=x", view},
			{"blog", "2026-12-03T11:06:00Z", "www.blog.example", "/?p=7&utm_medium=y", view},
			{"blog", "2026-12-04T08:00:00Z", "blog.example", "/posts/café", counter.Outcome{Kind: counter.View}},
			{"blog", "2026-12-04T08:30:00Z", "blog.example", "/third/", view}, // past max-pages
			{"blog", "2026-12-04T09:00:00Z", "blog.example", "/posts/café", counter.Outcome{Kind: counter.Reload}},
			{"blog", "2026-12-04T09:30:00Z", "evil.example", "/spam", counter.Outcome{Kind: counter.Foreign}},
		} {
			_, err := db.Visit(Visit{Name: h.name, Now: at(h.when), RefHost: h.ref, Target: h.target, Outcome: h.o})
			steps = append(steps, err)
		}
		for _, err := range steps {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Logf("wrote %s; put this dump into formatDumpV3:\n%s", formatFileV3, dumpFile(t, formatFileV3))
}

// formatDumpV3 is every bucket and key of the v3 file, in bbolt's order,
// with its value in hex; bucket names end in a slash.
const formatDumpV3 = `counters/
  blog/
    allow-referrers = 
    created = 000000006b114bb0
    days/
      2026-12-03 = 0000000000000002
      2026-12-04 = 0000000000000002
    hosts = 626c6f672e6578616d706c650a2a2e626c6f672e6578616d706c65
    ignore = 
    image = 73697465
    keep-query = 70
    max-pages = 0000000000000002
    page-count = 0000000000000002
    page-days/
      2026-12-03/?p=7 = 00000000000000010000000000000001
      2026-12-03/posts/café = 00000000000000010000000000000001
      2026-12-04(other pages) = 00000000000000010000000000000001
      2026-12-04/posts/café = 00000000000000010000000000000000
    pages/
      (other pages) = 00000000000000000000000000000000000000006b127a08
      /?p=7 = 00000000000000010000000000000001000000006b114d18
      /posts/café = 00000000000000010000000000000001000000006b114cdc
    pages-folded = 323032362d31322d3033
    referrers/
      blog.example = 0000000000000003
      www.blog.example = 0000000000000001
    reload = 0000000000000708
    show = 76697369746f7273
    tally/
      2026-12-03 = 00000000000000020000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
      2026-12-04 = 00000000000000010000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000010000000000000000
    total = 0000000000000004
    visitors = 0000000000000003
  home/
    allow-referrers = 
    created = 000000006b113da0
    days/
      2026-12-03 = 0000000000000001
    ignore = 
    referrers/
      example.org = 0000000000000001
    reload = 0000000000000708
    show = 7669657773
    tally/
      2026-12-03 = 00000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
    total = 0000000000000004
    visitors = 0000000000000001
meta/
  tallied-since = 000000006b11ab36
  version = 00000003
`

// checkFormatV3 reads the committed version 3 file through the store
// (TestFormat has checked its bytes).
func checkFormatV3(t *testing.T, db *DB) {
	list, err := db.List()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range list {
		lines = append(lines, fmt.Sprintf("%s views=%d visitors=%d pages=%d %s", c.Name, c.Count, c.Visitors, c.Pages, strings.Join(c.Settings.Format(), " ")))
	}
	want := "blog views=4 visitors=3 pages=2 show=visitors reload=30m ignore= hosts=blog.example,*.blog.example max-pages=2 keep-query=p image=site public-pages=off theme=\n" +
		"home views=4 visitors=1 pages=0 show=views reload=30m ignore= referrers= theme="
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("List:\n%s\nwant:\n%s", got, want)
	}
	var pages []string
	list2, err := db.Pages("blog", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list2 {
		pages = append(pages, fmt.Sprintf("%s %d/%d %s", p.Page, p.Views, p.Visitors, p.FirstSeen.Format(time.RFC3339)))
	}
	wantPages := "(other pages) 1/1 2026-12-04T08:30:00Z\n/?p=7 1/1 2026-12-03T11:06:00Z\n/posts/café 2/1 2026-12-03T11:05:00Z"
	if got := strings.Join(pages, "\n"); got != wantPages {
		t.Errorf("pages:\n%s\nwant:\n%s", got, wantPages)
	}
	h, err := db.PageHistory("blog", "/posts/café", time.Time{})
	if err != nil || len(h.Days) != 2 || h.Days[0].Date != "2026-12-03" || h.Days[1].Views != 1 {
		t.Errorf("the history of /posts/café: %+v, %v", h.Days, err)
	}
}

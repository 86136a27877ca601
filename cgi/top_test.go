package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// Issue 39, item 5: a site's most viewed pages, NAME.json?top=N&days=D,
// through the built binary: only when the owner turned public-pages on,
// never behind a password, the figures exact, today's hits included.

// topAnswer is NAME.json?top=N as a script reads it.
type topAnswer struct {
	Top []struct {
		Page  string `json:"page"`
		Title string `json:"title"`
		Views uint64 `json:"views"`
	} `json:"top"`
	Error string `json:"error"`
}

// getTop asks the built binary, as a CGI, for path?query.
func getTop(t *testing.T, db, path, query string) (int, topAnswer, string) {
	t.Helper()
	out, _, stderr := runMeasured(t, counterBinary(t), append(hitEnv(t, db),
		"PATH_INFO="+path, "QUERY_STRING="+query, "REQUEST_URI=/cgi-bin/counter.cgi"+path+"?"+query))
	ans := parseCGI(t, out)
	var v topAnswer
	if err := json.Unmarshal(ans.body, &v); err != nil {
		t.Fatalf("%s?%s: %v in %q", path, query, err, ans.body)
	}
	if got := ans.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("%s?%s: Access-Control-Allow-Origin %q, want *", path, query, got)
	}
	return ans.status, v, stderr
}

// topList writes a top list as "page views, ...".
func topList(v topAnswer) string {
	var b strings.Builder
	for i, p := range v.Top {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", p.Page, p.Views)
		if p.Title != "" {
			fmt.Fprintf(&b, " %q", p.Title)
		}
	}
	return b.String()
}

// topSite makes site "blog" with pages viewed on days before today (40, 29,
// 3 and 1 days ago), and the plain counter "plain".
func topSite(t *testing.T, db string, now time.Time) {
	t.Helper()
	d, err := store.Open(db, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Set("reload=off"); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateWith("blog", 0, now.AddDate(0, 0, -60), site); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateWith("plain", 0, now, counter.DefaultSettings()); err != nil {
		t.Fatal(err)
	}
	day := func(ago int) string { return now.AddDate(0, 0, -ago).Format(time.DateOnly) }
	days := []counter.PageDay{
		{Date: day(40), Page: "/old", Views: 1000, Visitors: 900}, // before any 30 days
		{Date: day(29), Page: "/a", Views: 5, Visitors: 5},        // the 30th day back
		{Date: day(29), Page: "/old", Views: 1, Visitors: 1},
		{Date: day(3), Page: "/a", Views: 4, Visitors: 3},
		{Date: day(3), Page: "/b", Views: 7, Visitors: 7},
		{Date: day(1), Page: "/c", Views: 3, Visitors: 2},
		{Date: day(1), Page: "/d", Views: 9, Visitors: 1},
	}
	if _, err := d.Import([]counter.Imported{{Name: "blog", PageDays: days}}, store.ImportOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
}

// TestTopPages reads blog's top lists from the built binary: refused until
// public-pages is on, exact over 30 days, 2 days and one, with today's
// counted hits; refused again behind a password; a plain counter and
// queries out of bounds refused with a short JSON error.
func TestTopPages(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	now := time.Now().UTC()
	topSite(t, db, now)
	// Today: three counted views of /c/ and one of /e/, a new page (keys
	// as counter.PageKey makes them: "/c").
	for i, page := range []string{"/c/", "/c/", "/e/", "/c/"} {
		out, _, stderr := runMeasured(t, counterBinary(t), append(hitEnv(t, db), "PATH_INFO=/blog.png", "QUERY_STRING=",
			"HTTP_REFERER=https://blog.example"+page, fmt.Sprintf("REMOTE_ADDR=192.0.2.%d", i+1)))
		if ans := parseCGI(t, out); ans.status != 200 || ans.header.Get("X-Counter-Error") != "" {
			t.Fatalf("hit %s: status %d, %q; %s", page, ans.status, ans.header.Get("X-Counter-Error"), stderr)
		}
	}

	status, v, _ := getTop(t, db, "/blog.json", "top=5")
	if status != 403 || v.Error == "" || len(v.Top) != 0 {
		t.Fatalf("public-pages off: status %d, %+v, want 403 and an error", status, v)
	}
	if out, err := adminRun(t, db, "config", "blog", "public-pages=on"); err != nil || !strings.Contains(out, "public-pages=on") {
		t.Fatalf("config public-pages=on: %v\n%s", err, out)
	}
	for _, tc := range []struct{ query, want string }{
		// Over 30 days: /old/'s 1,000 views of 40 days ago are not
		// among them, its one of 29 days ago is.
		// /a and /d tie on views: /a had more visitors.
		{"top=10", "/a 9, /d 9, /b 7, /c 6, /e 1, /old 1"},
		{"top=3&days=30", "/a 9, /d 9, /b 7"},
		{"top=50&days=2", "/d 9, /c 6, /e 1"},
		{"top=1&days=1", "/c 3"},
		{"top=10&days=90", "/old 1001, /a 9, /d 9, /b 7, /c 6, /e 1"},
		{"days=2&top=2&v=cache-buster", "/d 9, /c 6"},
	} {
		status, v, stderr := getTop(t, db, "/blog.json", tc.query)
		if got := topList(v); status != 200 || got != tc.want {
			t.Errorf("?%s: status %d, %q, want 200, %q; %s", tc.query, status, got, tc.want, stderr)
		}
	}
	for _, tc := range []struct {
		path, query string
		status      int
	}{
		{"/blog.json", "top=0", 400},
		{"/blog.json", "top=51", 400},
		{"/blog.json", "top=", 400},
		{"/blog.json", "top=-1", 400},
		{"/blog.json", "top=5&days=0", 400},
		{"/blog.json", "top=5&days=91", 400},
		{"/blog.json", "top=5&top=6", 400},
		{"/blog.json", "top=5&days=1e3", 400},
		{"/blog.json", "top=5&x=" + strings.Repeat("a", counter.MaxQueryLen), 400},
		{"/plain.json", "top=5", 400},
		{"/nosuch.json", "top=5", 404},
	} {
		status, v, _ := getTop(t, db, tc.path, tc.query)
		if status != tc.status || v.Error == "" || len(v.Top) != 0 {
			t.Errorf("%s?%.40s: status %d, %+v, want %d and an error", tc.path, tc.query, status, v, tc.status)
		}
	}
	// The counter's own JSON without top= is as it was.
	if status, v, _ := getTop(t, db, "/blog.json", ""); status != 200 || v.Error != "" || v.Top != nil {
		t.Errorf("/blog.json: status %d, %+v, want 200 without a list", status, v)
	}

	setHashIn(t, db, "blog", []byte("$2a$10$abcdefghijklmnopqrstuu5Mjx0cWq3tp9pQ2P.CZ8NVC7jS0EiBW"))
	status, v, _ = getTop(t, db, "/blog.json", "top=5")
	if status != 403 || len(v.Top) != 0 {
		t.Errorf("behind a password with public-pages on: status %d, %+v, want 403", status, v)
	}
	// The owner who turns it on behind a password is told.
	if out, err := adminRun(t, db, "config", "blog", "public-pages=on"); err != nil || !strings.Contains(out, "page list stays private") {
		t.Errorf("config public-pages=on behind a password: %v\n%s", err, out)
	}
}

// topPeak bounds the peak RSS of one top list's CGI process, whatever the
// site holds: well under what an export may take (exportPeak).
const topPeak = 32 << 20

// TestTopBigSite asks the built binary for the top 50 pages over 90 days
// of a site whose every day had 200 pages of its own (18,000 pages of
// near the longest key: the most a list over 90 days adds up), and
// yesterday 10,000 more, not trimmed, with a page of them the most viewed
// of all: the list is right, and the process's peak RSS stays under
// topPeak. It logs the time and the peak beside the count's own JSON.
func TestTopBigSite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	now := time.Now().UTC()
	d, err := store.Open(db, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	site, err := counter.NewSite("big.example")
	if err == nil {
		err = site.Set("max-pages=30000")
	}
	if err == nil {
		err = site.Set("public-pages=on")
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CreateWith("big", 0, now.AddDate(0, 0, -100), site); err != nil {
		t.Fatal(err)
	}
	const days, wide = counter.MaxTopDays, 10_000
	var rows []counter.PageDay
	for ago := days - 1; ago >= 1; ago-- {
		date := now.AddDate(0, 0, -ago).Format(time.DateOnly)
		n := store.KeptPagesADay
		if ago == 1 {
			n = wide
		}
		var day []counter.PageDay
		for p := range n {
			day = append(day, counter.PageDay{Date: date, Page: bigPage(ago*100_000 + p), Views: uint64(p%97 + 1), Visitors: 1})
		}
		if ago == 1 {
			day[wide/2].Views = 1_000_000
		}
		slices.SortFunc(day, func(a, b counter.PageDay) int { return strings.Compare(a.Page, b.Page) })
		rows = append(rows, day...)
	}
	if _, err := d.Import([]counter.Imported{{Name: "big", PageDays: rows}}, store.ImportOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	d.Close()

	counterBinary(t) // built before the clock starts
	for _, tc := range []struct{ name, query string }{
		{"count", ""},
		{"top over 30 days", "top=50"},
		{"top", "top=50&days=90"},
	} {
		start := time.Now()
		out, peak, stderr := runMeasured(t, counterBinary(t), append(hitEnv(t, db), "PATH_INFO=/big.json", "QUERY_STRING="+tc.query))
		took := time.Since(start)
		ans := parseCGI(t, out)
		if ans.status != 200 {
			t.Fatalf("%s: status %d; %s", tc.name, ans.status, stderr)
		}
		t.Logf("CGI %s of %d page-days: %d bytes in %v, peak RSS %.1f MB", tc.name, len(rows), len(ans.body), took.Round(time.Millisecond), float64(peak)/(1<<20))
		if tc.query != "top=50&days=90" {
			continue
		}
		var v topAnswer
		if err := json.Unmarshal(ans.body, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Top) != counter.MaxTop || v.Top[0].Page != bigPage(100_000+wide/2) || v.Top[0].Views != 1_000_000 || v.Top[1].Views != 97 {
			t.Errorf("top: %d pages, the first %+v, the second's views %d; want 50, %s with 1,000,000, then 97",
				len(v.Top), v.Top[0], v.Top[1].Views, bigPage(100_000+wide/2))
		}
		if peak > topPeak {
			t.Errorf("peak RSS %.1f MB, want at most %d MB", float64(peak)/(1<<20), topPeak>>20)
		}
	}
}

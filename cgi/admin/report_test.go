package admin

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

var updateReport = flag.Bool("update", false, "rewrite "+reportGolden+" from the report")

// reportGolden is the report of reportWorld, as cron mails it.
const reportGolden = "../../testdata/golden/report.txt"

// TestReportGolden writes the report of three counters and a site, with
// a backup of ten days ago and a doctor's finding, as of testNow, and
// compares it with the golden file (go test ./cgi/admin -run
// TestReportGolden -update rewrites it).
func TestReportGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter.db")
	db, err := store.Open(path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	created := testNow.AddDate(0, 0, -60)
	for _, name := range []string{"blog", "friend", "guestbook"} {
		if err := db.CreateWith(name, 0, created, counter.DefaultSettings()); err != nil {
			t.Fatal(err)
		}
	}
	site, err := counter.NewSite("docs.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateWith("docs", 0, created, site); err != nil {
		t.Fatal(err)
	}
	day := func(ago int, views, visitors uint64) counter.Day {
		return counter.Day{Date: testNow.AddDate(0, 0, -ago).Format(time.DateOnly), Tally: counter.Tally{Views: views, Visitors: visitors}}
	}
	bots := day(0, 3, 2)
	bots.NotCounted[counter.Bot], bots.NotCounted[counter.Reload] = 41, 3
	date := func(ago int) string { return testNow.AddDate(0, 0, -ago).Format(time.DateOnly) }
	_, err = db.Import([]counter.Imported{
		{Name: "blog", Days: []counter.Day{day(12, 40, 30), day(8, 10, 9), day(3, 50, 40), bots}},
		{Name: "guestbook", Days: []counter.Day{day(9, 4, 4)}},
		{Name: "docs", Days: []counter.Day{day(2, 20, 15)}, PageDays: []counter.PageDay{
			{Date: date(2), Page: "/guide", Views: 12, Visitors: 9}, {Date: date(2), Page: "/about", Views: 5, Visitors: 4},
			{Date: date(2), Page: "/faq", Views: 3, Visitors: 2}}},
	}, store.ImportOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Visit(store.Visit{Name: "blog", Now: testNow, Source: "Google"}); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordBackup(testNow.AddDate(0, 0, -10)); err != nil {
		t.Fatal(err)
	}
	o, err := db.Overview(testNow, 7, reportTop)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	writeReport(&got, o, []string{"database /var/lib/counter/counter.db is readable by every user: chmod o-rwx it"}, testNow, 7, store.DefaultMaxSize)
	if *updateReport {
		if err := os.WriteFile(reportGolden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(reportGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the report differs from %s:\n%s\nwant:\n%s", reportGolden, got.Bytes(), want)
	}
}

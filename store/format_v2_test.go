package store

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// formatFileV2 is a database written by the code of schema version 2, with
// the views, visitors, tallies, settings, password hash and keys that
// checkFormatV2 expects: the promise to owners who upgrade from this version.
const formatFileV2 = "../testdata/format/counter-v2.db"

// formatPasswordV2 is the password whose hash the file holds.
const formatPasswordV2 = "version 2 password"

// writeV2 writes formatFileV2 through the store, as the counter does, when
// TestFormat is run with -write-format under schema version 2. It was run once, with schema
// version 2; the file is committed and must never be written again.
// Not shared with the other versions' writers: it records what version 2 wrote.
func writeV2(t *testing.T) {
	if schemaVersion != 2 {
		t.Fatalf("schema version %d: the v2 file is the version 2 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV2)
	defer os.Remove(LockPath(formatFileV2))
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	hash, err := counter.HashPassword([]byte(formatPasswordV2))
	if err != nil {
		t.Fatal(err)
	}
	visitors := counter.DefaultSettings()
	for _, kv := range []string{"show=visitors", "reload=10m", "ignore=192.0.2.0/24,2001:db8::1", "referrers=example.org,*.example.net"} {
		if err := visitors.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	with(t, formatFileV2, Options{Create: true}, func(db *DB) {
		steps := []error{
			db.Create("home", 0, at("2026-12-01T10:00:00Z")),
			db.CreateWith("blog", 500, at("2026-12-01T11:00:00Z"), visitors),
		}
		for _, h := range []struct {
			name, when, ref string
			o               counter.Outcome
		}{
			{"home", "2026-12-01T10:05:00Z", "example.org", counter.Outcome{Kind: counter.View, NewVisitor: true}},
			{"home", "2026-12-01T10:06:00Z", "example.org", counter.Outcome{Kind: counter.Reload}},
			{"home", "2026-12-01T12:00:00Z", "", counter.Outcome{Kind: counter.Bot}},
			{"home", "2026-12-02T09:00:00Z", "", counter.Outcome{Kind: counter.GitHub}},
			{"blog", "2026-12-02T08:00:00Z", "blog.example.net", counter.Outcome{Kind: counter.View, NewVisitor: true}},
			{"blog", "2026-12-02T08:30:00Z", "blog.example.net", counter.Outcome{Kind: counter.View}},
			{"blog", "2026-12-02T09:00:00Z", "", counter.Outcome{Kind: counter.Prefetch}},
			{"blog", "2026-12-02T10:00:00Z", "", counter.Outcome{Kind: counter.Owner}},
			{"blog", "2026-12-02T11:00:00Z", "evil.example", counter.Outcome{Kind: counter.Foreign}},
			{"blog", "2026-12-02T12:00:00Z", "", counter.Outcome{Kind: counter.Ignored}},
		} {
			_, err := db.Visit(Visit{Name: h.name, Now: at(h.when), RefHost: h.ref, Outcome: h.o})
			steps = append(steps, err)
		}
		_, err := db.OwnerKey()
		steps = append(steps, err, db.SetPasswordHash("blog", hash))
		for _, err := range steps {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Logf("wrote %s; put this dump into formatDumpV2:\n%s", formatFileV2, dumpFile(t, formatFileV2))
}

// formatDumpV2 is every bucket and key of the v2 file, in bbolt's order,
// with its value in hex; bucket names end in a slash.
const formatDumpV2 = `counters/
  blog/
    allow-referrers = 6578616d706c652e6f72670a2a2e6578616d706c652e6e6574
    created = 000000006b0ea8b0
    days/
      2026-12-02 = 0000000000000002
    ignore = 3139322e302e322e302f32340a323030313a6462383a3a31
    password = 24326124313024316b4b6e594f5831687450672e2f326d524c6f65322e55395557697a4d414167792f524e73596576756f5a4978354675726658684f
    referrers/
      blog.example.net = 0000000000000002
    reload = 0000000000000258
    show = 76697369746f7273
    tally/
      2026-12-02 = 00000000000000010000000000000000000000000000000000000000000000000000000000000001000000000000000100000000000000010000000000000001
    total = 00000000000001f6
    visitors = 0000000000000001
  home/
    allow-referrers = 
    created = 000000006b0e9aa0
    days/
      2026-12-01 = 0000000000000001
      2026-12-02 = 0000000000000001
    ignore = 
    referrers/
      example.org = 0000000000000001
    reload = 0000000000000708
    show = 7669657773
    tally/
      2026-12-01 = 00000000000000010000000000000000000000000000000100000000000000010000000000000000000000000000000000000000000000000000000000000000
      2026-12-02 = 00000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
    total = 0000000000000002
    visitors = 0000000000000001
meta/
  owner-key = 151884985d315ac4b1ca9dc0037d0f1d5aa8152f64419c6d80e501c9cab681b3
  session-key = e166a15f2c7946354e74ebdbaac259efe0894a7f91b13f95eba836ce892de3f0
  tallied-since = 000000006b113300
  version = 00000002
`

// checkFormatV2 reads the committed version 2 file through the store
// (TestFormat has checked its bytes).
func checkFormatV2(t *testing.T, db *DB) {
	list, err := db.List()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range list {
		lines = append(lines, fmt.Sprintf("%s views=%d visitors=%d protected=%v %s", c.Name, c.Count, c.Visitors, c.Protected(), strings.Join(c.Settings.Format(), " ")))
	}
	want := "blog views=502 visitors=1 protected=true show=visitors reload=10m ignore=192.0.2.0/24,2001:db8::1 referrers=example.org,*.example.net theme=\n" +
		"home views=2 visitors=1 protected=false show=views reload=30m ignore= referrers= theme="
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("List:\n%s\nwant:\n%s", got, want)
	}
	h, err := db.History("blog", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	day := counter.Tally{Views: 2, Visitors: 1}
	for _, k := range []counter.Kind{counter.Prefetch, counter.Owner, counter.Foreign, counter.Ignored} {
		day.NotCounted[k] = 1
	}
	if len(h.Days) != 1 || h.Days[0].Date != "2026-12-02" || h.Days[0].Tally != day || h.TalliedSince.IsZero() {
		t.Errorf("blog's days %+v since %v; want 2026-12-02 %+v", h.Days, h.TalliedSince, day)
	}
	if len(h.Referrers) != 1 || h.Referrers[0] != (counter.Referrer{Host: "blog.example.net", Hits: 2}) {
		t.Errorf("blog's referrers %+v", h.Referrers)
	}
	home, err := db.History("home", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	d1 := counter.Tally{Views: 1, Visitors: 1}
	d1.NotCounted[counter.Reload], d1.NotCounted[counter.Bot] = 1, 1
	d2 := counter.Tally{Views: 1, GitHub: 1}
	if len(home.Days) != 2 || home.Days[0].Tally != d1 || home.Days[1].Tally != d2 {
		t.Errorf("home's days %+v; want %+v, %+v", home.Days, d1, d2)
	}
	if ok, _, err := counter.VerifyPassword(h.PasswordHash, []byte(formatPasswordV2)); !ok || err != nil {
		t.Errorf("the stored hash does not take the v2 password: %v", err)
	}
	if key, err := db.SessionKey("home"); err != nil || len(key) != 32 {
		t.Errorf("session key %x, %v", key, err)
	}
}

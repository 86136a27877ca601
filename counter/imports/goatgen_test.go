package imports

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// The GoatCounter test files are written by this generator, which writes
// them as GoatCounter's own code does, at the commits named here, from
// the visits below:
//
//   - arp242/goatcounter c957f51c43eb56dcc462b7e9d7a4550955b71846,
//     exportcsv.go lines 58-67 (a gzip'd encoding/csv file, its header
//     ExportCSVVersion+"Path", ...) and 90-93 (each row: UserAgent
//     blank, Bot "0", Session as zint.Uint128.String, "%x-%x"); the
//     rows' values from the select at 382-408 (event and first_visit as
//     the database gives a boolean: SQLite's 1 and 0, PostgreSQL's true
//     and false; size as width||',0,1').
//   - the same commit, exportjson.go lines 106-108 (the ZIP's name),
//     144-211 (its files; hit_stats from ref_counts), 214-258 (a folder
//     named as the file, info.json indented, a JSON object a line);
//     cron/ref_count.go (ref_counts: an hour, path and referrer's rows
//     marked FirstVisit, no bots, a group of none not written).
//   - memstore.go lines 295-301 and 380-418: FirstVisit on a session's
//     first view of a path, and on every row with sessions off (Session
//     zero, "0-0").
//   - 00123069cb4daf6e56e0524e23b47381f629ab96 (2020, version 1),
//     export.go lines 99-102 and 124-138: Event and FirstVisit as %t,
//     Bot as %d, Session as a UUID, Date as RFC 3339.
//
// go test ./counter/imports -run GoatCounterFiles -update-goat rewrites
// them; without the flag the test fails when a committed file is not
// what the generator writes.
var updateGoat = flag.Bool("update-goat", false, "rewrite testdata/import/goatcounter-* from the generator")

// goatVisit is a hit as GoatCounter stores it.
type goatVisit struct {
	session        uint64 // 0: sessions off
	path, title    string
	event          bool
	bot            int // only version 1 exported bots' hits
	ref, refScheme string
	at             string
}

// goatVisits: three sessions over two days, a reload, an event, a page
// linked from elsewhere, a path no page can have, and (version 1) a bot.
var goatVisits = []goatVisit{
	{session: 1, path: "/", title: "Home, sweet home", ref: "news.example/item", refScheme: "h", at: "2026-01-02T09:15:00Z"},
	{session: 1, path: "/", title: "Home, sweet home", at: "2026-01-02T09:16:00Z"},
	{session: 1, path: "/posts/café", title: `A "quoted" title`, at: "2026-01-02T09:20:00Z"},
	{session: 1, path: "click-cv-html", title: "HTML source", event: true, at: "2026-01-02T09:21:00Z"},
	{session: 2, path: "/posts/caf%C3%A9/", title: "Café", ref: "Hacker News", refScheme: "g", at: "2026-01-02T23:59:59Z"},
	{session: 2, path: "/about", title: "About", at: "2026-01-03T00:00:01Z"},
	{session: 3, path: "/about", title: "About", at: "2026-01-03T10:00:00Z"},
	{session: 3, path: "no page", title: "", at: "2026-01-03T10:01:00Z"},
	{session: 3, path: "/about", title: "About", at: "2026-01-03T10:02:00Z"},
}

// firstVisits marks each visit as GoatCounter's memstore does: the first
// of its session's views of its path, or every one with sessions off.
func firstVisits(visits []goatVisit, sessionsOff bool) []bool {
	seen := map[string]bool{}
	first := make([]bool, len(visits))
	for i, v := range visits {
		k := fmt.Sprint(v.session, "\x00", v.path)
		first[i] = sessionsOff || !seen[k]
		seen[k] = true
	}
	return first
}

// goatCSVv2 writes visits as exportcsv.go does; boolean is how the
// database spells a boolean.
func goatCSVv2(visits []goatVisit, sessionsOff bool, boolean func(bool) string) []byte {
	var b bytes.Buffer
	c := csv.NewWriter(&b)
	c.Write([]string{"2" + "Path", "Title", "Event", "UserAgent",
		"Browser", "System", "Session", "Bot", "Referrer", "Referrer scheme",
		"Screen size", "Location", "FirstVisit", "Date"})
	first := firstVisits(visits, sessionsOff)
	for i, v := range visits {
		session := fmt.Sprintf("%x-%x", 0x287fb97cbed4e4f*v.session, 0x8e4f5c975b8fee06-v.session)
		if sessionsOff {
			session = "0-0"
		}
		c.Write([]string{v.path, v.title, boolean(v.event), "",
			"Firefox 128", "Linux", session, "0", v.ref,
			v.refScheme, "1280,0,1", "NL", boolean(first[i]),
			v.at})
	}
	c.Flush()
	return b.Bytes()
}

func sqliteBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func postgresBool(b bool) string { return fmt.Sprint(b) }

// goatCSVv1 writes visits as export.go did in 2020, a bot's hit with them.
func goatCSVv1(visits []goatVisit) []byte {
	var b bytes.Buffer
	c := csv.NewWriter(&b)
	c.Write([]string{"1" + "Path", "Title", "Event", "Bot", "Session",
		"FirstVisit", "Referrer", "Referrer scheme", "Browser", "Screen size",
		"Location", "Date"})
	first := firstVisits(visits, false)
	for i, v := range visits {
		s := fmt.Sprintf("0d4b6f0e-1a2b-4c3d-8e9f-%012x", v.session)
		c.Write([]string{v.path, v.title, fmt.Sprintf("%t", v.event),
			fmt.Sprintf("%d", v.bot), s, fmt.Sprintf("%t", first[i]),
			v.ref, v.refScheme, "Firefox 79", "1920,1080,1",
			"ID", v.at})
	}
	c.Flush()
	return b.Bytes()
}

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	z := gzip.NewWriter(&out)
	z.Write(b)
	z.Close()
	return out.Bytes()
}

// goatZIP writes visits as exportjson.go's RunJSON writes a site's
// counts, from ref_counts as cron/ref_count.go fills it.
func goatZIP(visits []goatVisit) []byte {
	type path struct {
		ID    int    `json:"id"`
		Path  string `json:"path"`
		Title string `json:"title"`
		Event bool   `json:"event,omitempty"`
	}
	type ref struct {
		ID        int    `json:"id"`
		Ref       string `json:"ref"`
		RefScheme string `json:"ref_scheme"`
	}
	type hitStat struct {
		Hour   string `json:"hour"`
		PathID int    `json:"path_id"`
		RefID  int    `json:"ref_id"`
		Count  int    `json:"count"`
	}
	var paths []path
	var refs []ref
	pathIDs, refIDs := map[string]int{}, map[string]int{}
	counts := map[hitStat]int{}
	var order []hitStat
	first := firstVisits(visits, false)
	for i, v := range visits {
		if pathIDs[v.path] == 0 {
			paths = append(paths, path{ID: len(paths) + 1, Path: v.path, Title: v.title, Event: v.event})
			pathIDs[v.path] = len(paths)
		}
		if v.ref != "" && refIDs[v.ref] == 0 {
			refs = append(refs, ref{ID: len(refs) + 1, Ref: v.ref, RefScheme: v.refScheme})
			refIDs[v.ref] = len(refs)
		}
		at, _ := time.Parse(time.RFC3339, v.at)
		k := hitStat{Hour: at.Truncate(time.Hour).Format(time.RFC3339), PathID: pathIDs[v.path], RefID: refIDs[v.ref]}
		if v.bot > 0 || !first[i] {
			continue
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	var out bytes.Buffer
	z := zip.NewWriter(&out)
	dir := "goatcounter-export-example-20260104T120000Z"
	w, _ := z.Create(filepath.Join(dir, "info.json"))
	info, _ := json.MarshalIndent(map[string]any{
		"export_version": "1.0", "goatcounter_version": "v2.7.0",
		"created_for": "example.goatcounter.com", "created_by": "user_id=1 <owner@example.com>",
		"created_at": "2026-01-04T12:00:00Z",
	}, "", "  ")
	w.Write(append(info, '\n'))
	jsonl := func(name string, rows ...any) {
		w, _ := z.Create(filepath.Join(dir, name+".jsonl"))
		for _, r := range rows {
			j, _ := json.Marshal(r)
			w.Write(append(j, '\n'))
		}
	}
	jsonl("paths", anys(paths)...)
	jsonl("refs", anys(refs)...)
	for _, name := range []string{"browsers", "systems", "locations", "languages", "browser_stats", "system_stats", "location_stats", "size_stats", "language_stats"} {
		jsonl(name)
	}
	var stats []hitStat
	for _, k := range order {
		k.Count = counts[k]
		stats = append(stats, k)
	}
	jsonl("hit_stats", anys(stats)...)
	z.Close()
	return out.Bytes()
}

func anys[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// goatFiles are the test files and what the generator writes in each.
func goatFiles() map[string][]byte {
	shuffled := slices.Clone(goatVisits)
	slices.Reverse(shuffled)
	v1 := append(slices.Clone(goatVisits), goatVisit{session: 4, path: "/about", bot: 3, at: "2026-01-03T11:00:00Z"})
	return map[string][]byte{
		"goatcounter-v2.csv.gz":             gzipped(goatCSVv2(goatVisits, false, sqliteBool)),
		"goatcounter-v2.csv":                goatCSVv2(goatVisits, false, sqliteBool),
		"goatcounter-v2-postgres-bom.csv":   append([]byte("\xef\xbb\xbf"), goatCSVv2(goatVisits, false, postgresBool)...),
		"goatcounter-v2-unordered.csv":      goatCSVv2(shuffled, false, sqliteBool),
		"goatcounter-v2-sessions-off.csv":   goatCSVv2(goatVisits, true, sqliteBool),
		"goatcounter-v2-header-only.csv.gz": gzipped(goatCSVv2(nil, false, sqliteBool)),
		"goatcounter-v1.csv":                goatCSVv1(v1),
		"goatcounter-export.zip":            goatZIP(goatVisits),
	}
}

// contents is what a test file holds once unwrapped: a gzip'd file's
// bytes, a ZIP's files by name.
func contents(t *testing.T, name string, b []byte) string {
	t.Helper()
	switch {
	case strings.HasSuffix(name, ".gz"):
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := io.ReadAll(z)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return string(out)
	case strings.HasSuffix(name, ".zip"):
		z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out strings.Builder
		for _, f := range z.File {
			r, err := f.Open()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			data, _ := io.ReadAll(r)
			r.Close()
			fmt.Fprintf(&out, "%s\n%s\n", f.Name, data)
		}
		return out.String()
	}
	return string(b)
}

func TestGoatCounterFilesAreGenerated(t *testing.T) {
	for name, want := range goatFiles() {
		file := filepath.Join("../../testdata/import", name)
		if *updateGoat {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (go test ./counter/imports -run GoatCounterFiles -update-goat writes it)", err)
		}
		if contents(t, name, got) != contents(t, name, want) {
			t.Errorf("%s is not what the generator writes: run go test ./counter/imports -run GoatCounterFiles -update-goat", file)
		}
	}
}

// goatWant is what GoatCounter's own code counts for visits (its
// cron/hit_count.go): by UTC day and page, the rows that are no event and
// no bot's as views, those marked FirstVisit as visitors; a day's
// visitors its pages' added up. zip is the ZIP export, which keeps the
// visitors alone.
func goatWant(visits []goatVisit, sessionsOff, zip bool) ([]counter.Day, []counter.PageDay) {
	first := firstVisits(visits, sessionsOff)
	days := map[string]*counter.Day{}
	pages := map[[2]string]*counter.PageDay{}
	for i, v := range visits {
		if v.event {
			continue
		}
		at, _ := time.Parse(time.RFC3339, v.at)
		date := at.UTC().Format(time.DateOnly)
		if days[date] == nil {
			days[date] = &counter.Day{Date: date}
		}
		d := days[date]
		if v.bot > 0 {
			d.NotCounted[counter.Bot]++
			continue
		}
		views, visitors := uint64(1), uint64(0)
		if first[i] {
			visitors = 1
		}
		if zip {
			views = visitors
			if visitors == 0 {
				continue
			}
		}
		d.Views += views
		d.Visitors += visitors
		page, err := counter.PageKey(v.path, nil)
		if err != nil {
			continue
		}
		k := [2]string{date, page}
		if pages[k] == nil {
			pages[k] = &counter.PageDay{Date: date, Page: page}
		}
		pages[k].Views += views
		pages[k].Visitors += visitors
	}
	var ds []counter.Day
	for _, d := range days {
		ds = append(ds, *d)
	}
	slices.SortFunc(ds, func(a, b counter.Day) int { return strings.Compare(a.Date, b.Date) })
	var ps []counter.PageDay
	for _, p := range pages {
		ps = append(ps, *p)
	}
	sortPageDays(ps)
	return ds, ps
}

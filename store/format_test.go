package store

import (
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
)

// formatFileV1 is a database written by the code of schema version 1, with
// the counts, days, referrers, password hash and session key that
// checkFormatV1 expects. It is the promise to every owner who upgrades: a
// later version must read it as it is, or migrate it.
const formatFileV1 = "../testdata/format/counter-v1.db"

// formatPasswordV1 is the password whose hash the file holds.
const formatPasswordV1 = "version 1 password"

// The file was written once through the store of schema version 1 (commit
// 2d48707, the then TestFormatV1 -write-format-v1) and must never be written again.

// formatDumpV1 is every bucket and key of the v1 file, in bbolt's order,
// with its value in hex; bucket names end in a slash.
const formatDumpV1 = `counters/
  blog/
    created = 000000006b0be288
    days/
      2026-11-30 = 0000000000000002
    referrers/
      blog.example = 0000000000000002
    total = 00000000000003ea
  home/
    created = 000000006b0aa620
    days/
      2026-11-28 = 0000000000000003
      2026-11-29 = 0000000000000002
      2026-12-01 = 0000000000000001
    password = 2432612431302468654b6a68505148504776726f6d64734d5866782e4f4e54524c464c6d76446777476453345330384b6d324843306c665156484b32
    referrers/
      example.org = 0000000000000003
      news.example = 0000000000000001
    total = 0000000000000006
meta/
  session-key = 9937e5a1f697d5c30727b2c7da0708a22e12e861e207345f894b941e96ac8096
  version = 00000001
`

// checkFormatV1 reads the committed version 1 file through the store
// (TestFormat has checked its bytes).
func checkFormatV1(t *testing.T, db *DB) {
	list, err := db.List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list {
		names = append(names, fmt.Sprintf("%s %d %s protected=%v", c.Name, c.Count, c.Created.Format(time.RFC3339), c.Protected()))
	}
	if got, want := strings.Join(names, "\n"), "blog 1002 2026-11-29T08:30:00Z protected=false\nhome 6 2026-11-28T10:00:00Z protected=true"; got != want {
		t.Errorf("List:\n%s\nwant:\n%s", got, want)
	}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name      string
		days      []counter.Day
		referrers []counter.Referrer
	}{
		{"home",
			[]counter.Day{views("2026-11-28", 3), views("2026-11-29", 2), views("2026-12-01", 1)},
			[]counter.Referrer{{Host: "example.org", Hits: 3}, {Host: "news.example", Hits: 1}}},
		{"blog",
			[]counter.Day{views("2026-11-30", 2)},
			[]counter.Referrer{{Host: "blog.example", Hits: 2}}},
	} {
		h, err := db.History(c.name, since)
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(h.Referrers, func(a, b counter.Referrer) int { return strings.Compare(a.Host, b.Host) })
		if !slices.Equal(h.Days, c.days) || !slices.Equal(h.Referrers, c.referrers) {
			t.Errorf("%s: days %v, referrers %v; want %v, %v", c.name, h.Days, h.Referrers, c.days, c.referrers)
		}
	}
	home, err := db.Counter("home")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _, err := counter.VerifyPassword(home.PasswordHash, []byte(formatPasswordV1)); !ok || err != nil {
		t.Errorf("the stored hash does not take the v1 password: %v", err)
	}
	key, err := db.SessionKey("home")
	if err != nil || len(key) != 32 {
		t.Errorf("session key %x, %v; want the file's 32 bytes", key, err)
	}
}

// views is a day of n views and nothing else.
func views(date string, n uint64) counter.Day {
	return counter.Day{Date: date, Tally: counter.Tally{Views: n}}
}

// dumpFile lists every bucket and key of the bbolt file at path, in
// bbolt's order, as "path = hex value" lines.
func dumpFile(t *testing.T, path string) string {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out strings.Builder
	var walk func(prefix string, c *bolt.Cursor)
	walk = func(prefix string, c *bolt.Cursor) {
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil {
				fmt.Fprintf(&out, "%s%s/\n", prefix, k)
				walk(prefix+"  ", c.Bucket().Bucket(k).Cursor())
				continue
			}
			fmt.Fprintf(&out, "%s%s = %s\n", prefix, k, hex.EncodeToString(v))
		}
	}
	err = b.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			fmt.Fprintf(&out, "%s/\n", name)
			walk("  ", bk.Cursor())
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// copyOf copies the file at path into the test's temp dir, so that
// opening it leaves no lock file in testdata.
func copyOf(t *testing.T, path string) string {
	t.Helper()
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst := filepath.Join(t.TempDir(), filepath.Base(path))
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(f, src); err != nil {
		t.Fatal(err)
	}
	return dst
}

var writeFormat = flag.Bool("write-format", false, "write the committed file of the current schema version (only ever once, with the release that makes it)")

// formats are the committed files, one per schema version, each written
// once by the release of its version and read by every later one. A
// schema bump adds its line here, with its write and check, its file and
// the file's listing, in the same commit.
var formats = []struct {
	version int
	file    string
	// dump is the file's listing (dumpFile): inline, or, when it ends
	// in .dump, the file that holds it; pinned are lines it must hold.
	dump   string
	pinned []string
	write  func(*testing.T) // how the file was written; nil for version 1, written before the table
	check  func(*testing.T, *DB)
}{
	{1, formatFileV1, formatDumpV1, nil, nil, checkFormatV1},
	{2, formatFileV2, formatDumpV2, nil, writeV2, checkFormatV2},
	{3, formatFileV3, formatDumpV3, nil, writeV3, checkFormatV3},
	{4, formatFileV4, formatDumpFileV4, []string{
		"    page-days/\n      2026-12-03/p000 = 00000000000000020000000000000001\n",
		"      2026-12-03/p204 = 00000000000000010000000000000001\n      2026-12-04/p000 = 00000000000000010000000000000001\n",
		"    pages-folded = 323032362d31322d3033\n",
		"  version = 00000004\n",
	}, writeV4, checkFormatV4},
	{5, formatFileV5, formatDumpFileV5, []string{
		"    pages-trimmed = 323032362d31322d3034\n",
		"    pages-folded = 323032362d31322d3034\n",
		"  version = 00000005\n",
	}, writeV5, checkFormatV5},
	{6, formatFileV6, formatDumpFileV6, []string{
		"    theme = 706978656c\n",
		"    theme = 6c6564\n",
		"themes/\n  pixel/\n",
		"  site\x00 = 00000000000000040000000000000003\n",
		"  site\x00p/posts/hello = 00000000000000020000000000000001\n",
		"  visits\x00 = 000000000000000300000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001\n",
		"  visits\x00rexample.org = 0000000000000003\n",
		"  version = 00000006\n",
	}, writeV6, checkFormatV6},
	{7, formatFileV7, formatDumpFileV7, []string{
		"    sources/\n      Google = 0000000000000002\n      forum.example = 0000000000000001\n",
		"    titles/\n      / = 486f6d65\n",
		"  news\x00sGoogle = 0000000000000002\n",
		"  version = 00000007\n",
	}, writeV7, checkFormatV7},
	{8, formatFileV8, formatDumpFileV8, []string{
		"  owner-password = 2432612431302",
		"  owner-session-key = ",
		"  version = 00000008\n",
	}, writeV8, checkFormatV8},
}

// TestFormat reads every committed file twice: with bbolt alone, against
// the listing of every bucket, key and value (a renamed key or a changed
// encoding fails it), and through the store (a store that no longer reads
// the file as written fails it). With -write-format, it first writes the
// file of the current schema version.
func TestFormat(t *testing.T) {
	if last := formats[len(formats)-1].version; last != schemaVersion {
		t.Fatalf("schema version %d, and the last committed file is version %d's: a bump adds its file to formats", schemaVersion, last)
	}
	for _, f := range formats {
		t.Run(fmt.Sprintf("v%d", f.version), func(t *testing.T) {
			if *writeFormat && f.version == schemaVersion {
				f.write(t)
			}
			path := copyOf(t, f.file)
			want := f.dump
			if strings.HasSuffix(f.dump, ".dump") {
				b, err := os.ReadFile(f.dump)
				if err != nil {
					t.Fatal(err)
				}
				want = string(b)
			}
			if got := dumpFile(t, path); got != want {
				t.Errorf("the v%d file read with bbolt:\n%s\nwant:\n%s", f.version, got, want)
			}
			for _, line := range f.pinned {
				if !strings.Contains(want, line) {
					t.Errorf("the v%d listing lacks %q", f.version, line)
				}
			}
			db, err := testOpen(path, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			f.check(t, db)
		})
	}
}

// listLines is what List says of every counter in db, a line each: its
// figures and its settings, for the format tests to compare.
func listLines(t *testing.T, db *DB) string {
	t.Helper()
	list, err := db.List()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range list {
		lines = append(lines, fmt.Sprintf("%s views=%d visitors=%d pages=%d protected=%v %s", c.Name, c.Count, c.Visitors, c.Pages, c.Protected(), strings.Join(c.Settings.Format(), " ")))
	}
	return strings.Join(lines, "\n")
}

// writeDump writes the readable dump of the format file just written
// beside it.
func writeDump(t *testing.T, file, dump string) {
	t.Helper()
	if err := os.WriteFile(dump, []byte(dumpFile(t, file)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s and %s", file, dump)
}

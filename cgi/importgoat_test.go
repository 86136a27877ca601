package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportGoatCounter imports the files goatgen_test.go and
// plausiblegen_test.go write as GoatCounter and Plausible write them, through the built command, into a site: each
// gives the same pages' counts (pinned in counter/imports), events are
// said to be left out, and a header-only export is refused with what to
// do about it.
func TestImportGoatCounter(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	file := func(name string) string { return filepath.Join("..", "testdata", "import", name) }
	for i, tc := range []struct {
		file string
		ok   bool
		out  []string
	}{
		{"goatcounter-v2.csv.gz", true, []string{"views: 0 -> 8; visitors: 0 -> 6", "pages: 3 days changed, 3 new pages", "left out: 1 events", "sources (where readers came from): 2 changed"}},
		{"goatcounter-v2-postgres-bom.csv", true, []string{"views: 0 -> 8; visitors: 0 -> 6"}},
		{"goatcounter-v2-unordered.csv", true, []string{"views: 0 -> 8; visitors: 0 -> 6"}},
		{"goatcounter-v1.csv", true, []string{"views: 0 -> 8; visitors: 0 -> 6"}},
		{"goatcounter-v2-sessions-off.csv", true, []string{"views: 0 -> 8; visitors: 0 -> 8"}},
		{"goatcounter-export.zip", true, []string{"views: 0 -> 6; visitors: 0 -> 6", "left out: 1 visitors of events"}},
		{"plausible-export.zip", true, []string{"views: 0 -> 7; visitors: 0 -> 4", "pages: 3 days changed, 3 new pages", "referring hosts: 1 changed", "sources (where readers came from): 2 changed"}},
		{"goatcounter-v2-header-only.csv.gz", false, []string{"line 1", `"Individual pageviews"`, "ZIP export"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			name := "site" + string(rune('a'+i))
			if out, err := adminRun(t, db, "create", name, "-site", "-hosts", "blog.example"); err != nil {
				t.Fatalf("create: %v %s", err, out)
			}
			out, err := adminRun(t, db, "import", "-name", name, file(tc.file))
			if (err == nil) != tc.ok {
				t.Fatalf("import %s: got %v, want ok=%v\n%s", tc.file, err, tc.ok, out)
			}
			for _, want := range tc.out {
				if !strings.Contains(out, want) {
					t.Errorf("import %s: got\n%s\nwant %q in it", tc.file, out, want)
				}
			}
		})
	}
	t.Run("a ZIP on standard input", func(t *testing.T) {
		f, err := os.Open(file("goatcounter-export.zip"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command(counterBinary(t), "import", "-name", "sitea", "-")
		cmd.Env, cmd.Stdin = []string{"COUNTER_DB=" + db}, struct{ io.Reader }{f} // a pipe
		b, err := cmd.CombinedOutput()
		out := string(b)
		if err == nil || !strings.Contains(out, "give its name") {
			t.Errorf("got %v\n%s\nwant a refusal that asks for the file's name", err, out)
		}
	})
}

package crawler

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoInit builds a program that links only this package of the module
// and wants no init function of the package in it, its tables laid out as
// data, and no regexp: a CGI hit that asks IsCrawler pays nothing at
// start-up.
func TestNoInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "tiny")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/tiny").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	const pkg = "hitcounter/counter/crawler."
	tables := map[string]bool{"insts": false, "ranges": false, "needles": false, "needleSlots": false,
		"crawlerProgs": false, "exclusionProgs": false, "exclusionStarts": false}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		kind, name := f[len(f)-2], f[len(f)-1]
		switch {
		case strings.HasPrefix(name, pkg+"init"):
			t.Errorf("the package has an init function, %s: a generated table is not static", name)
		case strings.HasPrefix(name, "regexp."):
			t.Fatalf("the program links regexp (%s)", name)
		}
		if seen, ok := tables[strings.TrimPrefix(name, pkg)]; ok && !seen {
			tables[strings.TrimPrefix(name, pkg)] = true
			if kind != "D" && kind != "R" {
				t.Errorf("%s is of kind %s, want D or R: it is filled at start-up", name, kind)
			}
		}
	}
	for name, seen := range tables {
		if !seen {
			t.Errorf("%s%s is not in the program", pkg, name)
		}
	}
}

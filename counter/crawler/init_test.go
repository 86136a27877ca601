package crawler

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoInit builds a program that links only this package of the module
// and wants no init function of the package in it, no variable (its
// tables are constants, in read-only data: see tables.go), and no regexp:
// a CGI hit that asks IsCrawler pays nothing at start-up.
func TestNoInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "tiny")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/tiny").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", "-size", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	const pkg = "hitcounter/counter/crawler."
	funcs := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		size, kind, name := f[1], f[2], f[3]
		switch {
		case strings.HasPrefix(name, "regexp."):
			t.Fatalf("the program links regexp (%s)", name)
		case !strings.HasPrefix(name, pkg):
		case strings.HasPrefix(name, pkg+"init"):
			t.Errorf("the package has an init function, %s: a table is not static", name)
		case kind == "T" || kind == "t":
			funcs++
		case size != "0":
			t.Errorf("%s is a variable (%s, %s bytes): the tables belong in constants", name, kind, size)
		}
	}
	if funcs == 0 {
		t.Errorf("no function of %s in the program", pkg)
	}
}

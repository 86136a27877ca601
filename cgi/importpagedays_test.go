package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Issue 36, item 6 again: a million days of pages (a thousand pages for
// a thousand days) took some 135 MB to import in every format, and this
// counter's own stats.csv of a million pages 171 MB: the readers kept
// each page's day as a map entry, then as a PageDay, and the exports'
// pages were not capped. They now keep them as a run of varints, and cap
// the exports' pages as the other readers do.

// importBench writes, with deploy/bench/importbench, a file of kind of
// pages pages, each viewed on each of days days.
func importBench(t *testing.T, dir, kind string, pages, days int) string {
	t.Helper()
	bin := filepath.Join(dir, "importbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../deploy/bench/importbench").CombinedOutput(); err != nil {
		t.Fatalf("build importbench: %v\n%s", err, out)
	}
	file := filepath.Join(dir, kind)
	args := []string{kind, "-pages", strconv.Itoa(pages), "-days", strconv.Itoa(days)}
	if kind == "log" {
		args = append(args, "-size", "1", "-sweep") // each page each day, little more
	}
	if out, err := exec.Command(bin, append(args, file)...).CombinedOutput(); err != nil {
		t.Fatalf("importbench: %v\n%s", err, out)
	}
	return file
}

// TestImportPageDaysBounded imports through the built binary, with a hit
// every 100 ms, this counter's own exports of a million pages on a day,
// and a million days of pages (a thousand pages for a thousand days) as
// Plausible's ZIP, an access log and both own exports (a tenth of each
// with -short): as boundedImport checks, under zipImportPeak, no step
// longer than zipImportHold, every hit answered and counted.
func TestImportPageDaysBounded(t *testing.T) {
	wide, pages, days := 1_000_000, 1000, 1000
	if testing.Short() {
		wide, pages = 100_000, 100
	}
	for _, tc := range []struct {
		name, kind  string
		pages, days int
		folded      bool
	}{
		{"owncsv-wide", "owncsv", wide, 1, true},
		{"ownjson-wide", "ownjson", wide, 1, true},
		{"plausiblezip", "plausiblezip", pages, days, false},
		{"log", "log", pages, days, false},
		{"owncsv", "owncsv", pages, days, false},
		{"ownjson", "ownjson", pages, days, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := importBench(t, dir, tc.kind, tc.pages, tc.days)
			var args []string
			switch tc.kind {
			case "log":
				args = []string{"-log", file, "www"}
			case "ownjson":
				args = []string{file} // it names www
			default:
				args = []string{"-name", "www", file}
			}
			boundedImport(t, dir, args, tc.folded)
		})
	}
}

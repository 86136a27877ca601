package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hitcounter/cgi/testenv"
)

// underGNUTime makes cmd run under GNU time, and returns what reads its
// peak resident memory in bytes once cmd has run. The rusage of a child
// of this test is no measure: os/exec starts it sharing the test's memory
// (CLONE_VM), and Linux carries that memory's high-water mark across
// execve, so a child's ru_maxrss starts at the test process's own peak,
// hundreds of MB once other tests have run. GNU time forks its child
// afresh.
func underGNUTime(t testing.TB, cmd *exec.Cmd) (peak func() int64) {
	t.Helper()
	timeBin, err := exec.LookPath("time")
	if err != nil {
		timeBin = "/usr/bin/time"
	}
	if _, err := os.Stat(timeBin); err != nil {
		testenv.Need(t, "GNU time (apt-get install time)")
	}
	report := filepath.Join(t.TempDir(), "peak")
	// The program itself goes by the path exec found for it.
	cmd.Args = append([]string{timeBin, "-q", "-o", report, "-f", "%M", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = timeBin
	return func() int64 {
		t.Helper()
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatalf("GNU time's report: %v", err)
		}
		fields := strings.Fields(string(b))
		if len(fields) == 0 {
			t.Fatalf("GNU time said nothing")
		}
		kb, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if err != nil {
			t.Fatalf("GNU time said %q", b)
		}
		return kb << 10
	}
}

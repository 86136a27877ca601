package main

import (
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/cgi/internal/testenv"
)

// TestAdminWarnsOnceAndStillRuns runs the binary as root on a database
// whose directory belongs to www-data: each command warns once, on
// stderr, and does its work.
func TestAdminWarnsOnceAndStillRuns(t *testing.T) {
	testenv.NeedRoot(t)
	db := filepath.Join(testenv.OwnedDir(t, testenv.UIDWWWData, 0o750), "counter.db")
	tests := []struct {
		args []string
		out  string
	}{
		{[]string{"create", "blog"}, "created blog at 0"},
		{[]string{"set", "blog", "7"}, ""},
		{[]string{"passwd", "-clear", "blog"}, "public now"}, // opens the file twice
		{[]string{"list"}, "blog  7"},
	}
	for _, tc := range tests {
		out, err := adminRun(t, db, tc.args...)
		if err != nil || !strings.Contains(out, tc.out) {
			t.Errorf("counter.cgi %s: %v, output %q; want it to work, saying %q", strings.Join(tc.args, " "), err, out, tc.out)
		}
		if n := strings.Count(out, "counter: warning: running as root"); n != 1 {
			t.Errorf("counter.cgi %s: %d warnings in %q, want 1", strings.Join(tc.args, " "), n, out)
		}
	}
}

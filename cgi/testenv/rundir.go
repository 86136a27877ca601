package testenv

import (
	"path/filepath"
	"strings"
	"testing"
)

// RunDirOf is the runtime directory the tests give every process on the
// database at dbPath, as they would all share /run/counter: the folder
// run beside it, so that it belongs to whichever user a web server runs
// the CGI as, and the CGI makes it on the first login.
func RunDirOf(dbPath string) string { return filepath.Join(filepath.Dir(dbPath), "run") }

// OwnRunDir gives env a runtime directory of the test's own when it names
// none: the binary's default is the machine's /run/counter, which no test
// may read or write (a real counter may be serving there). Every process
// on one database gets the one beside it (RunDirOf).
func OwnRunDir(tb testing.TB, env []string) []string {
	tb.Helper()
	dir := ""
	for _, e := range env {
		if strings.HasPrefix(e, "COUNTER_RUN_DIR=") {
			return env
		}
		if db, ok := strings.CutPrefix(e, "COUNTER_DB="); ok {
			dir = RunDirOf(db)
		}
	}
	if dir == "" {
		dir = filepath.Join(tb.TempDir(), "run")
	}
	return append(env[:len(env):len(env)], "COUNTER_RUN_DIR="+dir)
}

//go:build !etcd

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamesCluster pins which stores the full tool hands to the cluster
// tool: COUNTER_DB's, and outside CGI an argument's, by flag or by place.
func TestNamesCluster(t *testing.T) {
	for _, c := range []struct {
		db   string
		args []string
		want bool
	}{
		{"/var/lib/counter/counter.db", []string{"counter", "check"}, false},
		{"etcd://10.0.0.1:2379/site", []string{"counter", "check"}, true},
		{"/var/lib/counter/counter.db", []string{"counter", "copy", "/var/lib/counter/counter.db", "etcd://h1:2379,h2:2379/site"}, true},
		{"", []string{"counter", "check", "-db", "etcd://h1:2379/site"}, true},
		{"", []string{"counter", "check", "-db=etcd://h1:2379/site"}, true},
		{"", []string{"counter", "check", "--db=etcd://h1:2379/site"}, true},
		{"", []string{"counter", "import", "https://example.org/export.csv"}, false},
		{"", nil, false},
	} {
		if got := namesCluster(c.db, c.args); got != c.want {
			t.Errorf("namesCluster(%q, %q) = %v, want %v", c.db, c.args, got, c.want)
		}
	}
}

// TestClusterToolMissing runs the full tool without the cluster tool
// beside it on a cluster's address: it says what to install, at once,
// without trying to reach the cluster.
func TestClusterToolMissing(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "counter-tool")
	if out, err := exec.Command("go", "build", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{"COUNTER_DB=etcd://127.0.0.1:9/site"}, []string{"check"}},
		{nil, []string{"copy", filepath.Join(dir, "counter.db"), "etcd://127.0.0.1:9/site"}},
	} {
		stdout, stderr, code := runPlain(t, tool, append(env, c.env...), "", c.args...)
		if code != 1 || !strings.Contains(stderr, "install the package") || !strings.Contains(stderr, "counter-cluster") {
			t.Errorf("%q %s: exit %d, %s%s; want exit 1 naming counter-cluster and the package", c.env, c.args, code, stdout, stderr)
		}
	}
}

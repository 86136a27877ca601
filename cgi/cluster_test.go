package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestClusterThroughTheTools moves a counter's file into a real etcd,
// counts CGI hits on it through the hit binary, backs the cluster up
// into a file and moves it back into a file: copy, check, backup and the
// hits work on a cluster's store, with the three programs laid out as
// installed. The hit binary hands a cluster's hit to the full tool, and
// the full tool, built without the etcd client, hands every command and
// request on a cluster to the cluster tool beside it (-tags etcd).
func TestClusterThroughTheTools(t *testing.T) {
	srv := etcdtest.Start(t)
	dir := t.TempDir()
	tool := filepath.Join(dir, "counter-tool")
	if out, err := exec.Command("go", "build", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if out, err := exec.Command("go", "build", "-tags", "etcd", "-o", filepath.Join(dir, "counter-cluster"), ".").CombinedOutput(); err != nil {
		t.Fatalf("build -tags etcd: %v\n%s", err, out)
	}
	hit, err := buildHit(filepath.Join(dir, "counter.cgi"), tool)
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "COUNTER_RUN_DIR=" + runDir}
	admin := func(db string, args ...string) string {
		t.Helper()
		stdout, stderr, code := runPlain(t, tool, append(env, "COUNTER_DB="+db), "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}
	file := filepath.Join(dir, "counter.db")
	cluster := etcdkv.Scheme + strings.TrimPrefix(srv.Endpoint, "http://") + "/site"
	admin(file, "create", "page", "40")
	t.Log(admin(file, "copy", file, cluster))
	for i, addr := range []string{"192.0.2.1", "192.0.2.2", "2001:db8::3"} {
		cgiEnv := hitRequest{path: "/page.svg"}.cgiEnv(cluster)
		cgiEnv = append(cgiEnv, "REMOTE_ADDR="+addr, "COUNTER_RUN_DIR="+runDir)
		stdout, stderr, code := runPlain(t, hit, cgiEnv, "")
		if code != 0 || !strings.Contains(stdout, "Status: 200") && !strings.HasPrefix(stdout, "Content-Type: image/svg+xml") {
			t.Fatalf("hit %d: exit %d, %.200q %s", i, code, stdout, stderr)
		}
		if stderr != "" {
			t.Errorf("hit %d logged %q", i, stderr)
		}
	}
	check := admin(cluster, "check")
	if strings.Contains(check, "bytes") {
		t.Errorf("check of a cluster gives a file's size: %s", check)
	}
	saved := filepath.Join(dir, "backup.db")
	if got := admin(cluster, "backup", saved); !strings.Contains(got, "1 counter(s), 43 view(s)") {
		t.Errorf("backup of the cluster: %s", got)
	}
	back := filepath.Join(dir, "back.db")
	t.Log(admin(cluster, "copy", cluster, back))
	if got := admin(back, "check"); !strings.Contains(got, "1 counter(s), 43 view(s)") || !strings.Contains(check, "43 view(s)") {
		t.Errorf("check of the cluster: %s; of the file copied back: %s; want 43 views", check, got)
	}
}

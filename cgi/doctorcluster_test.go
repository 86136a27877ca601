package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestDoctorOnCluster runs doctor on a store in a real etcd, through the
// full tool built -tags etcd: it checks the members and the store, not a
// file that is not there; it names a member that does not answer, and a
// NOSPACE alarm raised on a member past its quota.
func TestDoctorOnCluster(t *testing.T) {
	etcdtest.Need(t)
	dir := t.TempDir()
	tool := filepath.Join(dir, "counter-tool")
	if out, err := exec.Command("go", "build", "-tags", "etcd", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("build -tags etcd: %v\n%s", err, out)
	}
	runDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(db string, args ...string) (string, int) {
		t.Helper()
		env := []string{"PATH=" + os.Getenv("PATH"), "COUNTER_RUN_DIR=" + runDir, "COUNTER_DB=" + db, "COUNTER_WAIT=3s"}
		stdout, stderr, code := runPlain(t, tool, env, "", args...)
		return stdout + stderr, code
	}
	addr := func(s *etcdtest.Server, more ...string) string {
		hosts := append([]string{strings.TrimPrefix(s.Endpoint, "http://")}, more...)
		return etcdkv.Scheme + strings.Join(hosts, ",") + "/site"
	}
	srv := etcdtest.Start(t)
	if out, code := run(addr(srv), "create", "page", "40"); code != 0 {
		t.Fatalf("create: %d %s", code, out)
	}
	// A slow machine's hash is not what this test is about.
	out, code := run(addr(srv), "doctor", "-max", "1m")
	for _, want := range []string{"etcd member " + strings.TrimPrefix(srv.Endpoint, "http://") + ": etcd ", "leader", "of the quota of 2048.0 MiB",
		"store " + addr(srv) + ": ok, schema", "1 counter(s)", "all good"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor on a cluster: no %q in\n%s", want, out)
		}
	}
	if code != 0 || strings.Contains(out, "PROBLEM") {
		t.Errorf("doctor on a healthy cluster: exit %d\n%s", code, out)
	}

	// A second endpoint where nothing answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	out, code = run(addr(srv, dead), "doctor", "-max", "1m")
	if code == 0 || !strings.Contains(out, "PROBLEM: etcd member "+dead+" does not answer") {
		t.Errorf("doctor with a member down: exit %d, want its name\n%s", code, out)
	}

	// A member past a small quota raises NOSPACE.
	full, err := etcdtest.Launch(t.TempDir(), "--quota-backend-bytes=8388608")
	if err != nil {
		t.Fatal(err)
	}
	defer full.Stop()
	if out, code := run(addr(full), "create", "page", "40"); code != 0 {
		t.Fatalf("create: %d %s", code, out)
	}
	cli, err := full.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	big := strings.Repeat("x", 1<<20)
	for i := 0; i < 20; i++ {
		if _, err := cli.Put(context.Background(), fmt.Sprint("filler/", i), big); err != nil {
			break // NOSPACE
		}
	}
	out, code = run(addr(full)+"?quota-backend-bytes=8388608", "doctor", "-max", "1m")
	if code == 0 || !strings.Contains(out, "PROBLEM: etcd alarm NOSPACE") || !strings.Contains(out, "near the quota of 8.0 MiB") {
		t.Errorf("doctor on a cluster past its quota: exit %d\n%s", code, out)
	}
}

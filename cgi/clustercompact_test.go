package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/fcgitest"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestServiceCompactsTheCluster runs two FastCGI services of the cluster
// tool (built -tags etcd) on one etcd, as two hosts, each compacting
// every second (COUNTER_ETCD_COMPACT), and counts hits through both:
// the history before is compacted away, every hit counted, and neither
// logs a line for the other's compactions.
func TestServiceCompactsTheCluster(t *testing.T) {
	srv := etcdtest.Start(t)
	dir := t.TempDir()
	tool := filepath.Join(dir, "counter-tool")
	if out, err := exec.Command("go", "build", "-tags", "etcd", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("build -tags etcd: %v\n%s", err, out)
	}
	db := etcdkv.Scheme + strings.TrimPrefix(srv.Endpoint, "http://") + "/site"
	env := func(run string) []string {
		return []string{"PATH=" + os.Getenv("PATH"), "COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + run, "COUNTER_ETCD_COMPACT=1s"}
	}
	create := exec.Command(tool, "create", "page", "reload=off")
	create.Env = env(filepath.Join(dir, "run0"))
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	cli, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	first, err := cli.Get(context.Background(), "site/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	var socks []string
	var logs []*bytes.Buffer
	for i, host := range []string{"a", "b"} {
		sock := filepath.Join(dir, host+".sock")
		cmd := exec.Command(tool, "fastcgi", "-listen", "unix:"+sock)
		cmd.Env = env(filepath.Join(dir, "run-"+host))
		logs = append(logs, &bytes.Buffer{})
		cmd.Stderr = logs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		socks = append(socks, sock)
	}
	for _, sock := range socks {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(sock); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no socket %s after 10s", sock)
			}
		}
	}
	const hits = 40
	for i := range hits {
		c := fcgitest.MustDial(t, socks[i%2])
		out, _, err := c.Request(1, false, fcgitest.Env("GET", "/page.svg", ""), nil, 0)
		c.Conn.Close()
		if err != nil || !bytes.Contains(out, []byte("image/svg+xml")) {
			t.Fatalf("hit %d: %v %.200q", i, err, out)
		}
		time.Sleep(100 * time.Millisecond) // the hits span a few compactions
	}
	time.Sleep(2500 * time.Millisecond)
	_, err = cli.Get(context.Background(), "site/", clientv3.WithPrefix(), clientv3.WithRev(first.Header.Revision))
	if !errors.Is(err, rpctypes.ErrCompacted) {
		t.Errorf("a read at the revision before the hits: %v, want it compacted", err)
	}
	c := fcgitest.MustDial(t, socks[0])
	defer c.Conn.Close()
	out, _, err := c.Request(1, false, fcgitest.Env("GET", "/page.json", ""), nil, 0)
	if err != nil || !bytes.Contains(out, []byte(`"count":40`)) {
		t.Errorf("count after %d hits: %v %.300q", hits, err, out)
	}
	for i, l := range logs {
		for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
			if line != "" && !strings.Contains(line, "fastcgi: counter.cgi") {
				t.Errorf("service %d logged %q", i, line)
			}
		}
	}
}

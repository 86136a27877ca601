package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/fcgitest"
	"hitcounter/counter"
	"hitcounter/store"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestVisitorsAcrossServices runs two FastCGI services of the full tool
// (which hands a cluster to the cluster tool beside it, built -tags
// etcd), each with a runtime directory of its own, as two hosts behind a
// load balancer would, on one etcd cluster, and CGI hits through the hit
// binary from two more: each visitor seen by one and then the others, by
// turns and at once, is one view and one visitor, and his other hits
// are reloads.
func TestVisitorsAcrossServices(t *testing.T) {
	srv := etcdtest.Start(t)
	dir := t.TempDir()
	tool := filepath.Join(dir, "counter-tool")
	for _, build := range [][]string{{"-o", tool}, {"-tags", "etcd", "-o", filepath.Join(dir, "counter-cluster")}} {
		if out, err := exec.Command("go", append(append([]string{"build"}, build...), ".")...).CombinedOutput(); err != nil {
			t.Fatalf("build %v: %v\n%s", build, err, out)
		}
	}
	hitBin, err := buildHit(filepath.Join(dir, "counter.cgi"), tool)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
	file := filepath.Join(dir, "counter.db")
	cluster := etcdkv.Scheme + strings.TrimPrefix(srv.Endpoint, "http://") + "/site"
	for _, args := range [][]string{{"create", "page"}, {"copy", file, cluster}} {
		if stdout, stderr, code := runPlain(t, tool, append(env, "COUNTER_DB="+file), "", args...); code != 0 {
			t.Fatalf("%s: exit %d: %s%s", args[0], code, stdout, stderr)
		}
	}
	var socks []string
	var logs []*bytes.Buffer
	for range 2 {
		sock, _, stderr := startFastCGICommand(t, cluster, exec.Command(tool))
		socks, logs = append(socks, sock), append(logs, stderr)
	}
	hit := func(host int, addr string) {
		c, err := fcgitest.Dial(socks[host])
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Conn.Close()
		out, _, err := c.Request(1, false, fcgitest.Env("GET", "/page.svg", "", "REMOTE_ADDR", addr), nil, 0)
		if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
			t.Errorf("hit on host %d from %s: %v %.120q", host, addr, err, out)
		}
	}
	// By turns: A, B, A.
	const turns, together, each = 6, 20, 3
	for i := range turns {
		addr := fmt.Sprintf("192.0.2.%d", i+1)
		for _, host := range []int{0, 1, 0} {
			hit(host, addr)
		}
	}
	// At once: each visitor's hits on both hosts together.
	for i := range together {
		addr := fmt.Sprintf("2001:db8::%x", i+1)
		var wg sync.WaitGroup
		for j := range 2 * each {
			wg.Add(1)
			go func() { defer wg.Done(); hit(j%2, addr) }()
		}
		wg.Wait()
	}
	opener := etcdkv.NewOpener(clientv3.Config{})
	defer opener.Close()
	// CGI hits on two more hosts, a process each.
	cgiHit := func(host, addr string) {
		t.Helper()
		env := hitRequest{path: "/page.svg"}.cgiEnv(cluster)
		// The browser of the FastCGI hits: another is another visitor.
		env = append(env, "REMOTE_ADDR="+addr, "COUNTER_RUN_DIR="+filepath.Join(dir, host), "HTTP_USER_AGENT="+fcgitest.BrowserUA)
		stdout, stderr, code := runPlain(t, hitBin, env, "")
		if code != 0 || !strings.Contains(stdout, "image/svg+xml") || stderr != "" {
			t.Errorf("CGI hit on host %s from %s: exit %d, %.120q %s", host, addr, code, stdout, stderr)
		}
	}
	for _, h := range []string{"C", "D"} {
		if err := os.Mkdir(filepath.Join(dir, h), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cgiHit("C", "192.0.2.1")    // a reload of A's view
	cgiHit("C", "198.51.100.1") // a new visitor
	hit(0, "198.51.100.1")      // his reload on A
	cgiHit("D", "198.51.100.1") // and on D
	db, err := store.Open(cluster, store.Options{ReadOnly: true, Remote: opener.Open})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := db.Glance("page", "", nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	visitors := uint64(turns + together + 1)
	reloads := uint64(turns*2 + together*(2*each-1) + 3)
	if g.Count != visitors || g.Today.Visitors != visitors || g.Today.NotCounted[counter.Reload] != reloads {
		t.Errorf("after %d visitors' hits on four hosts: %d views, %d visitors, %d reloads; want %d, %d, %d",
			visitors, g.Count, g.Today.Visitors, g.Today.NotCounted[counter.Reload], visitors, visitors, reloads)
	}
	for i, l := range logs {
		if s := l.String(); strings.Count(s, "\n") > 1 {
			t.Errorf("host %d logged: %s", i, s)
		}
	}
}

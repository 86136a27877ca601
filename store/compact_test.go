package store

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// compactHitsVar sets how many hits TestCompactionBoundsHistory counts in
// each half, for the figures of deploy/doc/storage.md (the default keeps
// the test short).
const compactHitsVar = "COUNTER_COMPACT_HITS"

// TestCompactionBoundsHistory counts hits through a batcher, as the
// FastCGI service does, on a one-member etcd: first with no compaction,
// then with the service's (KeepCompacted, at a short interval here). The
// member's file in use (its status's DbSizeInUse) grows with every hit
// without it, and stays at about an interval's commits with it.
func TestCompactionBoundsHistory(t *testing.T) {
	hits := 6000
	if n, err := strconv.Atoi(os.Getenv(compactHitsVar)); err == nil && n > 0 {
		hits = n
	}
	srv, cli := etcdtest.StartClient(t)
	opener := etcdkv.NewOpener(clientv3.Config{})
	defer opener.Close()
	o := Options{Wait: 10 * time.Second, Remote: func(addr string, readOnly bool, wait time.Duration) (kv.DB, error) {
		return opener.Open(addr, readOnly, wait)
	}}
	path := etcdkv.Scheme + strings.TrimPrefix(srv.Endpoint, "http://") + "/c"
	o.Create = true
	db, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		if err := db.Create(n, 0, day1); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	o.Create = false
	status := func() (size, inUse, rev int64) {
		s, err := cli.Status(context.Background(), srv.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		return s.DbSize, s.DbSizeInUse, s.Header.Revision
	}
	// run counts n hits from 16 clients, each a new visitor from one of
	// a few hosts, and returns the hits a second.
	run := func(n int) float64 {
		b := NewBatcher(path, o)
		defer b.Close()
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range 16 {
			wg.Go(func() {
				for i := next.Add(1); i <= int64(n); i = next.Add(1) {
					v := Visit{Name: string(rune('a' + i%4)), Now: day1, RefHost: fmt.Sprintf("r%d.example", i%7),
						Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}}
					if _, err := b.Visit(v); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return float64(n) / time.Since(start).Seconds()
	}
	_, inUse0, rev0 := status()
	rate := run(hits)
	size1, inUse1, rev1 := status()
	perHit := float64(inUse1-inUse0) / float64(hits)
	t.Logf("without compaction: %d hits (%d commits) at %.0f hits/s: in use %d -> %d bytes, %.1f bytes a hit; file %d bytes",
		hits, rev1-rev0, rate, inUse0, inUse1, perHit, size1)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const every = time.Second
	done := make(chan struct{})
	go func() {
		defer close(done)
		opener.KeepCompacted(ctx, every, func(f string, a ...any) { t.Errorf(f, a...) })
	}()
	rate2 := run(hits)
	time.Sleep(3 * every) // a compaction past the last hits, applied
	size2, inUse2, rev2 := status()
	cancel()
	<-done
	perHit2 := float64(inUse2-inUse1) / float64(hits)
	t.Logf("with compaction every %v: %d hits (%d commits) at %.0f hits/s: in use %d -> %d bytes, %.1f bytes a hit; file %d bytes",
		every, hits, rev2-rev1, rate2, inUse1, inUse2, perHit2, size2)
	if inUse2-inUse1 > (inUse1-inUse0)/4 {
		t.Errorf("with compaction the file's use grew %d bytes, without %d: not bounded", inUse2-inUse1, inUse1-inUse0)
	}
	if p, err := testenv.ReadProcess(srv.Pid()); err == nil {
		t.Logf("etcd member: RSS %d kB, peak %d kB", p.RSS>>10, p.PeakRSS>>10)
	}
}

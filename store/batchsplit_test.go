package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestBatchPastEtcdLimit sends a batcher on etcd more hits at once than
// one etcd transaction takes (--max-txn-ops, made small here): a batch
// too large goes in halves, not a transaction a hit, and every hit is
// counted once.
func TestBatchPastEtcdLimit(t *testing.T) {
	srv, cli := etcdtest.StartClient(t)
	remote := func(addr string, readOnly bool, wait time.Duration) (kv.DB, error) {
		a, err := etcdkv.ParseAddress(addr)
		if err != nil {
			return nil, err
		}
		return etcdkv.New(cli, etcdkv.Options{Prefix: a.Prefix, MaxTxnOps: 24, ReadOnly: readOnly, Timeout: wait})
	}
	path := etcdkv.Scheme + strings.TrimPrefix(srv.Endpoint, "http://") + "/split"
	const counters, workers, each = 8, 64, 4
	db, err := Open(path, Options{Create: true, Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	for i := range counters {
		if err := db.Create(fmt.Sprint("c", i), 0, day1); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	revision := func() int64 {
		resp, err := cli.Get(context.Background(), "split/")
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
	before := revision()
	b := testBatcher(path, Options{Remote: remote, Wait: 10 * time.Second})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if _, err := b.Hit(fmt.Sprint("c", w%counters), day1, fmt.Sprintf("r%d.example", (w+i)%5)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	b.Close()
	commits := revision() - before
	with(t, path, Options{ReadOnly: true, Remote: remote}, func(db *DB) {
		for i := range counters {
			info, err := db.Counter(fmt.Sprint("c", i))
			if want := uint64(workers / counters * each); err != nil || info.Count != want {
				t.Errorf("c%d: count %d, %v; want %d", i, info.Count, err, want)
			}
		}
	})
	if commits >= workers*each/2 {
		t.Errorf("%d commits for %d hits: the batches were not split but taken a hit at a time", commits, workers*each)
	}
	t.Logf("%d hits in %d commits (%d batches)", workers*each, commits, b.batches.Load())
}

package etcdkv

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// A large commit that stops midway: the state a committer leaves when it
// dies at each step is made here with the client itself, as big.go says
// that step leaves it, and the next transaction of another process must
// find either all of the commit or none of it.

func newDB(t *testing.T, cli *clientv3.Client) *DB {
	t.Helper()
	d, err := New(cli, Options{Prefix: "t/"})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// count reads the bucket "b"'s keys.
func count(t *testing.T, d *DB) int {
	t.Helper()
	n := 0
	err := d.View(func(tx kv.Tx) error {
		if b := tx.Bucket([]byte("b")); b != nil {
			n = b.KeyN()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// leave stages the writes of a transaction of n puts into "b" and leaves
// its pending key at state (with lease, if not 0), as a dead committer.
func leave(t *testing.T, d *DB, n int, state string, lease clientv3.LeaseID) {
	t.Helper()
	var ops []op
	err := d.Update(func(x kv.Tx) error {
		b, err := x.CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		for i := range n {
			if err := b.Put([]byte(strconv.Itoa(i)), []byte("x")); err != nil {
				return err
			}
		}
		ops, _, err = d.ops(x.(*tx))
		if err != nil {
			return err
		}
		return errLeft
	})
	if err != errLeft {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := newTag()
	for i, p := range d.pieces(ops) {
		if _, err := d.cli.Put(ctx, d.stagedKey(id, i), encodeOps(p)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.cli.Put(ctx, d.pending, state+id, clientv3.WithLease(lease)); err != nil {
		t.Fatal(err)
	}
}

var errLeft = fmt.Errorf("left for another")

// TestLargeCommitRollsForward leaves a large commit committed but not
// applied, some of its pieces applied by a dead committer: the next
// reader applies the rest, once.
func TestLargeCommitRollsForward(t *testing.T) {
	_, cli := etcdtest.StartClient(t)
	d := newDB(t, cli)
	leave(t, d, 600, pendingApplying, 0)
	// The dead committer had applied its first piece.
	ctx := context.Background()
	pending, _ := d.pendingNow(ctx)
	first := d.staged + pending[1:] + "/" + fmt.Sprintf("%08d", 0)
	resp, err := cli.Get(ctx, first)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("staged piece 0: %v %v", resp, err)
	}
	ops, _ := decodeOps(string(resp.Kvs[0].Value))
	if err := d.apply(ctx, pending, func(yield func(string, []op) bool) error {
		yield(first, ops)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// apply went on to remove the pending key: put it back, as a
	// committer that died after its first piece left it.
	if _, err := cli.Put(ctx, d.pending, pending); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d); n != 600 {
		t.Errorf("after the roll forward, %d keys, want 600", n)
	}
	if p, _ := d.pendingNow(ctx); p != "" {
		t.Errorf("pending key still %q", p)
	}
	left, _ := cli.Get(ctx, d.staged, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if left.Count != 0 {
		t.Errorf("%d staged pieces left", left.Count)
	}
}

// TestLargeCommitDiesStaging leaves a large commit staged under a lease
// that runs out: none of it is ever applied, the writers that waited for
// it go on, and the next large commit removes its pieces.
func TestLargeCommitDiesStaging(t *testing.T) {
	_, cli := etcdtest.StartClient(t)
	d := newDB(t, cli)
	lease, err := cli.Grant(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	leave(t, d, 600, pendingStaging, lease.ID)
	if n := count(t, d); n != 0 {
		t.Errorf("a read while staged: %d keys, want 0", n)
	}
	start := time.Now()
	// A writer waits for the turn to end, then commits in steps itself.
	err = d.Update(func(x kv.Tx) error {
		b, err := x.CreateBucketIfNotExists([]byte("c"))
		if err != nil {
			return err
		}
		for i := range 300 {
			if err := b.Put([]byte(strconv.Itoa(i)), []byte("y")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the writer waited %v for the dead turn", time.Since(start))
	if n := count(t, d); n != 0 {
		t.Errorf("after the turn ran out: %d keys, want 0", n)
	}
	left, _ := cli.Get(context.Background(), d.staged, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if left.Count != 0 {
		t.Errorf("%d staged pieces left", left.Count)
	}
}

// TestLargeCommitsSerializable has large commits and small ones add to one
// count from two clients at once: none lost, none doubled.
func TestLargeCommitsSerializable(t *testing.T) {
	srv := etcdtest.Start(t)
	const adds = 15
	errs := make(chan error, 2)
	dbs := make([]*DB, 2)
	for i := range dbs {
		cli, err := srv.Client()
		if err != nil {
			t.Fatal(err)
		}
		defer cli.Close()
		dbs[i] = newDB(t, cli)
	}
	for i, d := range dbs {
		go func() {
			for j := range adds {
				errs <- d.Update(func(x kv.Tx) error {
					b, err := x.CreateBucketIfNotExists([]byte("n"))
					if err != nil {
						return err
					}
					n, _ := strconv.Atoi(string(b.Get([]byte("n"))))
					if i == 0 { // large: 300 keys besides
						for k := range 300 {
							if err := b.Put([]byte(fmt.Sprint("k", j, k)), []byte("z")); err != nil {
								return err
							}
						}
					}
					return b.Put([]byte("n"), []byte(strconv.Itoa(n+1)))
				})
			}
		}()
	}
	for range 2 * adds {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var got string
	dbs[1].View(func(x kv.Tx) error {
		got = string(x.Bucket([]byte("n")).Get([]byte("n")))
		return nil
	})
	if got != strconv.Itoa(2*adds) {
		t.Errorf("count = %s, want %d", got, 2*adds)
	}
}

// TestCompactedReadRunsAgain compacts the cluster past a transaction's
// revision while it reads, as a host's compaction may: the read fails
// with etcd's compacted error, and Update runs the transaction again on
// the state after, once.
func TestCompactedReadRunsAgain(t *testing.T) {
	_, cli := etcdtest.StartClient(t)
	d := newDB(t, cli)
	put := func(k string) error {
		return d.Update(func(x kv.Tx) error {
			b, err := x.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return b.Put([]byte(k), []byte("x"))
		})
	}
	if err := put("first"); err != nil {
		t.Fatal(err)
	}
	runs := 0
	err := d.Update(func(x kv.Tx) error {
		if runs++; runs == 1 {
			// Another commit, then a compaction to it: this run's
			// revision is gone.
			if _, err := cli.Put(context.Background(), "other", "y"); err != nil {
				return err
			}
			resp, err := cli.Get(context.Background(), "other")
			if err != nil {
				return err
			}
			if _, err := cli.Compact(context.Background(), resp.Header.Revision); err != nil {
				return err
			}
		}
		b := x.Bucket([]byte("b"))
		if b == nil || b.Get([]byte("first")) == nil {
			return fmt.Errorf("run %d: first not read", runs)
		}
		return b.Put([]byte("second"), []byte("x"))
	})
	if err != nil || runs != 2 {
		t.Fatalf("update: %v after %d runs, want nil after 2", err, runs)
	}
	if n := count(t, d); n != 2 {
		t.Errorf("%d keys, want 2", n)
	}
}

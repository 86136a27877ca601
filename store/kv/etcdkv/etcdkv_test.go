package etcdkv_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"hitcounter/store/kv"
	"hitcounter/store/kv/boltkv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// openBoth opens an empty bbolt file and an empty etcd store.
func openBoth(t *testing.T, o etcdkv.Options) (kv.DB, kv.DB) {
	t.Helper()
	_, cli := etcdtest.StartClient(t)
	if o.Prefix == "" {
		o.Prefix = "t/"
	}
	e, err := etcdkv.New(cli, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return boltkv.New(b), e
}

// names and keys are few, so that operations meet, and hold the bytes
// etcdkv's encoding uses.
var (
	names = []string{"a", "b", "a\x00", "\x01", "\x02\xff"}
	keys  = []string{"k", "k\x00", "\x00", "\x01", "\x02x", "\xff", "a", "b", "kk", "a\x00"}
)

// op is one step of a random program: it runs on a transaction and says
// what it saw.
type op func(tx kv.Tx, out *strings.Builder)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// at finds the bucket at path, or nil.
func at(tx kv.Tx, path []string) kv.Bucket {
	b := tx.Bucket([]byte(path[0]))
	for _, n := range path[1:] {
		if b == nil {
			return nil
		}
		b = b.Bucket([]byte(n))
	}
	return b
}

func errKind(err error) string {
	for _, e := range []error{kv.ErrBucketNotFound, kv.ErrBucketExists, kv.ErrIncompatibleValue, kv.ErrKeyRequired} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "error " + err.Error()
	}
	return "ok"
}

func show(k, v []byte) string {
	if k == nil {
		return "end"
	}
	if v == nil {
		return fmt.Sprintf("%q/", k)
	}
	return fmt.Sprintf("%q=%q", k, v)
}

func randomOp(r *rand.Rand) op {
	path := make([]string, 1+r.IntN(3))
	for i := range path {
		path[i] = pick(r, names)
	}
	parent, last := path[:len(path)-1], []byte(path[len(path)-1])
	k, v := []byte(pick(r, keys)), []byte(fmt.Sprint(r.IntN(100)))
	if r.IntN(8) == 0 {
		v = []byte{}
	}
	if r.IntN(6) == 0 {
		k = last // a key named as a bucket
	}
	seeks := []int{r.IntN(6), r.IntN(6)}
	withParent := func(fn func(b kv.Bucket, out *strings.Builder)) op {
		return func(tx kv.Tx, out *strings.Builder) {
			if len(parent) == 0 {
				fn(nil, out)
				return
			}
			b := at(tx, parent)
			if b == nil {
				out.WriteString("no parent\n")
				return
			}
			fn(b, out)
		}
	}
	switch r.IntN(10) {
	case 0, 1:
		return withParent(func(p kv.Bucket, out *strings.Builder) {})
	case 2:
		return func(tx kv.Tx, out *strings.Builder) {
			var b kv.Bucket
			var err error
			if len(parent) == 0 {
				b, err = tx.CreateBucketIfNotExists(last)
			} else if p := at(tx, parent); p != nil {
				b, err = p.CreateBucketIfNotExists(last)
			} else {
				out.WriteString("no parent\n")
				return
			}
			fmt.Fprintf(out, "create %q: %s %v\n", path, errKind(err), b != nil)
		}
	case 3:
		return func(tx kv.Tx, out *strings.Builder) {
			var err error
			if len(parent) == 0 {
				err = tx.DeleteBucket(last)
			} else if p := at(tx, parent); p != nil {
				err = p.DeleteBucket(last)
			} else {
				out.WriteString("no parent\n")
				return
			}
			fmt.Fprintf(out, "delete bucket %q: %s\n", path, errKind(err))
		}
	case 4, 5:
		return func(tx kv.Tx, out *strings.Builder) {
			if b := at(tx, path); b != nil {
				fmt.Fprintf(out, "put %q %q: %s\n", path, k, errKind(b.Put(k, v)))
			}
		}
	case 6:
		return func(tx kv.Tx, out *strings.Builder) {
			if b := at(tx, path); b != nil {
				fmt.Fprintf(out, "delete %q %q: %s\n", path, k, errKind(b.Delete(k)))
			}
		}
	case 7:
		return func(tx kv.Tx, out *strings.Builder) {
			if b := at(tx, path); b != nil {
				g := b.Get(k)
				// Not KeyN: in a transaction that wrote, bbolt's is
				// what its pages hold, which its writes leave as
				// they were or not.
				fmt.Fprintf(out, "get %q %q: %q %v\n", path, k, g, g == nil)
			}
		}
	default:
		return func(tx kv.Tx, out *strings.Builder) {
			b := at(tx, path)
			if b == nil {
				return
			}
			c := b.Cursor()
			fmt.Fprintf(out, "walk %q: first %s", path, show(c.First()))
			for range seeks[0] {
				fmt.Fprintf(out, " next %s", show(c.Next()))
			}
			fmt.Fprintf(out, " seek %q %s", k, show(c.Seek(k)))
			fmt.Fprintf(out, " prev %s", show(c.Prev()))
			fmt.Fprintf(out, " last %s", show(c.Last()))
			for range seeks[1] {
				fmt.Fprintf(out, " prev %s", show(c.Prev()))
			}
			out.WriteString("\n")
		}
	}
}

// dump lists everything in db.
func dump(t *testing.T, db kv.DB) string {
	var out strings.Builder
	var walk func(indent string, b kv.Bucket)
	walk = func(indent string, b kv.Bucket) {
		b.ForEach(func(k, v []byte) error {
			fmt.Fprintf(&out, "%s%s\n", indent, show(k, v))
			if v == nil {
				fmt.Fprintf(&out, "%s  (%d keys)\n", indent, b.Bucket(k).KeyN())
				walk(indent+"  ", b.Bucket(k))
			}
			return nil
		})
	}
	err := db.View(func(tx kv.Tx) error {
		c := tx.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			fmt.Fprintf(&out, "%s (%d keys)\n", show(k, v), tx.Bucket(k).KeyN())
			walk("  ", tx.Bucket(k))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

var errRollback = errors.New("rolled back")

// TestSameAsBolt runs random programs of puts, deletes, buckets made and
// deleted, and cursor walks on bbolt and on etcd, and wants the same
// answers from both and the same state after each transaction.
//
// With a cluster that takes 4 operations a transaction, most commits go
// in steps (big.go), and must leave what one commit leaves.
func TestSameAsBolt(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { sameAsBolt(t, seed, etcdkv.Options{}) })
	}
	t.Run("in steps", func(t *testing.T) { sameAsBolt(t, 7, etcdkv.Options{MaxTxnOps: 4}) })
}

func sameAsBolt(t *testing.T, seed uint64, o etcdkv.Options) {
	b, e := openBoth(t, o)
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range 400 {
		prog := make([]op, 1+r.IntN(30))
		for j := range prog {
			prog[j] = randomOp(r)
		}
		rollback := r.IntN(5) == 0
		run := func(db kv.DB) (string, error) {
			var out strings.Builder
			err := db.Update(func(tx kv.Tx) error {
				out.Reset()
				for _, o := range prog {
					o(tx, &out)
				}
				if rollback {
					return errRollback
				}
				return nil
			})
			return out.String(), err
		}
		gotB, errB := run(b)
		gotE, errE := run(e)
		if gotB != gotE || errB != errE {
			t.Fatalf("transaction %d: bbolt answered\n%s%v\netcd answered\n%s%v", i, gotB, errB, gotE, errE)
		}
		if db, de := dump(t, b), dump(t, e); db != de {
			t.Fatalf("after transaction %d: bbolt holds\n%s\netcd holds\n%s", i, db, de)
		}
	}
}

// TestConcurrentCommits has two clients add to one count at once: their
// transactions conflict, run again, and no addition is lost or doubled.
func TestConcurrentCommits(t *testing.T) {
	srv := etcdtest.Start(t)
	const clients, adds = 3, 40
	dbs := make([]kv.DB, clients)
	for i := range dbs {
		cli, err := srv.Client()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.Close() })
		if dbs[i], err = etcdkv.New(cli, etcdkv.Options{Prefix: "c/"}); err != nil {
			t.Fatal(err)
		}
	}
	runs := make([]int, clients)
	errs := make(chan error, clients)
	for i, db := range dbs {
		go func() {
			for range adds {
				err := db.Update(func(tx kv.Tx) error {
					runs[i]++
					b, err := tx.CreateBucketIfNotExists([]byte("n"))
					if err != nil {
						return err
					}
					n := 0
					fmt.Sscan(string(b.Get([]byte("n"))), &n)
					return b.Put([]byte("n"), []byte(fmt.Sprint(n+1)))
				})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var got string
	dbs[0].View(func(tx kv.Tx) error {
		got = string(tx.Bucket([]byte("n")).Get([]byte("n")))
		return nil
	})
	if want := fmt.Sprint(clients * adds); got != want {
		t.Errorf("count = %s, want %s", got, want)
	}
	t.Logf("%d transactions ran %v times", clients*adds, runs)
}

// TestTooLarge wants a transaction past the cluster's --max-txn-ops
// committed whole in steps, or, asked to commit at once, refused whole
// with kv.ErrTxTooLarge.
func TestTooLarge(t *testing.T) {
	_, e := openBoth(t, etcdkv.Options{MaxTxnOps: 10})
	put := func(n int, atOnce bool) error {
		return e.Update(func(tx kv.Tx) error {
			if atOnce {
				tx.(interface{ AtOnce() }).AtOnce()
			}
			b, err := tx.CreateBucketIfNotExists([]byte(fmt.Sprint(atOnce)))
			if err != nil {
				return err
			}
			for i := range n {
				if err := b.Put([]byte(fmt.Sprint(i)), []byte("x")); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := put(20, true); !errors.Is(err, kv.ErrTxTooLarge) {
		t.Errorf("20 puts at once: %v, want ErrTxTooLarge", err)
	}
	if d := dump(t, e); d != "" {
		t.Errorf("after a refused commit the store holds\n%s", d)
	}
	if err := put(5, true); err != nil {
		t.Errorf("5 puts at once: %v", err)
	}
	if err := put(500, false); err != nil {
		t.Errorf("500 puts in steps: %v", err)
	}
	e.View(func(tx kv.Tx) error {
		if n := tx.Bucket([]byte("false")).KeyN(); n != 500 {
			t.Errorf("after 500 puts in steps: %d keys", n)
		}
		return nil
	})
	// A bucket of any size goes in one range delete.
	if err := e.Update(func(tx kv.Tx) error { return tx.DeleteBucket([]byte("false")) }); err != nil {
		t.Errorf("delete bucket: %v", err)
	}
}

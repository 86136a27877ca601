package etcdkv_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// cutter is a TCP proxy to an etcd server that, once armed, passes what
// the client sends but loses what the server answers, and cuts the
// connection: a commit applied whose answer never arrives.
type cutter struct {
	ln    net.Listener
	to    string
	armed atomic.Bool
	cuts  atomic.Int32
	wg    sync.WaitGroup
}

func newCutter(t *testing.T, to string) *cutter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln, to: to}
	go c.serve()
	t.Cleanup(func() { ln.Close() })
	return c
}

func (c *cutter) serve() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", c.to)
		if err != nil {
			in.Close()
			continue
		}
		go func() { io.Copy(out, in); out.Close() }()
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := out.Read(buf)
				if n > 0 && c.armed.CompareAndSwap(true, false) {
					c.cuts.Add(1)
					break // the answer is lost
				}
				if n > 0 {
					if _, err := in.Write(buf[:n]); err != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			in.Close()
			out.Close()
		}()
	}
}

// TestLostAnswerAppliesOnce loses the answer of a committed transaction:
// the commit is sent again, the clock says the first send applied, and
// the addition counts once, with the transaction run once. Again on a
// store whose last commit is older than the cluster's last compaction
// (other stores, or the visitor marks, moved the revision on, and a host
// compacted): the check of whether the lost send applied must not fail
// as "compacted" and run the transaction again, which applied it twice
// (a fresh reviewer's find).
func TestLostAnswerAppliesOnce(t *testing.T) {
	for _, c := range []struct {
		name          string
		compactBefore bool
	}{{"alone", false}, {"after a compaction", true}} {
		t.Run(c.name, func(t *testing.T) { lostAnswer(t, c.compactBefore) })
	}
}

func lostAnswer(t *testing.T, compactBefore bool) {
	srv, direct := etcdtest.StartClient(t)
	c := newCutter(t, strings.TrimPrefix(srv.Endpoint, "http://"))
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{c.ln.Addr().String()}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	db, err := etcdkv.New(cli, etcdkv.Options{Prefix: "lost/", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	add := func(arm bool) error {
		return db.Update(func(tx kv.Tx) error {
			runs++
			b, err := tx.CreateBucketIfNotExists([]byte("n"))
			if err != nil {
				return err
			}
			n := 0
			fmt.Sscan(string(b.Get([]byte("n"))), &n)
			if err := b.Put([]byte("n"), []byte(fmt.Sprint(n+1))); err != nil {
				return err
			}
			// Every read is answered: the next answer is the commit's.
			c.armed.Store(arm && runs == 1)
			return nil
		})
	}
	if err := add(false); err != nil {
		t.Fatal(err)
	}
	if compactBefore {
		for range 3 {
			if _, err := direct.Put(context.Background(), "other", "y"); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := direct.Get(context.Background(), "other")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := direct.Compact(context.Background(), resp.Header.Revision); err != nil {
			t.Fatal(err)
		}
	}
	runs = 0
	if err := add(true); err != nil {
		t.Fatalf("the commit whose answer was lost: %v", err)
	}
	if c.cuts.Load() != 1 || runs != 1 {
		t.Errorf("%d answers lost, %d runs of the transaction; want 1 and 1", c.cuts.Load(), runs)
	}
	var got string
	db.View(func(tx kv.Tx) error {
		got = string(tx.Bucket([]byte("n")).Get([]byte("n")))
		return nil
	})
	if got != "2" {
		t.Errorf("count %s after two additions, want 2", got)
	}
}

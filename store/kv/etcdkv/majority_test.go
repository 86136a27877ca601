package etcdkv_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestLostMajorityIsUnavailable stops two members of a three-member
// cluster: a read and a write fail within a few waits with
// kv.ErrUnavailable, naming the cluster, and work again once the members
// are back, on the same client.
func TestLostMajorityIsUnavailable(t *testing.T) {
	cl := etcdtest.StartCluster(t, 3)
	var eps []string
	for _, m := range cl.Members {
		eps = append(eps, m.Endpoint)
	}
	const wait = 500 * time.Millisecond
	db, err := etcdkv.Dial(clientv3.Config{Endpoints: eps, DialTimeout: wait, Logger: zap.NewNop()},
		etcdkv.Options{Prefix: "majority", Timeout: wait})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	put := func(v string) error {
		return db.Update(func(tx kv.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte(v))
		})
	}
	read := func() error {
		return db.View(func(tx kv.Tx) error {
			if b := tx.Bucket([]byte("b")); b == nil || b.Get([]byte("k")) == nil {
				return errors.New("k not found")
			}
			return nil
		})
	}
	if err := put("1"); err != nil {
		t.Fatal(err)
	}
	leader := cl.Leader()
	gone := []int{leader, (leader + 1) % 3}
	for _, m := range gone {
		cl.Members[m].Stop()
	}
	for what, fn := range map[string]func() error{"read": read, "write": func() error { return put("2") }} {
		start := time.Now()
		err := fn()
		took := time.Since(start)
		switch {
		case !errors.Is(err, kv.ErrUnavailable):
			t.Errorf("%s without a majority: %v, want kv.ErrUnavailable", what, err)
		case !strings.Contains(err.Error(), strings.TrimPrefix(eps[0], "http://")):
			t.Errorf("%s without a majority: %v: the cluster not named", what, err)
		case took > 10*wait:
			t.Errorf("%s without a majority failed after %v, want within a few waits of %v", what, took, wait)
		}
	}
	for _, m := range gone {
		if err := cl.Members[m].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range cl.Members {
		if err := m.WaitReady(20 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	var last error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if last = put("3"); last == nil {
			break
		}
	}
	if last != nil {
		t.Fatalf("write once the majority is back: %v", last)
	}
	if err := read(); err != nil {
		t.Errorf("read once the majority is back: %v", err)
	}
}

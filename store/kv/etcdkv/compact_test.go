package etcdkv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestCompactAsTheCountersUser runs KeepCompacted as an owner sets the
// counter up on a cluster with users: an etcd user that may read and
// write its own prefix alone. It compacts the history all the same, with
// no line logged.
func TestCompactAsTheCountersUser(t *testing.T) {
	srv, root := etcdtest.StartClient(t)
	ctx := context.Background()
	for _, step := range []func() error{
		func() error { _, err := root.UserAdd(ctx, "root", "rootpw"); return err },
		func() error { _, err := root.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := root.UserAdd(ctx, "counter", "pw"); return err },
		func() error { _, err := root.RoleAdd(ctx, "counter"); return err },
		func() error {
			_, err := root.RoleGrantPermission(ctx, "counter", "c/", clientv3.GetPrefixRangeEnd("c/"), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error { _, err := root.UserGrantRole(ctx, "counter", "counter"); return err },
		func() error { _, err := root.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	o := NewOpener(clientv3.Config{Username: "counter", Password: "pw"})
	defer o.Close()
	addr := Scheme + strings.TrimPrefix(srv.Endpoint, "http://") + "/c"
	db, err := o.Open(addr, false, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	put := func(i int) int64 {
		var rev int64
		err := db.Update(func(x kv.Tx) error {
			b, err := x.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			rev = x.(*tx).rev
			return b.Put([]byte("n"), []byte(fmt.Sprint(i)))
		})
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	first := put(0)
	var mu sync.Mutex
	var logged []string
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		o.KeepCompacted(cctx, 200*time.Millisecond, func(f string, a ...any) {
			mu.Lock()
			logged = append(logged, fmt.Sprintf(f, a...))
			mu.Unlock()
		})
	}()
	for i := range 10 {
		put(i + 1)
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	<-done
	if len(logged) > 0 {
		t.Errorf("KeepCompacted logged %q", logged)
	}
	user := db.(*DB).cli
	if _, err := user.Get(ctx, "c/", clientv3.WithPrefix(), clientv3.WithRev(first)); !errors.Is(err, rpctypes.ErrCompacted) {
		t.Errorf("a read at the first revision: %v, want it compacted", err)
	}
}

package store

import (
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// etcdStore starts an etcd of its own with its default limits, for a
// test that stops it, limits it or reads its status, and returns it, the
// address of a store under prefix in it, and the Options that open that
// store with wait.
func etcdStore(t *testing.T, prefix string, wait time.Duration) (*etcdtest.Server, string, Options) {
	t.Helper()
	srv := etcdtest.Start(t)
	opener := etcdkv.NewOpener(clientv3.Config{})
	t.Cleanup(func() { opener.Close() })
	remote := func(addr string, readOnly bool, wait time.Duration) (kv.DB, error) {
		return opener.Open(addr, readOnly, wait)
	}
	addr := etcdkv.Scheme + strings.TrimPrefix(srv.Endpoint, "http://") + "/" + prefix
	return srv, addr, Options{Remote: remote, Wait: wait}
}

// etcdDemo is etcdStore with the store made, holding a counter demo.
func etcdDemo(t *testing.T, prefix string, wait time.Duration) (*etcdtest.Server, string, Options) {
	t.Helper()
	srv, addr, opts := etcdStore(t, prefix, wait)
	create := opts
	create.Create = true
	with(t, addr, create, func(db *DB) {
		if err := db.Create("demo", 0, day1); err != nil {
			t.Fatal(err)
		}
	})
	return srv, addr, opts
}

// defaultCluster is etcdStore with a wait of 10 s and a client of the
// cluster.
func defaultCluster(t *testing.T, prefix string) (string, Options, *clientv3.Client) {
	t.Helper()
	srv, addr, opts := etcdStore(t, prefix, 10*time.Second)
	cli, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return addr, opts, cli
}

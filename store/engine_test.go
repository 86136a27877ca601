package store

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// The store's tests run on the engine COUNTER_TEST_ENGINE names: bbolt
// (the default, a file in the test's own directory) or etcd (a real etcd
// server started once for the package, each store under a prefix of its
// own). Tests of what only a file has (its pages, its lock, its size,
// its format's bytes) call needFile and run on bbolt only.
const engineVar = "COUNTER_TEST_ENGINE"

func onEtcd() bool { return os.Getenv(engineVar) == "etcd" }

// clusterFlags are the tests' cluster's limits, as deploy/doc/storage.md
// tells an owner to set them: a fold of a day of a site's pages, or an
// import's step, is one transaction of many writes. clusterLimits tells
// the store's address.
var clusterFlags = []string{"--max-txn-ops=20000", "--max-request-bytes=8388608"}

const clusterLimits = "max-txn-ops=20000&max-request-bytes=8388608"

// testEtcd is the etcd server the package's tests share, started by the
// first test that needs it and stopped by TestMain.
var testEtcd struct {
	once   sync.Once
	dir    string
	srv    *etcdtest.Server
	opener *etcdkv.Opener
	err    error
	n      atomic.Int64
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testEtcd.srv != nil {
		testEtcd.opener.Close()
		testEtcd.srv.Stop()
		os.RemoveAll(testEtcd.dir)
	}
	os.Exit(code)
}

// newPath is where a new store of the test's engine goes: a file's path
// in tb's directory, or an address under a prefix of its own.
func newPath(tb testing.TB, file string) string {
	tb.Helper()
	if !onEtcd() {
		return tb.TempDir() + "/" + file
	}
	etcdtest.Need(tb)
	testEtcd.once.Do(func() {
		if testEtcd.dir, testEtcd.err = os.MkdirTemp("", "store-etcd-"); testEtcd.err != nil {
			return
		}
		if testEtcd.srv, testEtcd.err = etcdtest.Launch(testEtcd.dir, clusterFlags...); testEtcd.err != nil {
			return
		}
		testEtcd.opener = etcdkv.NewOpener(clientv3.Config{DialTimeout: 2 * time.Second})
	})
	if testEtcd.err != nil {
		tb.Fatal(testEtcd.err)
	}
	host := strings.TrimPrefix(testEtcd.srv.Endpoint, "http://")
	return fmt.Sprintf("%s%s/t%d?%s", etcdkv.Scheme, host, testEtcd.n.Add(1), clusterLimits)
}

// testOpen opens path as Open does, with the test engine's Remote.
func testOpen(path string, opts Options) (*DB, error) {
	return Open(path, testOptions(path, opts))
}

// needFile runs tb on bbolt only: it tests what only a file has.
func needFile(tb testing.TB) {
	tb.Helper()
	if onEtcd() {
		tb.Skip("a test of the bbolt file")
	}
}

// testBatcher starts a batcher as NewBatcher does, with the test
// engine's Remote.
func testBatcher(path string, opts Options) *Batcher {
	return NewBatcher(path, testOptions(path, opts))
}

// testCheck checks path as Check does, with the test engine's Remote.
func testCheck(path string, wait time.Duration) (Report, error) {
	return CheckWith(path, testOptions(path, Options{Wait: wait}))
}

// testOptions gives opts the test engine's Remote for a store at path
// in a cluster.
func testOptions(path string, opts Options) Options {
	if IsRemote(path) && opts.Remote == nil {
		opts.Remote = func(addr string, readOnly bool, wait time.Duration) (kv.DB, error) {
			return testEtcd.opener.Open(addr, readOnly, wait)
		}
	}
	return opts
}

package store

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/counter"
)

// The work that cannot be cut into a store's transactions (a day's fold
// of a big site's pages, an import's first and last steps) on a cluster
// run with etcd's own limits (--max-txn-ops 128, --max-request-bytes
// 1.5 MiB), and an address that names none.

// makeSite creates the site blog in a new store at path.
func makeSite(t *testing.T, path string, o Options) {
	t.Helper()
	s, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	o.Create = true
	db, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateWith("blog", 0, day1, s); err != nil {
		t.Fatal(err)
	}
}

// TestSiteFoldPastEtcdLimits counts a day of views of more pages than one
// etcd transaction takes, then the next day's views, through a batcher as
// the FastCGI service counts them: the next day's first batch folds the
// day's page rows into the pages' records, trims the day to its most
// viewed pages, and every view is counted once.
func TestSiteFoldPastEtcdLimits(t *testing.T) {
	path, o, cli := defaultCluster(t, "fold")
	makeSite(t, path, o)
	const pages, next = 300, 48 // more than KeptPagesADay: the fold trims
	page := func(i int) string { return fmt.Sprintf("/posts/%03d", i) }
	b := NewBatcher(path, o)
	hitAll := func(n int, at time.Time) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if _, err := b.Visit(pageView("blog.example", page(i), at, true)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	hitAll(pages, day1)
	hitAll(next, day1.Add(2*time.Minute)) // the next UTC day
	b.Close()
	if t.Failed() {
		t.FailNow()
	}
	db, err := Open(path, Options{ReadOnly: true, Remote: o.Remote, Wait: o.Wait})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	info, err := db.Counter("blog")
	if err != nil || info.Count != pages+next || info.Pages != pages {
		t.Errorf("site: %d views on %d pages, %v; want %d on %d", info.Count, info.Pages, err, pages+next, pages)
	}
	got, err := db.Pages("blog", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		want := uint64(1)
		if p.Page < page(next) {
			want = 2
		}
		if p.Views != want {
			t.Errorf("page %s: %d views, want %d", p.Page, p.Views, want)
		}
	}
	if _, err := CheckWith(path, o); err != nil {
		t.Errorf("check: %v", err)
	}
	left, err := cli.Get(context.Background(), "fold/\x00", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	if len(left.Kvs) != 1 {
		t.Errorf("the engine's own keys after the fold: %d, want the clock alone", len(left.Kvs))
	}
}

// TestImportPastEtcdLimits imports a site's history of 3,500 page days
// in steps into a cluster with etcd's default limits: it goes through,
// and the site then shows what the same import shows on a file.
func TestImportPastEtcdLimits(t *testing.T) {
	path, o, _ := defaultCluster(t, "import")
	file := t.TempDir() + "/counter.db"
	opts := ImportOptions{Now: stepsNow}
	var stats ImportStats
	for _, p := range []struct {
		path string
		o    Options
	}{{path, o}, {file, Options{}}} {
		makeSite(t, p.path, p.o)
		open := func() (*DB, error) { return Open(p.path, p.o) }
		var err error
		if _, stats, err = ImportInSteps(open, []counter.Imported{siteHistory()}, opts, 0); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		if p.path == path {
			t.Logf("on the cluster: %d steps, longest %v, last %v", stats.Steps, stats.Longest, stats.Last)
		}
	}
	state := func(p string, o Options) siteState {
		var s siteState
		o.ReadOnly = true
		db, err := Open(p, o)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if s.Pages, err = db.Pages("blog", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if s.PageDays, err = db.PageDays("blog", counter.PageDay{}, 1<<20); err != nil {
			t.Fatal(err)
		}
		if s.Info, err = db.Counter("blog"); err != nil {
			t.Fatal(err)
		}
		return s
	}
	got, want := state(path, o), state(file, Options{})
	samePagesAndTotals(t, got, want)
	if len(got.PageDays) < 3000 || !reflect.DeepEqual(got.Info.Count, want.Info.Count) {
		t.Errorf("on the cluster: %d page days, %d views; on a file %d, %d", len(got.PageDays), got.Info.Count, len(want.PageDays), want.Info.Count)
	}
	if _, err := CheckWith(path, o); err != nil {
		t.Errorf("check: %v", err)
	}
}

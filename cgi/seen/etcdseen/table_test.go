package etcdseen

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/seen"
	"hitcounter/store/kv/etcdkv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

const prefix = "site/"

// cluster is one real etcd member, and a client of its own to look in.
type cluster struct {
	srv *etcdtest.Server
	cli *clientv3.Client
}

func startCluster(tb testing.TB) *cluster {
	tb.Helper()
	srv := etcdtest.Start(tb)
	cli, err := srv.Client()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cli.Close() })
	return &cluster{srv, cli}
}

// host is a host of the cluster: a Table over a client of its own.
func (c *cluster) host(tb testing.TB) *Table {
	tb.Helper()
	cli, err := c.srv.Client()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cli.Close() })
	return New(func() (*clientv3.Client, string, error) { return cli, prefix, nil }, 5*time.Second)
}

// keys returns every key and value in the cluster.
func (c *cluster) keys(t *testing.T, from string) map[string][]byte {
	t.Helper()
	resp, err := c.cli.Get(context.Background(), from, clientv3.WithFromKey())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = kv.Value
	}
	return out
}

// marks counts the marks of day in the cluster.
func (c *cluster) marks(t *testing.T, day time.Time) int {
	t.Helper()
	p := etcdkv.BesidePrefix(prefix) + "seen/" + day.Format(dayLayout) + "/m/"
	resp, err := c.cli.Get(context.Background(), p, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return int(resp.Count)
}

func at(day, h, m, s int) time.Time { return time.Date(2026, 3, day, h, m, s, 0, time.UTC) }

func see(t *testing.T, tab *Table, v seen.Visit) seen.Verdict {
	t.Helper()
	got, err := tab.See(v)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// what says a verdict in a word.
func what(v seen.Verdict) string {
	switch {
	case v.Reload && v.Quiet:
		return "quiet reload"
	case v.Reload:
		return "reload"
	case v.Joined:
		return "joined"
	case v.NewToday:
		return "new"
	}
	return "view"
}

// TestHostsShareVisitors sees visitors by turns on two hosts of one
// cluster: a visitor seen by A and then by B is one visitor, his reload
// on B is a reload, the image and the script of one view join across
// hosts, and a reload just after midnight is known from yesterday's mark.
func TestHostsShareVisitors(t *testing.T) {
	c := startCluster(t)
	hosts := map[string]*Table{"A": c.host(t), "B": c.host(t)}
	ann := seen.Visit{Counter: "blog", Addr: "192.0.2.7", UserAgent: "Mozilla/5.0 Firefox", Window: 30 * time.Minute}
	bob := ann
	bob.Addr = "2001:db8::9"
	page := ann
	page.Counter, page.Via = "docs", seen.ViaImage
	script := page
	script.Via = seen.ViaScript
	steps := []struct {
		host string
		v    seen.Visit
		now  time.Time
		want string
	}{
		{"A", ann, at(5, 12, 0, 0), "new"},
		{"B", ann, at(5, 12, 10, 0), "reload"},
		{"B", ann, at(5, 12, 29, 59), "reload"},
		{"B", ann, at(5, 12, 31, 0), "view"},
		{"A", ann, at(5, 12, 40, 0), "reload"},
		{"B", bob, at(5, 12, 40, 0), "new"},
		{"A", bob, at(5, 13, 40, 0), "view"},
		{"A", page, at(5, 14, 0, 0), "new"},
		{"B", script, at(5, 14, 0, 1), "joined"},
		{"A", script, at(5, 14, 0, 2), "quiet reload"},
		{"B", page, at(5, 14, 0, 3), "reload"},
		{"A", ann, at(5, 23, 50, 0), "view"},
		{"B", ann, at(6, 0, 10, 0), "reload"},
		{"A", ann, at(6, 0, 30, 0), "new"},
		{"B", bob, at(6, 0, 30, 0), "new"},
	}
	for i, s := range steps {
		v := s.v
		v.Now = s.now
		if got := what(see(t, hosts[s.host], v)); got != s.want {
			t.Errorf("step %d: %s sees %s at %s: got %s, want %s", i, s.host, v.Addr, s.now.Format(time.TimeOnly), got, s.want)
		}
	}
}

// TestConcurrentSeesCountOnce sees each of many visitors at once from
// both hosts, several requests each: exactly one of them is his view.
func TestConcurrentSeesCountOnce(t *testing.T) {
	c := startCluster(t)
	hosts := []*Table{c.host(t), c.host(t)}
	const visitors, each = 40, 4
	for i := range visitors {
		v := seen.Visit{Counter: "blog", Addr: fmt.Sprintf("198.51.100.%d", i), UserAgent: "Chrome", Now: at(5, 12, 0, i), Window: time.Hour}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			views int
			start = make(chan struct{})
		)
		for j := range 2 * each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got, err := hosts[j%2].See(v)
				if err != nil {
					t.Error(err)
					return
				}
				if !got.Reload {
					mu.Lock()
					views++
					mu.Unlock()
				}
			}()
		}
		close(start)
		wg.Wait()
		if views != 1 {
			t.Errorf("visitor %d seen %d times at once: %d views, want 1", i, 2*each, views)
		}
	}
}

// TestMarksExpire sees visitors seconds before midnight with a window of
// a second: their marks, under a lease that ends at midnight, are gone
// from the cluster soon after.
func TestMarksExpire(t *testing.T) {
	c := startCluster(t)
	a := c.host(t)
	// The marks' lease ends at the table's midnight, which is a few
	// seconds from the real now.
	end := time.Now().Add(4 * time.Second).Truncate(time.Second)
	day := midnight(end.Add(-time.Hour * 24))
	offset := end.Sub(day.AddDate(0, 0, 1)) // fake time = real time - offset
	for i := range 10 {
		v := seen.Visit{Counter: "blog", Addr: fmt.Sprintf("192.0.2.%d", i), UserAgent: "Safari", Now: time.Now().Add(-offset), Window: time.Second}
		if got := what(see(t, a, v)); got != "new" {
			t.Fatalf("visitor %d: got %s, want new", i, got)
		}
	}
	if n := c.marks(t, day); n != 10 {
		t.Fatalf("%d marks in the cluster, want 10", n)
	}
	deadline := time.Now().Add(15 * time.Second)
	for c.marks(t, day) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d marks still in the cluster 11 s after their lease's end", c.marks(t, day))
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("the marks were gone %v after their lease's end", time.Since(end).Round(100*time.Millisecond))
}

// TestNoAddressReachesTheCluster sees many visitors, takes some back,
// floods a bucket, and then reads every key and value in the cluster: no
// address, User-Agent or counter name is in any of them, in text or in
// bytes.
func TestNoAddressReachesTheCluster(t *testing.T) {
	c := startCluster(t)
	hosts := []*Table{c.host(t), c.host(t)}
	hosts[1].slots = 2
	var secrets []string
	for i := range 60 {
		addr := netip.MustParseAddr(fmt.Sprintf("203.0.113.%d", 100+i))
		if i%2 == 1 {
			addr = netip.MustParseAddr(fmt.Sprintf("2001:db8:77::%x", 0xab00+i))
		}
		ua := fmt.Sprintf("Mozilla/5.0 (X11; Linux) Gecko/%d Firefox/%d", 20100101+i, 100+i)
		b, _ := addr.MarshalBinary()
		secrets = append(secrets, addr.String(), string(b), ua, fmt.Sprint(20100101+i))
		for _, counter := range []string{"secret-counter", "other-counter"} {
			v := seen.Visit{Counter: counter, Page: "/private/page/", Addr: addr.String(), UserAgent: ua, Now: at(5, 9, 0, i), Window: time.Minute}
			got := see(t, hosts[i%2], v)
			if i%5 == 0 {
				if err := hosts[i%2].Unsee(v, got); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	secrets = append(secrets, "secret-counter", "other-counter", "/private/page/", "Firefox", "Mozilla")
	all := c.keys(t, "\x00")
	if len(all) < 60 {
		t.Fatalf("%d keys in the cluster: the marks are not there", len(all))
	}
	for k, v := range all {
		for _, s := range secrets {
			if strings.Contains(k, s) || bytes.Contains(v, []byte(s)) {
				t.Errorf("key %q (value %q) holds %q", k, v, s)
			}
		}
	}
}

// TestBoundPerCounter floods one counter with made-up visitors on two
// hosts: its share holds no more than its bound, the first host to
// forget a visitor says so once, and another counter's marks are all
// still there.
func TestBoundPerCounter(t *testing.T) {
	c := startCluster(t)
	hosts := []*Table{c.host(t), c.host(t)}
	const slots = 2
	for _, h := range hosts {
		h.slots = slots
	}
	day := at(5, 0, 0, 0)
	shareMarks := func(counter string) int {
		t.Helper()
		w := place(prefix, day, hosts[0].salts[day], &seen.Visit{Counter: counter})
		resp, err := c.cli.Get(context.Background(), w.share, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		return int(resp.Count)
	}
	for i := range buckets {
		see(t, hosts[i%2], seen.Visit{Counter: "quiet", Addr: fmt.Sprintf("192.0.2.%d", i), UserAgent: "Firefox", Now: at(5, 8, 0, 0), Window: time.Hour})
	}
	quiet := shareMarks("quiet")
	crowded := 0
	const flood = 4 * buckets * slots
	for i := range flood {
		v := seen.Visit{Counter: "flooded", Addr: fmt.Sprintf("10.0.%d.%d", i/256, i%256), UserAgent: "curl-ish", Now: at(5, 9, 0, 0), Window: time.Hour}
		if see(t, hosts[i%2], v).Crowded {
			crowded++
		}
	}
	if crowded != 1 {
		t.Errorf("the flooded counter said it forgot visitors %d times, want once", crowded)
	}
	if got := shareMarks("flooded"); got > buckets*slots {
		t.Errorf("the flooded counter holds %d marks after a flood of %d, want at most %d", got, flood, buckets*slots)
	}
	if got := shareMarks("quiet"); got != quiet || quiet == 0 {
		t.Errorf("the quiet counter holds %d marks after the flood, %d before", got, quiet)
	}
}

// TestUnseeAcrossHosts takes back a view that host A counted: host B
// then counts the visitor's next hit as a new visitor's view.
func TestUnseeAcrossHosts(t *testing.T) {
	c := startCluster(t)
	a, b := c.host(t), c.host(t)
	v := seen.Visit{Counter: "blog", Addr: "192.0.2.44", UserAgent: "Firefox", Now: at(5, 10, 0, 0), Window: time.Hour}
	got := see(t, a, v)
	if err := a.Unsee(v, got); err != nil {
		t.Fatal(err)
	}
	v.Now = v.Now.Add(time.Second)
	if w := what(see(t, b, v)); w != "new" {
		t.Errorf("after Unsee on A, B: got %s, want new", w)
	}
	v.Now = v.Now.Add(2 * time.Hour)
	got = see(t, a, v)
	if err := a.Unsee(v, got); err != nil {
		t.Fatal(err)
	}
	v.Now = v.Now.Add(time.Second)
	if w := what(see(t, b, v)); w != "view" {
		t.Errorf("after a view again taken back on A, B: got %s, want view (not a reload, not new)", w)
	}
}

// TestLeasesShared sees visitors from two long-lived hosts and from a
// fresh Table for each hit, as CGI processes are: the cluster holds one
// lease for the day's marks and one for its salt, whoever granted them,
// and a hit costs no lease of its own.
func TestLeasesShared(t *testing.T) {
	c := startCluster(t)
	hosts := []*Table{c.host(t), c.host(t)}
	for i := range 12 {
		tab := hosts[i%2]
		if i%3 == 2 {
			tab = c.host(t)
		}
		see(t, tab, seen.Visit{Counter: "blog", Addr: fmt.Sprintf("192.0.2.%d", i), UserAgent: "Firefox", Now: at(5, 12, 0, i), Window: time.Hour})
	}
	resp, err := c.cli.Leases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Leases) != 2 {
		t.Errorf("%d leases in the cluster after 12 hits from 6 Tables, want 2 (the marks', the salt's)", len(resp.Leases))
	}
}

// TestSeesThroughARestart sees new visitors from many goroutines while
// the member is killed (-9) and started again: each See whose answer was
// lost reads the mark back, so every visitor is one new visitor and no
// See fails.
func TestSeesThroughARestart(t *testing.T) {
	c := startCluster(t)
	a := c.host(t)
	const visitors, workers = 300, 8
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		news   int
		failed []error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > visitors {
					return
				}
				got, err := a.See(seen.Visit{Counter: "blog", Addr: fmt.Sprintf("10.9.%d.%d", i/256, i%256), UserAgent: "Firefox", Now: at(5, 12, 0, 0), Window: time.Hour})
				mu.Lock()
				if err != nil {
					failed = append(failed, err)
				} else if got.NewToday {
					news++
				}
				mu.Unlock()
			}
		}()
	}
	for next.Load() < visitors/3 {
		time.Sleep(time.Millisecond)
	}
	if err := c.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if news != visitors || len(failed) > 0 {
		t.Errorf("%d new visitors of %d through a restart, %d Sees failed: %v", news, visitors, len(failed), failed)
	}
}

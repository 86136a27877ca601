package etcdseen

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"hitcounter/cgi/seen"
)

// BenchmarkSee measures one See on a one-member local etcd, as a FastCGI
// service makes it (one Table kept): a new visitor's (one transaction),
// a reload of a view another host counted (one), of a view this one
// counted (none: its memory), a known visitor's view again (two: the
// read and the conditional write); and new visitors' from 16 goroutines at once, as a
// service's concurrent hits are, sharing the connection. Compare with
// package seen's BenchmarkSee/kept.
func BenchmarkSee(b *testing.B) {
	c := startCluster(b)
	visit := func(counter string, i int, window time.Duration) seen.Visit {
		return seen.Visit{Counter: counter, Addr: "2001:db8::" + strconv.Itoa(i),
			UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0",
			Now:       time.Now(), Window: window}
	}
	for _, mode := range []struct {
		name   string
		window time.Duration
		known  bool
		here   bool // the visitors were counted by this host
	}{{"new", 0, false, false}, {"reload/elsewhere", time.Hour, true, false}, {"reload/here", time.Hour, true, true}, {"view", 0, true, false}} {
		b.Run(mode.name, func(b *testing.B) {
			tab, other := c.host(b), c.host(b)
			if mode.here {
				other = tab
			}
			const known = 1000
			if mode.known {
				for i := range known {
					if _, err := other.See(visit(mode.name, i, mode.window)); err != nil {
						b.Fatal(err)
					}
				}
			}
			i := 0
			for b.Loop() {
				n := i % known
				if !mode.known {
					n = i
				}
				if _, err := tab.See(visit(mode.name, n, mode.window)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	b.Run("new/parallel", func(b *testing.B) {
		tab := c.host(b)
		var next atomic.Int64
		b.SetParallelism(8) // 16 on this machine's 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := tab.See(visit("parallel", int(next.Add(1)), 0)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

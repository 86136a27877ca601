package seen

import (
	"hitcounter/cgi/rundir"
	"strconv"
	"testing"
	"time"
)

// benchVisits are 1,000 visitors with a browser's User-Agent.
func benchVisits(window time.Duration) []Visit {
	vs := make([]Visit, 1000)
	for i := range vs {
		vs[i] = Visit{
			Counter:   "blog",
			Addr:      "2001:db8::" + strconv.Itoa(i),
			UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0",
			Now:       at(12, 0),
			Window:    window,
		}
	}
	return vs
}

// BenchmarkSee measures one See as a CGI process makes it (a fresh Table:
// open, flock, pread, pwrite, close) and as a FastCGI process does (a
// kept Table), for counted views (a write each) and reloads (reads only).
func BenchmarkSee(b *testing.B) {
	for _, mode := range []struct {
		name   string
		window time.Duration
	}{{"view", 0}, {"reload", time.Hour}} {
		b.Run("fresh/"+mode.name, func(b *testing.B) {
			dir := b.TempDir()
			vs := benchVisits(mode.window)
			warm := Open(rundir.New(dir, "", nil))
			for _, v := range vs {
				warm.See(v)
			}
			warm.Close()
			i := 0
			for b.Loop() {
				// The directory too, as the process's exit does.
				run := rundir.New(dir, "", nil)
				tab := Open(run)
				if _, err := tab.See(vs[i%len(vs)]); err != nil {
					b.Fatal(err)
				}
				tab.Close()
				run.Close()
				i++
			}
		})
		b.Run("kept/"+mode.name, func(b *testing.B) {
			tab, _ := newTable(b, defaultShareSlots)
			vs := benchVisits(mode.window)
			for _, v := range vs {
				tab.See(v)
			}
			i := 0
			for b.Loop() {
				if _, err := tab.See(vs[i%len(vs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkSeeCrowded measures a flood's hit in a long-lived process: a
// new visitor each time, in a counter's share whose buckets are full, so
// that each See forgets the oldest of its bucket and writes the bucket
// anew.
func BenchmarkSeeCrowded(b *testing.B) {
	tab, _ := newTable(b, defaultShareSlots)
	v := Visit{Counter: "blog", UserAgent: "Mozilla/5.0", Now: at(12, 0), Window: time.Hour}
	i := 0
	for ; i < 4*defaultShareSlots; i++ {
		v.Addr = "2001:db8::" + strconv.Itoa(i)
		tab.See(v)
	}
	for b.Loop() {
		v.Addr = "2001:db8::" + strconv.Itoa(i)
		if _, err := tab.See(v); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

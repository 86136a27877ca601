package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"hitcounter/cgi/testenv"
)

// readStat reads process pid's CPU time; false when it is gone.
func readStat(pid int) (testenv.CPU, bool) {
	c, err := testenv.ReadCPU(pid)
	return c, err == nil
}

// descendants is pid and everything below it.
func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, testenv.Children(out[i])...)
	}
	return out
}

// exe is the binary a process runs ("" once it is gone).
func exe(pid int) string {
	s, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return s
}

// childrenRunning lists parent's children that run the binary bin.
func childrenRunning(parent int, bin string) []int {
	var out []int
	for _, c := range testenv.Children(parent) {
		if exe(c) == bin {
			out = append(out, c)
		}
	}
	return out
}

// treeCPU is the CPU a process tree has used so far, counting processes
// that have ended and been reaped inside it: the root's own and reaped
// time and its descendants' own time. A descendant's own reaped time is
// its children's, which are in the tree as well, so it is added too.
func treeCPU(root int) time.Duration {
	var sum time.Duration
	for _, p := range descendants(root) {
		if st, ok := readStat(p); ok {
			sum += st.Self + st.Reaped
		}
	}
	return sum
}

// mem is a process's resident and proportional set sizes, in bytes, from
// /proc/PID/smaps_rollup.
type mem struct{ rss, pss int64 }

func readMem(pid int) (mem, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return mem{}, false
	}
	var m mem
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "Rss:":
			m.rss = kb << 10
		case "Pss:":
			m.pss = kb << 10
		}
	}
	return m, m.rss > 0
}

// peak is the most memory a set of processes was seen using.
type peak struct {
	rss, pss int64 // summed over the processes alive at one sample
	one      int64 // RSS of the largest single process
	procs    int   // most processes at one sample
}

func (p *peak) add(q peak) {
	p.rss, p.pss = max(p.rss, q.rss), max(p.pss, q.pss)
	p.one, p.procs = max(p.one, q.one), max(p.procs, q.procs)
}

// sampleMem looks at the processes procs() returns every interval until
// ctx ends, and returns the peaks.
func sampleMem(ctx context.Context, interval time.Duration, procs func() []int) peak {
	var p peak
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		var now peak
		for _, pid := range procs() {
			m, ok := readMem(pid)
			if !ok {
				continue
			}
			now.rss += m.rss
			now.pss += m.pss
			now.one = max(now.one, m.rss)
			now.procs++
		}
		p.add(now)
		select {
		case <-ctx.Done():
			return p
		case <-tick.C:
		}
	}
}

// sampleAll samples several sets at once, one goroutine each.
func sampleAll(ctx context.Context, interval time.Duration, sets ...func() []int) []peak {
	out := make([]peak, len(sets))
	var wg sync.WaitGroup
	for i, s := range sets {
		wg.Go(func() { out[i] = sampleMem(ctx, interval, s) })
	}
	wg.Wait()
	return out
}

func mb(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }

// Package benchstat holds what the benchmark programs under deploy/
// share: the arithmetic of their figures, and the timing of a CGI
// process's wall time and peak RSS.
package benchstat

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Percentile returns the p-th percentile (0..100) of d, by nearest rank.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Run calls job(i) for i from 0 to n-1, with workers calls in flight at a
// time, until ctx ends or a job returns false, and returns how many calls
// it started.
func Run(ctx context.Context, n, workers int, job func(i int) bool) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				if !job(i) {
					cancel()
				}
			}
		})
	}
	sent := 0
feed:
	for ; sent < n; sent++ {
		select {
		case jobs <- sent:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return sent
}

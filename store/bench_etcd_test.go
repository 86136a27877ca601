package store

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkBatcherHits counts hits from 16 clients at once through a
// batcher, on the engine COUNTER_TEST_ENGINE names: a FastCGI service's
// path to the store.
func BenchmarkBatcherHits(b *testing.B) {
	path := newDB(b, "a", "b", "c", "d")
	bt := testBatcher(path, Options{Wait: 10 * time.Second})
	defer bt.Close()
	var wg sync.WaitGroup
	per := b.N/16 + 1
	b.ResetTimer()
	for w := range 16 {
		wg.Go(func() {
			for i := range per {
				if _, err := bt.Hit(fmt.Sprint(string(rune('a'+w%4))), day1, fmt.Sprintf("r%d.example", i%7)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(16*per)/b.Elapsed().Seconds(), "hits/s")
}

// BenchmarkHit counts one hit a transaction, as a CGI process does.
func BenchmarkHit(b *testing.B) {
	path := newDB(b, "a")
	with(b, path, Options{}, func(db *DB) {
		b.ResetTimer()
		for i := range b.N {
			if _, err := db.Hit("a", day1, fmt.Sprintf("r%d.example", i%7)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

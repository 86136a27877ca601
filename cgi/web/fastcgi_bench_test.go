package web

import (
	"bytes"
	"testing"

	"hitcounter/cgi/fcgitest"
)

// BenchmarkFastCGIHit is one counted PNG hit through the FastCGI
// responder, over a unix socket, on a real database file, with 16
// requests in flight: what a long-lived process spends on a hit, fsyncs
// shared by group commit included.
func BenchmarkFastCGIHit(b *testing.B) {
	a, _ := testApp(b, "demo")
	sock := startFastCGI(b, a)
	env := fcgitest.Env("GET", "/demo.png", "")
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		// Fatal may only be called from the benchmark's own goroutine:
		// here a failure is reported and this goroutine stops.
		c, err := fcgitest.Dial(sock)
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Conn.Close()
		for pb.Next() {
			out, _, err := c.Request(1, true, env, nil, 0)
			if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
				b.Errorf("%v %.80q", err, out)
				return
			}
		}
	})
}

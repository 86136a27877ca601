package testenv

import (
	"os"
	"testing"
	"time"
)

// TestReadProcessAndCPU reads the test's own process: it has threads and
// memory, and its CPU time grows while it spins.
func TestReadProcessAndCPU(t *testing.T) {
	p, err := ReadProcess(os.Getpid())
	if err != nil || p.Threads < 1 || p.RSS <= 0 || p.PeakRSS < p.RSS {
		t.Fatalf("ReadProcess: %+v, %v; want threads and memory", p, err)
	}
	before, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	after, err := ReadCPU(os.Getpid())
	if err != nil || after.Self <= before.Self || after.Reaped < before.Reaped {
		t.Errorf("ReadCPU: %+v then %+v, %v; want the CPU time to grow", before, after, err)
	}
	if _, err := ReadCPU(-1); err == nil {
		t.Error("ReadCPU(-1): no error")
	}
}

package web

import (
	"runtime"
	"syscall"
	"testing"
)

// niceOfThread returns the nice value of the calling thread. The raw
// system call returns 20 - nice.
func niceOfThread(t *testing.T) int {
	t.Helper()
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

func TestPasswordChecksRunAtLowPriorityAlone(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := niceOfThread(t)
	var inside int
	atLowPriority(func() { inside = niceOfThread(t) })
	if inside != bcryptNice {
		t.Errorf("nice %d while checking, want %d", inside, bcryptNice)
	}
	if after := niceOfThread(t); after != before {
		t.Errorf("caller's nice went from %d to %d", before, after)
	}
	// Every other thread of the process still runs at the old priority.
	for range 20 {
		done := make(chan int)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			p, _ := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
			done <- 20 - p
		}()
		if n := <-done; n != before {
			t.Fatalf("a thread at nice %d after a check, want %d", n, before)
		}
	}
}

// TestLowPoolRunsAtLowPriority: a long-lived process's login work runs at
// nice bcryptNice, and a panic in it reaches the handler's recovery.
func TestLowPoolRunsAtLowPriority(t *testing.T) {
	a := &App{low: newLowPool(2)}
	defer close(a.low)
	var inside int
	a.lowPriority(func() {
		p, _ := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
		inside = 20 - p
	})
	if inside != bcryptNice {
		t.Errorf("nice %d in the pool, want %d", inside, bcryptNice)
	}
	defer func() {
		if v := recover(); v != "boom" {
			t.Errorf("recovered %v, want the pool's panic", v)
		}
	}()
	a.lowPriority(func() { panic("boom") })
	t.Error("no panic")
}

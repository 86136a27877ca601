package testenv

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestReadProcessAndCPU reads the test's own process: its users, threads
// and memory, its executable, its CPU time, which grows while it spins,
// and a child it starts.
func TestReadProcessAndCPU(t *testing.T) {
	p, err := ReadProcess(os.Getpid())
	if err != nil || p.Threads < 1 || p.RSS <= 0 || p.PeakRSS < p.RSS {
		t.Fatalf("ReadProcess: %+v, %v; want threads and memory", p, err)
	}
	if p.UID != os.Getuid() || p.EUID != os.Geteuid() {
		t.Errorf("ReadProcess: uid %d, euid %d; want %d, %d", p.UID, p.EUID, os.Getuid(), os.Geteuid())
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if pids := ProcessesOf(exe); !slices.Contains(pids, os.Getpid()) {
		t.Errorf("ProcessesOf(%s) = %v, want the test's own %d among them", exe, pids, os.Getpid())
	}
	before, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the clock ticks the CPU time on: on a loaded machine
	// the process may wait long for a core.
	after := before
	for end := time.Now().Add(10 * time.Second); err == nil && after.Self <= before.Self && time.Now().Before(end); {
		after, err = ReadCPU(os.Getpid())
	}
	if err != nil || after.Self <= before.Self || after.Reaped < before.Reaped {
		t.Errorf("ReadCPU: %+v then %+v, %v; want the CPU time to grow", before, after, err)
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer child.Process.Kill()
	if kids := Children(os.Getpid()); !slices.Contains(kids, child.Process.Pid) {
		t.Errorf("Children = %v, want the child %d among them", kids, child.Process.Pid)
	}
	if _, err := ReadCPU(-1); err == nil {
		t.Error("ReadCPU(-1): no error")
	}
}

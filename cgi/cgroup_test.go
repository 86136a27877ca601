package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// memCgroup is a memory cgroup that a test made for a process of its
// own, limited as the systemd unit limits the service (MemoryMax): of
// cgroup v2 where the machine has its memory controller, else of v1's.
type memCgroup struct {
	dir string
	v2  bool
}

// newMemCgroup makes a memory cgroup limited to limit bytes, with no swap,
// removed when t ends (after the test's own cleanups have killed what it
// put in it); without one (not root, no memory controller) the test skips,
// or fails under CI=true.
func newMemCgroup(t *testing.T, limit int64) *memCgroup {
	t.Helper()
	cg, err := makeMemCgroup(limit)
	if err != nil {
		testenv.Need(t, fmt.Sprintf("a memory cgroup of its own, as root (%v)", err))
	}
	t.Cleanup(func() {
		// Empty once the process in it has been killed and reaped.
		for deadline := time.Now().Add(5 * time.Second); os.Remove(cg.dir) != nil && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	})
	return cg
}

func makeMemCgroup(limit int64) (*memCgroup, error) {
	n := strconv.FormatInt(limit, 10)
	// v2: the hierarchy at /sys/fs/cgroup, or /sys/fs/cgroup/unified
	// beside v1's on a hybrid machine, with memory among its controllers.
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		ctl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil || !slices.Contains(strings.Fields(string(ctl)), "memory") {
			continue
		}
		sub, _ := os.ReadFile(filepath.Join(root, "cgroup.subtree_control"))
		if !slices.Contains(strings.Fields(string(sub)), "memory") {
			if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
				return nil, fmt.Errorf("cgroup v2 at %s: %w", root, err)
			}
		}
		dir, err := os.MkdirTemp(root, "counter-test-")
		if err != nil {
			return nil, err
		}
		cg := &memCgroup{dir: dir, v2: true}
		if err := cg.write("memory.max", n); err != nil {
			os.Remove(dir)
			return nil, err
		}
		if err := cg.write("memory.swap.max", "0"); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Remove(dir)
			return nil, err
		}
		return cg, nil
	}
	// v1: under this process's own memory cgroup.
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	own := ""
	for line := range strings.Lines(string(self)) {
		if _, rest, ok := strings.Cut(line, ":memory:"); ok {
			own = strings.TrimSpace(rest)
		}
	}
	if own == "" {
		return nil, errors.New("no memory controller in cgroup v2 or v1")
	}
	dir, err := os.MkdirTemp(filepath.Join("/sys/fs/cgroup/memory", own), "counter-test-")
	if err != nil {
		return nil, err
	}
	cg := &memCgroup{dir: dir}
	for _, f := range []string{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"} {
		if err := cg.write(f, n); err != nil && !(f == "memory.memsw.limit_in_bytes" && errors.Is(err, os.ErrNotExist)) {
			os.Remove(dir)
			return nil, err
		}
	}
	return cg, nil
}

func (cg *memCgroup) write(file, value string) error {
	return os.WriteFile(filepath.Join(cg.dir, file), []byte(value), 0)
}

// procs is the file a process's id is written to, to move it in.
func (cg *memCgroup) procs() string { return filepath.Join(cg.dir, "cgroup.procs") }

// version says which hierarchy the cgroup is in, for the logs.
func (cg *memCgroup) version() string {
	if cg.v2 {
		return "cgroup v2"
	}
	return "cgroup v1"
}

// peak is the most memory the cgroup has used, page cache included:
// memory.peak (v2) or memory.max_usage_in_bytes (v1).
func (cg *memCgroup) peak() int64 {
	file := "memory.max_usage_in_bytes"
	if cg.v2 {
		file = "memory.peak"
	}
	n, _ := strconv.ParseInt(cg.value(file, ""), 10, 64)
	return n
}

// oomKills is how many processes the OOM killer killed in the cgroup:
// oom_kill in memory.events (v2) or memory.oom_control (v1); -1 if it
// cannot tell.
func (cg *memCgroup) oomKills() int {
	file := "memory.oom_control"
	if cg.v2 {
		file = "memory.events"
	}
	n, err := strconv.Atoi(cg.value(file, "oom_kill"))
	if err != nil {
		return -1
	}
	return n
}

// value reads file, or with key the value on its line "key value".
func (cg *memCgroup) value(file, key string) string {
	b, err := os.ReadFile(filepath.Join(cg.dir, file))
	if err != nil {
		return "?"
	}
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		if key == "" {
			return k
		}
		if k == key {
			return v
		}
	}
	return "?"
}

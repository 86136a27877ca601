package testenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Process is what /proc tells of a running process, for the tests and the
// benchmarks that watch one.
type Process struct {
	// UID and EUID are the real and effective user.
	UID, EUID    int
	Threads      int
	RSS, PeakRSS int64 // VmRSS and VmHWM, in bytes
	// Open descriptors: Sockets, and Files for the rest.
	Files, Sockets int
}

// ReadProcess reads process pid's threads, memory and open descriptors
// from /proc.
func ReadProcess(pid int) (Process, error) {
	var p Process
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, err
	}
	for line := range strings.Lines(string(status)) {
		key, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch key {
		case "Uid":
			p.UID = int(n)
			if len(f) > 1 {
				p.EUID, _ = strconv.Atoi(f[1])
			}
		case "Threads":
			p.Threads = int(n)
		case "VmRSS":
			p.RSS = n << 10
		case "VmHWM":
			p.PeakRSS = n << 10
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return p, err
	}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		switch {
		case strings.HasPrefix(target, "socket:"):
			p.Sockets++
		case err == nil:
			p.Files++
		}
	}
	return p, nil
}

// CPU is what /proc/PID/stat says of a process's CPU time: its own, user
// and system in every thread (utime+stime), and that of the children it
// has reaped (cutime+cstime).
type CPU struct {
	Self, Reaped time.Duration
}

// clockTick is Linux's USER_HZ, the unit of CPU times in /proc.
const clockTick = 10 * time.Millisecond

// ReadCPU reads process pid's CPU time from /proc/PID/stat.
func ReadCPU(pid int) (CPU, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return CPU{}, err
	}
	// The fields after the command, which is in parentheses and may hold
	// anything: state is the first, utime to cstime the 12th to 15th.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 15 {
		return CPU{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var t [4]int64
	for k := range t {
		if t[k], err = strconv.ParseInt(f[11+k], 10, 64); err != nil {
			return CPU{}, fmt.Errorf("/proc/%d/stat: field %d: %w", pid, 12+k, err)
		}
	}
	return CPU{Self: time.Duration(t[0]+t[1]) * clockTick, Reaped: time.Duration(t[2]+t[3]) * clockTick}, nil
}

// ProcessesOf returns the processes that run the executable at path, even
// if it has been replaced or removed since they started.
func ProcessesOf(path string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && (exe == path || exe == path+" (deleted)") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Children lists process pid's children, from every thread (a Go process
// forks from any).
func Children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(s); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

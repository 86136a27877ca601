package testenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Process is what /proc tells of a running process, for the tests and the
// benchmarks that watch one.
type Process struct {
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

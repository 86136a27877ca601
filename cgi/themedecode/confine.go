package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// The bounds the decoder puts on itself before it reads a byte: the
// images are an owner's, but may be anyone's he found, and digitset add runs
// under sudo. digitset add starts it as nobody when run by root; whoever
// starts it, it can then gain no privilege, map no more than
// memoryHeadroom past what the Go runtime reserved at start, run no
// longer than cpuSeconds and open no more than a few files.
const (
	// memoryHeadroom holds the largest set twice over: a 2000 x 200
	// strip of ten frames, composed, cut into ten digits and marshalled,
	// decodes within 128 MiB past the start and not within 64 (on 64-bit
	// the heap grows by arenas of 64 MiB).
	memoryHeadroom = 256 << 20
	// cpuSeconds is digitset add's wait for the decoder (decoderTimeout):
	// the largest set takes some 3 s here, a Pi Zero is many times
	// slower. At it the kernel kills the decoder.
	cpuSeconds = 120
	// maxFiles: stdin, stdout, stderr and what the runtime and the status
	// line open.
	maxFiles = 8
)

// prSetNoNewPrivs is PR_SET_NO_NEW_PRIVS of <linux/prctl.h>, which the
// syscall package does not name.
const prSetNoNewPrivs = 38

// confine sets no_new_privs on every thread and the limits on address
// space, CPU time and open files, soft and hard alike, so that they
// cannot be raised again.
func confine() error {
	if _, _, e := syscall.AllThreadsSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		// A build with cgo cannot reach every thread; the calling one is
		// the one that would exec, and this program execs nothing.
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
			return fmt.Errorf("no_new_privs: %w", e)
		}
	}
	mapped, err := addressSpace()
	if err != nil {
		return err
	}
	for _, l := range []struct {
		name     string
		resource int
		max      uint64
	}{
		{"address space", syscall.RLIMIT_AS, mapped + memoryHeadroom},
		{"CPU time", syscall.RLIMIT_CPU, cpuSeconds},
		{"open files", syscall.RLIMIT_NOFILE, maxFiles},
	} {
		if err := syscall.Setrlimit(l.resource, &syscall.Rlimit{Cur: l.max, Max: l.max}); err != nil {
			return fmt.Errorf("limiting its %s to %d: %w", l.name, l.max, err)
		}
	}
	return nil
}

// addressSpace is the bytes the process has mapped: at start, what the Go
// runtime reserved (some 1.2 GB on amd64, most of it never touched, which
// is why the limit on memory is taken from here rather than set fixed).
func addressSpace() (uint64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, fmt.Errorf("reading its size to limit its memory: %w", err)
	}
	pages, _, _ := strings.Cut(string(b), " ")
	n, err := strconv.ParseUint(pages, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reading its size to limit its memory: /proc/self/statm: %w", err)
	}
	return n * uint64(os.Getpagesize()), nil
}

// status is the decoder's rights and bounds in one line, as the kernel
// has them: its user and groups, no_new_privs, effective and permitted
// capabilities from /proc/self/status, and the three limits.
func status() (string, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", err
	}
	var parts []string
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, ok := strings.Cut(string(line), ":")
		switch k {
		case "Uid", "Gid", "Groups", "NoNewPrivs", "CapEff", "CapPrm", "CapAmb":
			if ok {
				parts = append(parts, k+"="+strings.Join(strings.Fields(v), ","))
			}
		}
	}
	if len(parts) != 7 {
		return "", errors.New("/proc/self/status: fields missing")
	}
	for _, l := range []struct {
		name     string
		resource int
	}{{"AS", syscall.RLIMIT_AS}, {"CPU", syscall.RLIMIT_CPU}, {"NOFILE", syscall.RLIMIT_NOFILE}} {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(l.resource, &r); err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("RLIMIT_%s=%d,%d", l.name, r.Cur, r.Max))
	}
	return strings.Join(parts, " "), nil
}

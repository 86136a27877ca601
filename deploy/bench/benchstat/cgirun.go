package benchstat

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Sample is what one run of a CGI process cost.
type Sample struct {
	Wall    time.Duration
	PeakRSS int64 // bytes; 0 when not measured
}

// Walls returns the wall time of each of s.
func Walls(s []Sample) []time.Duration {
	d := make([]time.Duration, len(s))
	for i, x := range s {
		d[i] = x.Wall
	}
	return d
}

// MaxRSS returns the largest peak RSS of s, in bytes.
func MaxRSS(s []Sample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.PeakRSS)
	}
	return m
}

// RunCGI starts bin with the CGI environment env and stdin (nil for
// none), as a web server would, and returns its whole answer and the wall
// time until it exited.
func RunCGI(bin string, env []string, stdin io.Reader) ([]byte, time.Duration, error) {
	var out bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Env, cmd.Stdin, cmd.Stdout = env, stdin, &out
	start := time.Now()
	err := cmd.Run()
	return out.Bytes(), time.Since(start), err
}

// PeakRSS runs bin once with env and stdin under GNU time, which forks it
// from a small process of its own, and returns its peak RSS in bytes: a Go
// parent starts children with CLONE_VM, and Linux then reports the
// parent's own peak as the child's, so the child's rusage cannot be
// trusted here.
func PeakRSS(bin string, env []string, stdin io.Reader) (int64, error) {
	f, err := os.CreateTemp("", "bench-rss")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	f.Close()
	cmd := exec.Command("/usr/bin/time", "-f", "%M", "-o", f.Name(), bin)
	cmd.Env, cmd.Stdin = env, stdin
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("under /usr/bin/time (Debian package time): %w", err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return 0, err
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return kb << 10, err
}

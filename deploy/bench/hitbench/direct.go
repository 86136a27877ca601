package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// cgiRun is one way of answering a hit as a fresh CGI process.
type cgiRun struct {
	label string
	bin   string
	env   []string
	// visitors gives each run a new client address, so that a counter
	// that tells visitors apart counts every run as a new visitor's view.
	visitors bool
}

// sample is what one run of a CGI process cost.
type sample struct {
	wall   time.Duration
	maxRSS int64 // bytes
}

// runOnce starts the binary with a CGI environment, as a web server would,
// and waits for its whole answer.
//
// The peak RSS comes from GNU time in a second run: a Go parent starts
// children with CLONE_VM, and Linux then reports the parent's own peak as
// the child's, so the child's rusage cannot be trusted here.
func (c cgiRun) runOnce(i, j int) (sample, error) {
	timed := c
	if c.visitors {
		// Two visitors of their own, for the timed run and the one under
		// GNU time, so that each is a counted view, not a reload; and of
		// this binary's own (j), or two binaries on one database would
		// share them, and the second a round to come would pay less.
		timed.env = visitorEnv(c.env, strconv.Itoa(10+2*j), i)
		c.env = visitorEnv(c.env, strconv.Itoa(11+2*j), i)
	}
	var out bytes.Buffer
	cmd := exec.Command(timed.bin)
	cmd.Env, cmd.Stdout = timed.env, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %w", c.label, err)
	}
	wall := time.Since(start)
	if !bytes.Contains(out.Bytes(), []byte("Content-Type: image/")) {
		return sample{}, fmt.Errorf("%s: not an image: %.120q", c.label, out.Bytes())
	}
	rss, err := c.peakRSS()
	return sample{wall: wall, maxRSS: rss}, err
}

// visitorEnv is env with the client address NET.x.y.z of run i.
func visitorEnv(env []string, net string, i int) []string {
	return append(env[:len(env):len(env)], fmt.Sprintf("REMOTE_ADDR=%s.%d.%d.%d", net, i>>16&255, i>>8&255, i&255))
}

// peakRSS runs the binary once under GNU time, which forks from a small
// process of its own, and returns the peak RSS in bytes.
func (c cgiRun) peakRSS() (int64, error) {
	f, err := os.CreateTemp("", "hitbench-rss")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	f.Close()
	cmd := exec.Command("/usr/bin/time", "-f", "%M", "-o", f.Name(), c.bin)
	cmd.Env = c.env
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s under /usr/bin/time (Debian package time): %w", c.label, err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return 0, err
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return kb * 1024, err
}

// interleave runs each of runs n times, taking turns, so that a change in
// the machine's load hits all of them alike.
func interleave(runs []cgiRun, n int) ([][]sample, error) {
	out := make([][]sample, len(runs))
	for i := 0; i < n; i++ {
		// Each round starts with the next binary, so that no binary has
		// the same place in every round.
		for k := range runs {
			j := (i + k) % len(runs)
			r := runs[j]
			s, err := r.runOnce(i, j)
			if err != nil {
				return nil, err
			}
			out[j] = append(out[j], s)
		}
	}
	return out, nil
}

package main

import (
	"bytes"
	"fmt"
	"strconv"

	"hitcounter/deploy/bench/benchstat"
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

// runOnce starts the binary with a CGI environment, as a web server would,
// and waits for its whole answer; then runs it again for its peak RSS
// (benchstat.PeakRSS).
func (c cgiRun) runOnce(i, j int) (benchstat.Sample, error) {
	timed := c
	if c.visitors {
		// Two visitors of their own, for the timed run and the one under
		// GNU time, so that each is a counted view, not a reload; and of
		// this binary's own (j), or two binaries on one database would
		// share them, and the second a round to come would pay less.
		timed.env = visitorEnv(c.env, strconv.Itoa(10+2*j), i)
		c.env = visitorEnv(c.env, strconv.Itoa(11+2*j), i)
	}
	out, wall, err := benchstat.RunCGI(timed.bin, timed.env, nil)
	if err != nil {
		return benchstat.Sample{}, fmt.Errorf("%s: %w", c.label, err)
	}
	if !bytes.Contains(out, []byte("Content-Type: image/")) {
		return benchstat.Sample{}, fmt.Errorf("%s: not an image: %.120q", c.label, out)
	}
	rss, err := benchstat.PeakRSS(c.bin, c.env, nil)
	if err != nil {
		return benchstat.Sample{}, fmt.Errorf("%s: %w", c.label, err)
	}
	return benchstat.Sample{Wall: wall, PeakRSS: rss}, nil
}

// visitorEnv is env with the client address NET.x.y.z of run i.
func visitorEnv(env []string, net string, i int) []string {
	return append(env[:len(env):len(env)], fmt.Sprintf("REMOTE_ADDR=%s.%d.%d.%d", net, i>>16&255, i>>8&255, i&255))
}

// interleave runs each of runs n times, taking turns, so that a change in
// the machine's load hits all of them alike.
func interleave(runs []cgiRun, n int) ([][]benchstat.Sample, error) {
	out := make([][]benchstat.Sample, len(runs))
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

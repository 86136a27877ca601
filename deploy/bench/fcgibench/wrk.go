package main

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// wrkResult is what one wrk run reported.
type wrkResult struct {
	done     int64   // responses received ("N requests in")
	non2xx   int64   // "Non-2xx or 3xx responses"
	sockErrs int64   // connect, read, write errors and timeouts
	rate     float64 // "Requests/sec"
	p50, p99 time.Duration
}

var (
	reDone    = regexp.MustCompile(`^\s*(\d+) requests in `)
	reRate    = regexp.MustCompile(`^Requests/sec:\s+([0-9.]+)`)
	reNon2xx  = regexp.MustCompile(`^\s*Non-2xx or 3xx responses:\s+(\d+)`)
	reSockErr = regexp.MustCompile(`^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	reLatency = regexp.MustCompile(`^\s*(50|99)%\s+([0-9.]+)(us|ms|s|m)\s*$`)
)

// runWrk runs wrk against url with conns connections on threads threads
// for d, its requests made by script if not "", and parses its report.
func runWrk(ctx context.Context, url, script string, threads, conns int, d time.Duration) (wrkResult, string, error) {
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	args := []string{"-t" + strconv.Itoa(threads), "-c" + strconv.Itoa(conns),
		"-d" + strconv.Itoa(int(d.Round(time.Second)/time.Second)) + "s", "--timeout", "5s", "--latency"}
	if script != "" {
		args = append(args, "-s", script)
	}
	cmd := exec.CommandContext(ctx, "wrk", append(args, url)...)
	out, err := cmd.Output()
	if err != nil {
		return wrkResult{}, string(out), fmt.Errorf("wrk %s: %w", url, err)
	}
	r, err := parseWrk(string(out))
	return r, string(out), err
}

func parseWrk(out string) (wrkResult, error) {
	var r wrkResult
	var seen int
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := reDone.FindStringSubmatch(line); m != nil {
			r.done, _ = strconv.ParseInt(m[1], 10, 64)
			seen |= 1
		} else if m := reRate.FindStringSubmatch(line); m != nil {
			r.rate, _ = strconv.ParseFloat(m[1], 64)
			seen |= 2
		} else if m := reNon2xx.FindStringSubmatch(line); m != nil {
			r.non2xx, _ = strconv.ParseInt(m[1], 10, 64)
		} else if m := reSockErr.FindStringSubmatch(line); m != nil {
			for _, s := range m[1:] {
				n, _ := strconv.ParseInt(s, 10, 64)
				r.sockErrs += n
			}
		} else if m := reLatency.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute}[m[3]]
			d := time.Duration(v * float64(unit))
			if m[1] == "50" {
				r.p50, seen = d, seen|4
			} else {
				r.p99, seen = d, seen|8
			}
		}
	}
	if seen != 15 {
		return r, fmt.Errorf("wrk: cannot read its report:\n%s", out)
	}
	return r, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"hitcounter/deploy/bench/benchstat"
)

const (
	// rounds each binary's requests are split into, taking turns, so that
	// a change in the machine's load hits both binaries alike.
	rounds = 4
	// requestTimeout bounds one request: far above any sane CGI answer,
	// low enough that a hung server ends the run instead of stalling it.
	requestTimeout = 10 * time.Second
	// servedBudget bounds the whole load test, whatever -requests says.
	servedBudget = 10 * time.Minute
)

// concurrencies are the numbers of requests kept in flight; the p99 target
// is about the last.
var concurrencies = []int{4, 16}

// target is one CGI binary as the web server serves it.
type target struct {
	label, url string
}

// served loads a web server that serves both binaries as CGI, at each
// concurrency in turn, and prints what a hit costs there. also names more
// counter builds in the same cgi-bin, measured in the same rounds.
func served(base string, requests int, also []string) error {
	if requests < rounds {
		return fmt.Errorf("served: -requests %d: want at least %d", requests, rounds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), servedBudget)
	defer cancel()
	maxConc := concurrencies[len(concurrencies)-1]
	client := &http.Client{
		Timeout: requestTimeout,
		// Enough idle connections that every worker keeps its own: the
		// load is on the CGI processes, not on TCP set-up.
		Transport: &http.Transport{MaxIdleConnsPerHost: maxConc, MaxConnsPerHost: maxConc},
	}
	defer client.CloseIdleConnections()
	targets := []target{
		{"floor (1x1 GIF)", base + "/cgi-bin/floor.cgi/bench.gif"},
		{"counted PNG hit", base + "/cgi-bin/counter.cgi/bench.png"},
	}
	for _, name := range also {
		targets = append(targets, target{strings.TrimSuffix(name, ".cgi"), base + "/cgi-bin/" + name + "/bench.png"})
	}
	// One request each first: it fails fast on a wrong setup and gives
	// the size of the counter's answer.
	if _, err := get(ctx, client, targets[0].url); err != nil {
		return err
	}
	size, err := get(ctx, client, targets[1].url)
	if err != nil {
		return err
	}

	fmt.Printf("\nserved as CGI by %s, %d requests each per concurrency, %d rounds interleaved\n",
		base, requests, rounds)
	for _, conc := range concurrencies {
		lat := make([][]time.Duration, len(targets))
		wall := make([]time.Duration, len(targets))
		for r := range rounds {
			n := requests / rounds
			if r == rounds-1 {
				n = requests - n*(rounds-1)
			}
			for j, t := range targets {
				d, w, err := load(ctx, client, t.url, conc, n)
				if err != nil {
					return fmt.Errorf("%s, concurrency %d: %w", t.label, conc, err)
				}
				lat[j] = append(lat[j], d...)
				wall[j] += w
			}
		}
		fmt.Printf("  concurrency %d\n", conc)
		fmt.Printf("  %-18s %9s %9s %9s\n", "", "p50 ms", "p99 ms", "hits/s")
		for j, t := range targets {
			fmt.Printf("  %-18s %9.2f %9.2f %9.1f\n", t.label, ms(percentile(lat[j], 50)),
				ms(percentile(lat[j], 99)), float64(len(lat[j]))/wall[j].Seconds())
		}
		a, b := lat[0], lat[1]
		target := ""
		if conc == maxConc {
			target = " (target <= 3.00)"
		}
		fmt.Printf("  ratio counter/floor: p50 %.2f, p99 %.2f; counter p99/p50 %.2f%s\n",
			ms(percentile(b, 50))/ms(percentile(a, 50)), ms(percentile(b, 99))/ms(percentile(a, 99)),
			ms(percentile(b, 99))/ms(percentile(b, 50)), target)
		for j := 2; j < len(targets); j++ {
			c := lat[j]
			fmt.Printf("  %s: p99/p50 %.2f, p99 against the counter's %.2f\n", targets[j].label,
				ms(percentile(c, 99))/ms(percentile(c, 50)), ms(percentile(c, 99))/ms(percentile(b, 99)))
		}
	}
	fmt.Printf("  counter PNG response body: %d bytes (target <= 800)\n", size)
	return nil
}

// load sends n GET requests to url with exactly conc of them in flight and
// returns the latency of each and the wall time of all. It stops at the
// first failure.
func load(ctx context.Context, client *http.Client, url string, conc, n int) ([]time.Duration, time.Duration, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lat := make([]time.Duration, n)
	start := time.Now()
	benchstat.Run(ctx, n, conc, func(i int) bool {
		t := time.Now()
		if _, err := get(ctx, client, url); err != nil {
			cancel(err)
			return false
		}
		lat[i] = time.Since(t)
		return true
	})
	wall := time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return nil, 0, err
	}
	return lat, wall, nil
}

// get fetches url, reads the whole body and returns its length; anything
// but a 200 with an image is an error.
func get(ctx context.Context, client *http.Client, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	// A browser's hit, not a Go client's, which the counter tallies as a
	// bot: what the owner's pages get.
	req.Header.Set("User-Agent", browserUA)
	req.Header.Set("Referer", "https://www.example.org/blog/2026/12/a-post.html")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 120))
		return 0, fmt.Errorf("GET %s: %s: %.120q", url, resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "image/") {
		return 0, fmt.Errorf("GET %s: Content-Type %q, want an image", url, ct)
	}
	// The client already fails a body shorter than its Content-Length.
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, fmt.Errorf("GET %s: reading body: %w", url, err)
	}
	return n, nil
}

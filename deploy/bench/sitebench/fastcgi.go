package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"hitcounter/deploy/bench/benchstat"
)

// loaded is what one run of concurrent clients got from the server.
type loaded struct {
	perSec float64
	p99    time.Duration
}

// load sends requests hits on counter name through the web server at
// base, conns at a time, each from a loopback address of its own (a new
// visitor, on a fresh connection) with a Referer of a page of the site
// picked by Zipf, and returns hits/s and the 99th percentile.
func load(base, name string, requests, conns int, seed uint64) (loaded, error) {
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	r := rand.New(rand.NewPCG(seed, 2))
	zipf := rand.NewZipf(r, zipfS, 1, sitePages-1)
	referers := make([]string, requests)
	for i := range referers {
		referers[i] = "https://" + siteHost + pagePath(int(zipf.Uint64()))
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	benchstat.Run(ctx, requests, conns, func(i int) bool {
		t0 := time.Now()
		err := hitOnce(ctx, base+"/cgi-bin/counter.cgi/"+name+".png", referers[i], seed, i)
		d := time.Since(t0)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && firstErr == nil {
			firstErr = err
		}
		lat = append(lat, d)
		return err == nil
	})
	elapsed := time.Since(start)
	if firstErr != nil {
		return loaded{}, fmt.Errorf("%s: %w", name, firstErr)
	}
	slices.Sort(lat)
	return loaded{perSec: float64(len(lat)) / elapsed.Seconds(), p99: benchstat.Percentile(lat, 99)}, nil
}

// hitOnce sends hit i of a run from the loopback address 127.S.x.y,
// S from the run's seed: the server sees a new visitor each time.
func hitOnce(ctx context.Context, url, referer string, seed uint64, i int) error {
	local := &net.TCPAddr{IP: net.IPv4(127, byte(1+seed%250), byte(i>>8), byte(i))}
	tr := &http.Transport{
		DialContext:       (&net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}).DialContext,
		DisableKeepAlives: true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", browserUA)
	req.Header.Set("Referer", referer)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		return fmt.Errorf("GET %s: %s, %s", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	return nil
}

// fastCGI loads "single" and "site" through the web server at base, for
// each number of connections, in interleaved rounds (the order turned
// each round), and prints the medians.
func fastCGI(base string, requests, rounds int, conns []int) error {
	// Each hit is a new visitor: one entry in the counter's share of the
	// table of today's visitors for single, two for the site (its page's
	// and its own). A full share forgets its oldest visitor and still
	// writes, so the hits after it fills cost what the ones before did.
	fmt.Printf("FastCGI behind lighttpd (shipped counter-fastcgi.conf, one process, the big file): %d hits per run, %d rounds, each hit a new visitor\n", requests, rounds)
	fmt.Printf("  %-6s %-8s %10s %10s\n", "conns", "counter", "hits/s", "p99 ms")
	names := []string{"single", "site"}
	// From a random start, so that a second run on the same file within
	// a reload window still counts.
	seed := rand.Uint64N(1 << 16)
	for _, c := range conns {
		got := map[string][]loaded{}
		for round := range rounds {
			for k := range names {
				name := names[(k+round)%len(names)]
				seed++
				before, err := jsonCount(base, name)
				if err != nil {
					return err
				}
				l, err := load(base, name, requests, c, seed)
				if err != nil {
					return err
				}
				after, err := jsonCount(base, name)
				if err != nil {
					return err
				}
				if after-before != uint64(requests) {
					return fmt.Errorf("FastCGI: %s grew by %d in a run of %d hits: not every hit counted", name, after-before, requests)
				}
				got[name] = append(got[name], l)
			}
		}
		med := map[string]loaded{}
		for _, name := range names {
			med[name] = median(got[name])
			fmt.Printf("  %-6d %-8s %10.0f %10.2f\n", c, name, med[name].perSec, benchstat.Ms(med[name].p99))
		}
		fmt.Printf("  %-6d site/single: hits/s %.3f (target >= 0.91, i.e. a site hit costs <= 1.1 x), p99 %.3f (target <= 1.1)\n",
			c, med["site"].perSec/med["single"].perSec, benchstat.Ms(med["site"].p99)/benchstat.Ms(med["single"].p99))
	}
	return nil
}

// jsonCount reads the total of counter name through the server, counting
// nothing.
func jsonCount(base, name string) (uint64, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(base + "/cgi-bin/counter.cgi/" + name + ".json")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var got struct{ Count *uint64 }
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&got)
	if err == nil && (resp.StatusCode != http.StatusOK || got.Count == nil) {
		err = fmt.Errorf("%s, no count", resp.Status)
	}
	if err != nil {
		return 0, fmt.Errorf("GET /%s.json: %w", name, err)
	}
	return *got.Count, nil
}

// median returns the median hits/s and the median p99 of rounds.
func median(rounds []loaded) loaded {
	rates := make([]float64, len(rounds))
	p99s := make([]time.Duration, len(rounds))
	for i, l := range rounds {
		rates[i], p99s[i] = l.perSec, l.p99
	}
	slices.Sort(rates)
	slices.Sort(p99s)
	return loaded{perSec: rates[len(rates)/2], p99: p99s[len(p99s)/2]}
}

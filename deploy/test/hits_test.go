package test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"sync"
	"testing"
	"time"

	"hitcounter/deploy/bench/benchstat"
	"hitcounter/store"
)

func TestServerCountsEveryHit(t *testing.T) {
	const hits, inFlight, maxFailures = 2000, 16, 20
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "rs", "reload=off") // one client, every hit counts

		start := time.Now().UTC()
		sent := uint64(hitRS(t, srv, hits, inFlight, maxFailures, nil))
		end := time.Now().UTC()
		t.Logf("%s: %d hits, %d at a time, in %v (%.0f/s)", srv.Name, sent, inFlight, end.Sub(start).Round(time.Millisecond), float64(sent)/end.Sub(start).Seconds())
		if sent != hits {
			t.Fatalf("sent %d hits, want %d", sent, hits)
		}

		if got := jsonCount(t, srv.URL, "rs"); got != hits {
			t.Errorf("GET /rs.json: got count %d, want %d", got, hits)
		}
		db, err := store.Open(dbPath, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		info, err := db.Counter("rs")
		if err != nil {
			t.Fatal(err)
		}
		if info.Count != hits {
			t.Errorf("store Counter: got total %d, want %d", info.Count, hits)
		}
		// The run may cross midnight UTC: sum the days it touched.
		first, last := start.Format(time.DateOnly), end.Format(time.DateOnly)
		days, err := db.Days("rs", start.Truncate(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for _, d := range days {
			if d.Date < first || d.Date > last {
				t.Errorf("store Days: hits on %s, want only %s to %s", d.Date, first, last)
			}
			sum += d.Views
		}
		if sum != hits {
			t.Errorf("store Days %s to %s: got %d hits (%v), want %d", first, last, sum, days, hits)
		}
		if got, err := srv.CGIStderr(); err != nil || got != "" {
			t.Errorf("CGI stderr (%s): got %q (%v), want it empty", srv.CGILog, got, err)
		}
	})
}

// checkHit counts one hit and checks the answer is a fresh, uncacheable PNG.
func checkHit(ctx context.Context, client *http.Client, url string) error {
	return checkHitAs(ctx, client, url, firefoxUA)
}

// checkHitAs is checkHit from a browser of User-Agent ua.
func checkHitAs(ctx context.Context, client *http.Client, url, ua string) error {
	resp, body, err := getWith(ctx, client, http.MethodGet, url, "User-Agent", ua)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d (%s), want 200", resp.StatusCode, resp.Header.Get("X-Counter-Error"))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "image/png" {
		return fmt.Errorf("Content-Type %q, want image/png", ct)
	}
	if err := checkNoCache(resp.Header); err != nil {
		return err
	}
	if _, err := png.Decode(bytes.NewReader(body)); err != nil {
		return fmt.Errorf("decode PNG: %w", err)
	}
	return nil
}

// hitRS sends hits GETs of counter rs's image through srv, inFlight at a
// time, and returns how many it sent; after maxFailures failed it sends no
// more, and each failure errors t. Each goes on a new connection: a GET
// that the transport retried on a reused connection could be counted
// twice, and that would not be the counter's fault. after, if not nil,
// runs after each hit.
func hitRS(t *testing.T, srv *webServer, hits, inFlight, maxFailures int, after func()) int {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	url := srv.URL + "/cgi-bin/counter.cgi/rs.png"
	var (
		mu       sync.Mutex
		failures []string
	)
	sent := benchstat.Run(ctx, hits, inFlight, func(i int) bool {
		err := checkHit(ctx, client, url)
		if after != nil {
			after()
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures = append(failures, fmt.Sprintf("hit %d: %v", i, err))
		}
		return len(failures) < maxFailures
	})
	for _, f := range failures {
		t.Error(f)
	}
	if ctx.Err() != nil {
		t.Errorf("%d of %d hits sent in the time allowed: %v", sent, hits, ctx.Err())
	}
	return sent
}

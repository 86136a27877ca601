package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/gif"
	"image/png"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"hitcounter/store"
)

func TestLighttpdCountsEveryHit(t *testing.T) {
	lighttpdBinary(t) // skip before building anything
	const hits, inFlight, maxFailures = 2000, 16, 20
	cgiDir, dbPath := installCounter(t)
	admin(t, cgiDir, dbPath, "create", "rs")
	srv := startLighttpdServer(t, cgiDir, dbPath)

	// A new connection per request: a GET that the transport retried on a
	// reused connection could be counted twice, and that would not be the
	// counter's fault.
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	url := srv.URL + "/cgi-bin/counter.cgi/rs.png"
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	jobs := make(chan int)
	start := time.Now().UTC()
	for range inFlight {
		wg.Go(func() {
			for i := range jobs {
				if err := checkHit(ctx, client, url); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("hit %d: %v", i, err))
					mu.Unlock()
				}
			}
		})
	}
	sent := 0
feed:
	for ; sent < hits; sent++ {
		mu.Lock()
		n := len(failures)
		mu.Unlock()
		if n >= maxFailures {
			break
		}
		select {
		case jobs <- sent:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	end := time.Now().UTC()
	t.Logf("%d hits, %d at a time, in %v (%.0f/s)", sent, inFlight, end.Sub(start).Round(time.Millisecond), float64(sent)/end.Sub(start).Seconds())
	for _, f := range failures {
		t.Error(f)
	}
	if sent != hits {
		t.Fatalf("sent %d hits, want %d (stopped early: %v)", sent, hits, ctx.Err())
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
		sum += d.Hits
	}
	if sum != hits {
		t.Errorf("store Days %s to %s: got %d hits (%v), want %d", first, last, sum, days, hits)
	}
	if b, err := os.ReadFile(srv.BreakageLog); err != nil || len(b) != 0 {
		t.Errorf("breakage log (CGI stderr): got %q (%v), want it empty", b, err)
	}
}

// checkHit counts one hit and checks the answer is a fresh, uncacheable PNG.
func checkHit(ctx context.Context, client *http.Client, url string) error {
	resp, body, err := get(ctx, client, http.MethodGet, url)
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

func TestLighttpdRoutes(t *testing.T) {
	lighttpdBinary(t) // skip before building anything
	cgiDir, dbPath := installCounter(t)
	admin(t, cgiDir, dbPath, "create", "rs2")
	base := startLighttpd(t, cgiDir, dbPath)
	client := &http.Client{Timeout: 20 * time.Second}

	var directWidth int // of the default style's six digits
	pngWidth := func(body []byte) (int, error) {
		img, err := png.Decode(bytes.NewReader(body))
		if err != nil {
			return 0, fmt.Errorf("decode PNG: %w", err)
		}
		return img.Bounds().Dx(), nil
	}
	isPNG := func(body []byte) error { _, err := pngWidth(body); return err }
	tests := []struct {
		name   string
		method string
		path   string
		status int
		ctype  string
		hits   uint64 // added to rs2
		check  func(body []byte) error
	}{
		{"direct", "GET", "/cgi-bin/counter.cgi/rs2.png", 200, "image/png", 1, func(body []byte) (err error) {
			directWidth, err = pngWidth(body)
			return err
		}},
		{"alias", "GET", "/hits/counter.cgi/rs2.png", 200, "image/png", 1, isPNG},
		{"rewrite keeps query", "GET", "/counter/rs2.png?digits=8", 200, "image/png", 1, func(body []byte) error {
			w, err := pngWidth(body)
			if err == nil && directWidth > 0 && w <= directWidth {
				err = fmt.Errorf("width %d with digits=8, want more than the %d of six digits: query string lost?", w, directWidth)
			}
			return err
		}},
		{"gif", "GET", "/cgi-bin/counter.cgi/rs2.gif", 200, "image/gif", 1, func(body []byte) error {
			_, err := gif.Decode(bytes.NewReader(body))
			return err
		}},
		{"svg", "GET", "/cgi-bin/counter.cgi/rs2.svg", 200, "image/svg+xml", 1, checkSVG},
		{"head counts nothing", "HEAD", "/cgi-bin/counter.cgi/rs2.png", 200, "image/png", 0, func(body []byte) error {
			if len(body) != 0 {
				return fmt.Errorf("HEAD body of %d bytes, want none", len(body))
			}
			return nil
		}},
		{"unknown counter", "GET", "/cgi-bin/counter.cgi/nosuch.png", 404, "image/png", 0, isPNG},
		{"bad param", "GET", "/cgi-bin/counter.cgi/rs2.png?size=1e309", 400, "image/png", 0, isPNG},
		{"unknown json", "GET", "/cgi-bin/counter.cgi/nosuch.json", 404, "application/json", 0, func(body []byte) error {
			var got struct{ Error string }
			if err := json.Unmarshal(body, &got); err != nil || got.Error == "" {
				return fmt.Errorf("body %q, want {\"error\":\"...\"}", body)
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := jsonCount(t, base, "rs2")
			resp, body, err := get(context.Background(), client, tc.method, base+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Errorf("%s %s: got status %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
			}
			if got := resp.Header.Get("Content-Type"); got != tc.ctype {
				t.Errorf("%s %s: got Content-Type %q, want %q", tc.method, tc.path, got, tc.ctype)
			}
			if strings.HasPrefix(tc.ctype, "image/") {
				if err := checkNoCache(resp.Header); err != nil {
					t.Errorf("%s %s: %v", tc.method, tc.path, err)
				}
				// A refused image says why in a header, and only then.
				if msg := resp.Header.Get("X-Counter-Error"); (tc.status >= 400) != (msg != "") {
					t.Errorf("%s %s: got X-Counter-Error %q with status %d", tc.method, tc.path, msg, resp.StatusCode)
				}
			}
			if err := tc.check(body); err != nil {
				t.Errorf("%s %s: %v", tc.method, tc.path, err)
			}
			if got := jsonCount(t, base, "rs2"); got != before+tc.hits {
				t.Errorf("%s %s: count went from %d to %d, want %d", tc.method, tc.path, before, got, before+tc.hits)
			}
		})
	}
}

// checkSVG checks body is a well-formed document whose root is <svg>.
func checkSVG(body []byte) error {
	if !bytes.HasPrefix(body, []byte("<svg")) {
		return fmt.Errorf("body starts %.40q, want <svg", body)
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		if _, err := d.Token(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("SVG not well-formed XML: %w", err)
		}
	}
}

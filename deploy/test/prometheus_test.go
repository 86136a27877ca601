package test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestPrometheusScrapesThroughLighttpd: Debian's Prometheus, started on
// a free port with a config and a data folder of its own, scrapes the
// counter every second through a real lighttpd (CGI), with the token of
// token metrics as its bearer credentials from a file; after known hits
// (5 counted, 2 by bots) its HTTP API answers increase() and rate() with
// exactly those figures.
func TestPrometheusScrapesThroughLighttpd(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		skipOutsideCI(t, "prometheus not installed (apt-get install prometheus)")
	}
	bin := serverBinary(t, "lighttpd", lighttpdBins...)
	cgiDir, dbPath := installCounter(t)
	admin(t, cgiDir, dbPath, "create", "blog", "reload=off")
	token := metricsToken(t, cgiDir, dbPath)
	srv := startLighttpd(t, bin, cgiDir, dbPath)

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "counter.token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "prometheus.yml")
	err = os.WriteFile(conf, fmt.Appendf(nil, `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: counter
    metrics_path: /cgi-bin/counter.cgi/metrics
    authorization:
      credentials_file: %s
    static_configs:
      - targets: ['%s']
`, tokenFile, srv.URL[len("http://"):]), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	api := startPrometheus(t, prom, conf, filepath.Join(dir, "data"))

	views := `counter_views_total{counter="blog"}`
	waitUntil(t, 30*time.Second, "the first scrape of blog", func() bool { _, ok := promValue(t, api, views, ""); return ok })
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 7 {
		ua := firefoxUA
		if i >= 5 {
			ua = "curl/8.0"
		}
		if err := checkHitAs(context.Background(), client, srv.URL+"/cgi-bin/counter.cgi/blog.png", ua); err != nil {
			t.Fatal(err)
		}
	}
	bots := `counter_not_counted_total{counter="blog",reason="bots"}`
	waitUntil(t, 30*time.Second, "a scrape after the hits", func() bool {
		v, _ := promValue(t, api, views, "")
		b, _ := promValue(t, api, bots, "")
		return v == 5 && b == 2
	})
	// At the time of the last sample, over a range that holds the
	// series' first one (0), increase() neither extrapolates at the end
	// (the sample is there) nor at the start (a counter from 0).
	at, _ := promValue(t, api, "timestamp("+views+")", "")
	when := strconv.FormatFloat(at, 'f', 3, 64)
	for _, tc := range []struct {
		query string
		want  float64
	}{
		{"increase(" + views + "[1h])", 5},
		{"rate(" + views + "[1h])", 5.0 / 3600},
		{"increase(" + bots + "[1h])", 2},
	} {
		got, ok := promValue(t, api, tc.query, when)
		t.Logf("%s at %s: %v", tc.query, when, got)
		if !ok || math.Abs(got-tc.want) > 1e-9*math.Max(1, tc.want) {
			t.Errorf("%s at %s: got %v (%v), want %v", tc.query, when, got, ok, tc.want)
		}
	}
}

// startPrometheus runs Prometheus with config conf and its data in data,
// on a free loopback port, until the test ends, and returns its base URL
// once it is ready.
func startPrometheus(t *testing.T, prom, conf, data string) string {
	t.Helper()
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	logPath := filepath.Join(filepath.Dir(conf), "prometheus.log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prom, "--config.file="+conf, "--storage.tsdb.path="+data,
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(port), "--log.level=warn")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		log.Close()
	})
	dumpOnFailure(t, logPath)
	waitUntil(t, 60*time.Second, "Prometheus to be ready", func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base
}

// promValue asks Prometheus's HTTP API for the one value of an instant
// query, at time at (Unix seconds; "" for now); ok is false when the
// answer holds no series.
func promValue(t *testing.T, api, query, at string) (float64, bool) {
	t.Helper()
	q := url.Values{"query": {query}}
	if at != "" {
		q.Set("time", at)
	}
	resp, err := http.Get(api + "/api/v1/query?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || ans.Status != "success" {
		t.Fatalf("query %s: %v %s", query, err, ans.Error)
	}
	if len(ans.Data.Result) != 1 {
		return 0, false
	}
	s, _ := ans.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("query %s: value %q", query, s)
	}
	return v, true
}

// waitUntil polls cond until it holds, or fails the test after timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

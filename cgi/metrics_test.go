package main

import (
	"bytes"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// metricsEnv is the CGI environment of GET /metrics with the
// Authorization header auth ("" for none).
func metricsEnv(t *testing.T, db, auth string) []string {
	t.Helper()
	env := append(hitEnv(t, db), "PATH_INFO=/metrics", "REQUEST_URI=/cgi-bin/counter.cgi/metrics", "QUERY_STRING=")
	if auth != "" {
		env = append(env, "HTTP_AUTHORIZATION="+auth)
	}
	return env
}

// newMetricsToken runs token metrics and returns what it printed on
// stdout, checking that it is one token alone.
func newMetricsToken(t *testing.T, db string) string {
	t.Helper()
	cmd := exec.Command(counterBinary(t), "token", "metrics")
	cmd.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("token metrics: %v: %s", err, stderr.Bytes())
	}
	token := strings.TrimSuffix(string(out), "\n")
	if len(token) != 43 || strings.ContainsAny(token, " \n") {
		t.Fatalf("token metrics printed %q, want one token of 43 characters", out)
	}
	if strings.Contains(stderr.String(), token) {
		t.Fatalf("token metrics printed the token on stderr too: %s", stderr.Bytes())
	}
	return token
}

// TestMetricsToken: on the built binary, /metrics answers 401 with a
// WWW-Authenticate header before any token is made, with none, with a
// wrong one, in another scheme, or with a token that a newer one
// replaced; 200 with the token, which no log line holds.
func TestMetricsToken(t *testing.T) {
	db, _ := grownDB(t, t.TempDir())
	want401 := func(name, auth string) {
		t.Helper()
		ans, stderr := runCGI(t, metricsEnv(t, db, auth))
		if ans.status != http.StatusUnauthorized || !strings.HasPrefix(ans.header.Get("WWW-Authenticate"), "Bearer ") {
			t.Errorf("%s: got %d, WWW-Authenticate %q, want 401 and Bearer", name, ans.status, ans.header.Get("WWW-Authenticate"))
		}
		if bytes.Contains(ans.body, []byte("counter_")) || (auth != "" && strings.Contains(stderr, auth)) {
			t.Errorf("%s: the answer or the log holds what it must not: %q, %q", name, ans.body, stderr)
		}
	}
	want401("no token made, none sent", "")
	want401("no token made, one sent", "Bearer "+strings.Repeat("x", 43))

	old := newMetricsToken(t, db)
	token := newMetricsToken(t, db)
	for _, tc := range []struct{ name, auth string }{
		{"none", ""},
		{"wrong", "Bearer " + strings.Repeat("x", 43)},
		{"basic", "Basic " + token},
		{"bare", token},
		{"replaced", "Bearer " + old},
	} {
		want401(tc.name, tc.auth)
	}
	ans, stderr := runCGI(t, metricsEnv(t, db, "Bearer "+token))
	if ans.status != http.StatusOK || ans.header.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("with the token: got %d %q, want 200 in the text format 0.0.4: %s", ans.status, ans.header.Get("Content-Type"), stderr)
	}
	if !bytes.Contains(ans.body, []byte(`counter_views_total{counter="demo",kind="counter"} 60`)) {
		t.Errorf("with the token: no demo's 60 views in\n%s", ans.body)
	}
	if strings.Contains(stderr, token) {
		t.Errorf("the log holds the token: %s", stderr)
	}
}

// TestMetricsScrapeChecksNoPassword: a scrape takes no bcrypt slot (it
// answers 200 while the test holds every one, as a flood would) and each
// takes less than a login that checks a password at cost 10, timed on
// the same binary.
func TestMetricsScrapeChecksNoPassword(t *testing.T) {
	bin := counterBinary(t)
	dir := t.TempDir()
	db, _ := grownDB(t, dir)
	if out, code := adminStdin(t, db, "the owner's password\n", "passwd", "demo"); code != 0 {
		t.Fatalf("passwd: %s", out)
	}
	token := newMetricsToken(t, db)
	const tries = 5
	checked := checkedLogins(t, bin, db, tries)
	holdBcryptSlots(t, dir)
	var scraped []time.Duration
	for range 2 * tries {
		cmd := exec.Command(bin)
		cmd.Env = metricsEnv(t, db, "Bearer "+token)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("scrape: %v: %s", err, errOut.Bytes())
		}
		scraped = append(scraped, time.Since(start))
		if ans := parseCGI(t, out.Bytes()); ans.status != http.StatusOK {
			t.Fatalf("scrape with every bcrypt slot held: got %d %q, want 200", ans.status, ans.body)
		}
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	t.Logf("scrapes: median %v, slowest %v; logins that check a password: median %v",
		median(scraped).Round(time.Microsecond), slices.Max(scraped).Round(time.Microsecond), median(checked).Round(time.Microsecond))
	if median(scraped) >= median(checked) {
		t.Errorf("scrapes took a median %v, logins that check a password %v: want less", median(scraped), median(checked))
	}
}

// TestMetricsPromtool: Prometheus's own promtool (Debian's prometheus
// package) finds nothing wrong in a scrape of a file with a counter, a
// site, hits, bots and a backup, whose time it shows.
func TestMetricsPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		testenv.Need(t, "promtool (apt-get install prometheus)")
	}
	db, _ := grownDB(t, t.TempDir())
	if out, code := adminStdin(t, db, "", "create", "-site", "-hosts", "example.org", "blog"); code != 0 {
		t.Fatalf("create: %s", out)
	}
	token := newMetricsToken(t, db)
	if out, code := adminStdin(t, db, "", "backup", filepath.Join(t.TempDir(), "backup.db")); code != 0 {
		t.Fatalf("backup: %s", out)
	}
	for _, ua := range []string{"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "curl/8.0", "Googlebot/2.1"} {
		runCGI(t, append(hitEnv(t, db), "PATH_INFO=/demo.png", "HTTP_USER_AGENT="+ua))
	}
	ans, stderr := runCGI(t, metricsEnv(t, db, "Bearer "+token))
	if ans.status != http.StatusOK {
		t.Fatalf("scrape: got %d %q: %s", ans.status, ans.body, stderr)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(ans.body)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s\non\n%s", err, out, ans.body)
	}
	for _, want := range []string{
		`counter_not_counted_total{counter="demo",kind="counter",reason="bots"} 2`,
		`counter_views_total{counter="blog",kind="site"} 0`,
		`counter_request_duration_seconds_count{kind="hit"} 3`,
		`counter_database_max_size_bytes `,
		`counter_last_backup_timestamp_seconds 1`,
	} {
		if !bytes.Contains(ans.body, []byte(want)) {
			t.Errorf("no %q in\n%s", want, ans.body)
		}
	}
}

// TestMetricsCostsOff: with COUNTER_COSTS=off a scrape shows neither the
// request times nor the bcrypt figure, as the reference says, even when
// the meter measured logins before it was turned off; with the meter on,
// the same file and runtime directory show both.
func TestMetricsCostsOff(t *testing.T) {
	bin := counterBinary(t)
	db, _ := grownDB(t, t.TempDir())
	if out, code := adminStdin(t, db, "the owner's password\n", "passwd", "demo"); code != 0 {
		t.Fatalf("passwd: %s", out)
	}
	token := newMetricsToken(t, db)
	for i := range 3 {
		l, err := postLogin(bin, loginEnv(t, db, "198.51.100."+strconv.Itoa(i+1), "", "password=wrong"), "password=wrong")
		if err != nil || l.status != http.StatusUnauthorized {
			t.Fatalf("a wrong password: got %d %v, want 401", l.status, err)
		}
	}
	costly := []string{"counter_bcrypt_check_seconds", "counter_request_duration_seconds"}
	for _, tc := range []struct {
		costs string
		shown bool
	}{{"on", true}, {"off", false}} {
		ans, stderr := runCGI(t, append(metricsEnv(t, db, "Bearer "+token), "COUNTER_COSTS="+tc.costs))
		if ans.status != http.StatusOK {
			t.Fatalf("COUNTER_COSTS=%s: got %d: %s", tc.costs, ans.status, stderr)
		}
		for _, name := range costly {
			if got := bytes.Contains(ans.body, []byte("\n"+name)); got != tc.shown {
				t.Errorf("COUNTER_COSTS=%s: %s shown %v, want %v", tc.costs, name, got, tc.shown)
			}
		}
	}
}

package test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// TestServerMetrics checks that every install route passes the
// Authorization header to the counter: /metrics answers 401 without the
// token and with a wrong one, 200 with the one token metrics printed.
// Apache drops the header unless told (CGIPassAuth, FcgidPassHeader).
func TestServerMetrics(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *webServer, cgiDir, dbPath string) {
		admin(t, cgiDir, dbPath, "create", "blog")
		token := metricsToken(t, cgiDir, dbPath)
		client := &http.Client{Timeout: 10 * time.Second}
		ctx := context.Background()
		url := srv.URL + "/cgi-bin/counter.cgi/metrics"
		for _, tc := range []struct {
			name   string
			header []string
			want   int
		}{
			{"no token", nil, http.StatusUnauthorized},
			{"wrong token", []string{"Authorization", "Bearer " + strings.Repeat("A", len(token))}, http.StatusUnauthorized},
			{"token", []string{"Authorization", "Bearer " + token}, http.StatusOK},
		} {
			resp, body, err := getWith(ctx, client, http.MethodGet, url, tc.header...)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.want {
				t.Fatalf("%s: GET /metrics: got %d %q, want %d", tc.name, resp.StatusCode, body, tc.want)
			}
			switch tc.want {
			case http.StatusOK:
				if !bytes.Contains(body, []byte(`counter_views_total{counter="blog",kind="counter"} 0`)) {
					t.Errorf("%s: GET /metrics: no views of blog in\n%s", tc.name, body)
				}
			default:
				if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
					t.Errorf("%s: WWW-Authenticate %q, want Bearer", tc.name, got)
				}
			}
		}
		logs, err := srv.CGIStderr()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(logs, token) {
			t.Errorf("the token is in the log:\n%s", logs)
		}
	})
}

// metricsToken runs token metrics as admin runs a command and returns
// the token it printed on stdout.
func metricsToken(t testing.TB, cgiDir, dbPath string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(cgiDir, "counter.cgi"), "token", "metrics", "-db", dbPath)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GATEWAY_INTERFACE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = testenv.OwnRunDir(t, append(cmd.Env, "COUNTER_DB="+dbPath))
	if cred := ownerOf(t, filepath.Dir(dbPath)); cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("counter.cgi token metrics: %v\n%s", err, stderr.Bytes())
	}
	token := strings.TrimSpace(string(out))
	if len(token) < 40 || strings.ContainsAny(token, " \n") {
		t.Fatalf("token metrics printed %q, want one token", out)
	}
	return token
}

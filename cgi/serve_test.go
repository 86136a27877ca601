package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"hitcounter/cgi/testenv"
)

// startServe runs "counter.cgi serve" in dir with args and returns its URL,
// the process and its stderr so far. The process is killed when the test
// ends.
func startServe(t *testing.T, dir string, args ...string) (string, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(counterBinary(t), append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no address printed: %v; stderr %s", err, stderr.String())
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("no URL in %q", line)
	}
	return strings.Fields(line[i:])[0], cmd, &stderr
}

// TestServeCommand runs "counter.cgi serve" as a user would: it makes the
// demo counter on first start, says where it listens, and stops cleanly on
// SIGTERM.
func TestServeCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	url, cmd, stderr := startServe(t, t.TempDir(), "-db", db)
	resp, err := http.Get(url + "demo.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(body), `{"name":"demo","count":0,`) {
		t.Errorf("demo.json = %q", body)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v; stderr %s", err, stderr.String())
	}
}

// TestServeWarnsOnlyForRealDB runs "serve" as root in a folder of root's:
// the demo database there is for trying the counter out and no web server
// will open it, so it gets no warning; a database given with -db may be
// the live one, and keeps it.
func TestServeWarnsOnlyForRealDB(t *testing.T) {
	testenv.NeedRoot(t)
	const warning = "counter: warning: creating"
	tests := []struct {
		name string
		args []string
		want bool
	}{
		{"demo database", nil, false},
		{"database given with -db", []string{"-db", filepath.Join(t.TempDir(), "counter.db")}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			url, cmd, stderr := startServe(t, dir, tc.args...)
			if _, err := http.Get(url + "demo.json"); err != nil {
				t.Fatal(err)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			if got := strings.Contains(stderr.String(), warning); got != tc.want {
				t.Errorf("stderr %q: warning %v, want %v", stderr.String(), got, tc.want)
			}
		})
	}
}

package test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestSoak runs deploy/bench/soak, the 10-minute soak of deploy/bench/soak.sh, for a
// minute: the FastCGI process under the mixed load of 16 clients must not
// drift upward in memory, threads or open files, leave a request
// unanswered, or lose a hit.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of load; run without -short")
	}
	bin := buildCounter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./deploy/bench/soak", "-bin", bin, "-duration", "60s", "-every", "10s")
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	t.Logf("soak, a minute:\n%s", out)
	if err != nil || !strings.Contains(string(out), "soak: PASS") {
		t.Fatalf("soak: %v", err)
	}
}

package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSystemdUnits checks the shipped counter.socket and counter.service
// with systemd-analyze, as systemd would read them once installed: verify
// finds nothing to say, and the service's exposure score, which the test
// prints, stays at most 1.0 ("SAFE"). The binary named by ExecStart is the
// built one, since verify checks that it is there.
func TestSystemdUnits(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		skipOutsideCI(t, "systemd-analyze not installed (apt-get install systemd)")
	}
	bin := buildCounter(t)
	dir := t.TempDir()
	var units []string
	for _, name := range []string{"counter.socket", "counter.service"} {
		b, err := os.ReadFile(filepath.Join(kitDir, "systemd", name))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(b), "/usr/lib/cgi-bin/counter.cgi", bin)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		units = append(units, path)
	}
	out, err := exec.Command(analyze, append([]string{"verify"}, units...)...).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	// With the drop-in for a store in a cluster, as deploy/doc/cluster.md
	// installs it: still nothing to say.
	dropIn := filepath.Join(dir, "counter.service.d")
	if err := os.Mkdir(dropIn, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(kitDir, "systemd", "counter-cluster.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dropIn, "cluster.conf"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(analyze, append([]string{"verify"}, units...)...).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify with counter-cluster.conf: %v\n%s", err, out)
	}
	out, err = exec.Command(analyze, "security", "--offline=yes", units[1]).CombinedOutput()
	t.Logf("systemd-analyze security counter.service with counter-cluster.conf: %v\n%s", err,
		regexp.MustCompile(`Overall exposure level.*`).Find(out))
	if err := os.RemoveAll(dropIn); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(analyze, "security", "--offline=yes", units[1]).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for counter.service: ([0-9.]+) (\w+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	score, _ := strconv.ParseFloat(m[1], 64)
	t.Logf("systemd-analyze security counter.service: exposure %s %s", m[1], m[2])
	if score > 1.0 {
		t.Errorf("exposure %s %s, want at most 1.0:\n%s", m[1], m[2], out)
	}
}

package test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// armTargets are the ARM builds of deploy/build.sh, each run under Debian's
// qemu-user as the core of the oldest Pi it is meant for.
var armTargets = []struct {
	name          string // counter.cgi-linux-NAME, as build.sh names it
	goarch, goarm string
	qemu, cpu     string // the qemu-user binary and its -cpu
}{
	{"arm64", "arm64", "", "qemu-aarch64", "cortex-a53"}, // Pi 3 with a 64-bit OS; 4 and 5 run it too
	{"armv7", "arm", "7", "qemu-arm", "cortex-a7"},       // Pi 2, and 3 with a 32-bit OS
	{"armv6", "arm", "6", "qemu-arm", "arm1176"},         // Pi Zero and 1
}

// qemuUser finds a qemu-user binary, or skips the test; under CI=true a
// missing qemu is a failure, so that the ARM tests never pass by not running.
func qemuUser(t testing.TB, name string) string {
	t.Helper()
	for _, p := range []string{name, "/usr/bin/" + name} {
		if p, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	skipOutsideCI(t, name+" not installed (apt-get install qemu-user)")
	return ""
}

// goTool runs the go command in the module root for GOOS=linux and
// GOARCH/GOARM, with the flags deploy/build.sh builds with, so that both
// share the build cache.
func goTool(t testing.TB, goarch, goarm string, args ...string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go toolchain not found: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// No symbol table or DWARF: linking them is much of the time.
	args = append(args[:1:1], append([]string{"-trimpath", "-ldflags=-s -w"}, args[1:]...)...)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOARM="+goarm)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=%s GOARM=%s go %s: %v\n%s", goarch, goarm, strings.Join(args, " "), err, out)
	}
}

// TestARMSuites runs the tests of counter/ and store/, built for each ARM
// target, under qemu-user: the drawing (golden images and the hash of every
// glyph, which catches fused multiply-adds on arm64) and the bbolt file
// (locks, concurrent hits, a full file on 32-bit ARM).
func TestARMSuites(t *testing.T) {
	pkgs := []string{"counter", "store"}
	for _, a := range armTargets {
		t.Run(a.name, func(t *testing.T) {
			qemu := qemuUser(t, a.qemu)
			dir := t.TempDir()
			start := time.Now()
			goTool(t, a.goarch, a.goarm, "test", "-c", "-o", dir, "./counter", "./store")
			t.Logf("built the test binaries in %v", time.Since(start).Round(time.Second))
			for _, pkg := range pkgs {
				t.Run(pkg, func(t *testing.T) {
					runSuite(t, qemu, a.cpu, filepath.Join(dir, pkg+".test"), filepath.Join(repoRoot, pkg))
				})
			}
		})
	}
}

// runSuite runs a test binary under qemu from the package's folder, as go
// test does (the tests read ../testdata), and fails with its output unless
// every test passed.
func runSuite(t *testing.T, qemu, cpu, bin, pkgDir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	// The year of made-up pages measures a site's growth, which is the
	// same on every machine; under qemu it would take most of an hour.
	cmd := exec.CommandContext(ctx, qemu, "-cpu", cpu, bin, "-test.v", "-test.count=1", "-test.timeout=4m",
		"-test.skip=^TestSiteYearOfMadeUpPages$")
	cmd.Dir = pkgDir
	out, err := cmd.CombinedOutput()
	took := time.Since(start).Round(10 * time.Millisecond)
	var passed, failed int
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		switch {
		case strings.HasPrefix(sc.Text(), "--- PASS: "):
			passed++
		case strings.HasPrefix(sc.Text(), "--- FAIL: "):
			failed++
		}
	}
	if err != nil || failed > 0 || passed == 0 || !bytes.HasSuffix(out, []byte("PASS\n")) {
		t.Fatalf("%s -cpu %s %s: %v; %d passed, %d failed; output:\n%s", filepath.Base(qemu), cpu, filepath.Base(bin), err, passed, failed, failures(out))
	}
	t.Logf("%d tests passed in %v under %s -cpu %s", passed, took, filepath.Base(qemu), cpu)
}

// failures cuts a test binary's -test.v output down to what the tests that
// did not pass said: everything but the run and pass lines.
func failures(out []byte) string {
	var b strings.Builder
	for line := range strings.Lines(string(out)) {
		l := strings.TrimLeft(line, " ")
		if !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- PASS") {
			b.WriteString(line)
		}
	}
	return b.String()
}

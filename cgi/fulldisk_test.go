package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"hitcounter/cgi/testenv"
)

// hitResult is one hit of the built binary, run as a CGI.
type hitResult struct {
	status int
	stderr string
}

// hitWith runs one hit on counter demo with extra environment, through
// wrapper (a command line that ends by running the binary) if given. The
// answer must be a PNG whatever happened.
func hitWith(t *testing.T, db string, extra []string, wrapper ...string) hitResult {
	t.Helper()
	args := append(wrapper, counterBinary(t))
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(hitEnv(t, db), extra...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("exit: %v; stderr %q", err, stderr.String())
	}
	ans := parseCGI(t, out.Bytes())
	if ans.header.Get("Content-Type") != "image/png" || len(ans.body) == 0 {
		t.Fatalf("status %d, type %q, %d bytes: want a PNG", ans.status, ans.header.Get("Content-Type"), len(ans.body))
	}
	if n := strings.Count(stderr.String(), "\n"); n > 1 || (ans.status != 200) != (n == 1) {
		t.Fatalf("status %d with stderr %q: want one line exactly when the hit fails", ans.status, stderr.String())
	}
	return hitResult{ans.status, stderr.String()}
}

// checkSound fails unless the check command passes on db, and returns the
// hits it holds.
func checkSound(t *testing.T, db string) uint64 {
	t.Helper()
	out, code := adminStdin(t, db, "", "check")
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, out)
	}
	var hits uint64
	if i := strings.Index(out, " counter(s), "); i >= 0 {
		fmt.Sscanf(out[i+len(" counter(s), "):], "%d", &hits)
	}
	return hits
}

// TestHitOverFileSizeLimit runs hits that may not write past 8 kB
// (RLIMIT_FSIZE): a write past it fails with EFBIG instead of killing the
// process with SIGXFSZ, the hit is logged and answered with an image, the
// file stays sound, and hits count again without the limit.
func TestHitOverFileSizeLimit(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		testenv.Need(t, "prlimit (util-linux)")
	}
	db, _ := grownDB(t, t.TempDir())
	before := checkSound(t, db)
	for range 3 {
		r := hitWith(t, db, nil, prlimit, "--fsize=8192", "--")
		if r.status == 200 || !strings.Contains(r.stderr, "not counted") || !strings.Contains(r.stderr, "too large") {
			t.Errorf("over the limit: status %d, stderr %q; want a failed hit, logged", r.status, r.stderr)
		}
	}
	if got := checkSound(t, db); got != before {
		t.Errorf("after refused writes: %d hits, want %d", got, before)
	}
	if r := hitWith(t, db, nil); r.status != 200 {
		t.Errorf("without the limit: status %d, stderr %q", r.status, r.stderr)
	}
	if got := checkSound(t, db); got != before+1 {
		t.Errorf("after the limit: %d hits, want %d", got, before+1)
	}
}

// TestHitOnAFullFilesystem puts the database on a small tmpfs and fills it:
// hits that need a new page fail, logged, with an image; the file stays
// sound and holds exactly the hits that were answered 200; once space
// returns, hits count again. It needs root, for the mount.
func TestHitOnAFullFilesystem(t *testing.T) {
	dir := smallFilesystem(t, 256<<10)
	db := filepath.Join(dir, "counter.db")
	if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	// Some hits before the disk fills leave free pages to reuse.
	for range 20 {
		if r := hitWith(t, db, nil); r.status != 200 {
			t.Fatalf("before filling: status %d, stderr %q", r.status, r.stderr)
		}
	}
	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	counted, failed := 20, 0
	// Each hit comes from a new site, so the file must grow sooner or later.
	for i := 0; i < 150 && failed < 3; i++ {
		r := hitWith(t, db, []string{"HTTP_REFERER=http://site-" + strconv.Itoa(i) + "-with-a-long-name.example/page"})
		switch {
		case r.status == 200:
			counted++
		case strings.Contains(r.stderr, "no space left"):
			failed++
		default:
			t.Fatalf("status %d, stderr %q; want 200 or a hit refused for want of space", r.status, r.stderr)
		}
	}
	if failed == 0 {
		t.Fatalf("%d hits on a full file system all counted; none needed space", counted)
	}
	if got := checkSound(t, db); got != uint64(counted) {
		t.Errorf("full: %d hits in the file, %d answered 200", got, counted)
	}
	os.Remove(filler)
	if r := hitWith(t, db, nil); r.status != 200 {
		t.Errorf("after freeing space: status %d, stderr %q", r.status, r.stderr)
	}
	if got := checkSound(t, db); got != uint64(counted+1) {
		t.Errorf("after freeing space: %d hits, want %d", got, counted+1)
	}
	t.Logf("full file system: %d hits counted, %d refused, then counting again", counted, failed)
}

// smallFilesystem mounts a tmpfs of size bytes on a new folder, unmounted
// when the test ends. Without root it skips, except under CI=true.
func smallFilesystem(t *testing.T, size int) string {
	t.Helper()
	dir := worldDir(t)
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size)+",mode=0755", "tmpfs", dir).CombinedOutput()
	if err != nil {
		testenv.Need(t, fmt.Sprintf("a small file system (mount -t tmpfs needs root: %v %s)", err, out))
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// fill writes to path until the file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/cgi/testfiles"
)

// adminTimed runs an admin command, killed after limit, and returns its
// output, exit code, time and peak memory (the largest of it and the
// decoder it waited for, as GNU time sees them).
func adminTimed(t *testing.T, db string, limit time.Duration, args ...string) (out string, code int, took time.Duration, maxRSS int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, counterBinary(t), args...)
	cmd.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
	peak := underGNUTime(t, cmd)
	start := time.Now()
	b, err := cmd.CombinedOutput()
	took = time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("%s: still running after %s, killed", strings.Join(args, " "), limit)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return string(b), cmd.ProcessState.ExitCode(), took, peak()
}

// TestDigitSetAddDesyncedGIF: a 1.8 KB strip GIF whose Plain Text extension
// hides its 120 frames from a walk that reads it otherwise than image/gif
// (each frame composed on a 2000 x 200 screen: 383 MB and 6.8 s once) is
// refused for its frames, in the time and memory of a small set.
func TestDigitSetAddDesyncedGIF(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog")
	path := filepath.Join(t.TempDir(), "strip.gif")
	data := testfiles.DesyncedGIF(t, 2000, 200, 120)
	writeFile(t, path, data)
	out, code, took, rss := adminTimed(t, db, time.Minute, "theme", "add", "bad", path)
	t.Logf("%d bytes: exit %d in %s, peak RSS %.1f MB: %s", len(data), code, took.Round(time.Millisecond), float64(rss)/1e6, strings.TrimSpace(out))
	if code != 1 || !strings.Contains(out, "120 frames, too many: at most 64") {
		t.Errorf("exit %d, %q; want 1 and 120 frames, too many", code, out)
	}
	// A small set's decode takes some 20 MB and well under a second.
	if took > 3*time.Second || rss > 64<<20 {
		t.Errorf("took %s and %.1f MB; want under 3 s and 64 MB", took, float64(rss)/1e6)
	}
}

// TestDigitSetDecoderConfined: run by root, digitset add's decoder runs as
// nobody with no groups, no capabilities, no new privileges, and limits on
// its memory, CPU time and open files, as the decoder reads them from
// /proc/self/status and getrlimit (doctor starts it as digitset add does).
func TestDigitSetDecoderConfined(t *testing.T) {
	testenv.NeedRoot(t)
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog")
	out, _, _, _ := adminTimed(t, db, time.Minute, "doctor") // its other findings are the machine's
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "digit set decoder ") || strings.HasPrefix(l, "PROBLEM: digit set decoder") {
			line = l
		}
	}
	t.Log(line)
	fields := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			fields[k] = v
		}
	}
	for k, want := range map[string]string{
		"Uid":           "65534,65534,65534,65534",
		"Gid":           "65534,65534,65534,65534",
		"Groups":        "",
		"CapEff":        "0000000000000000",
		"CapPrm":        "0000000000000000",
		"CapAmb":        "0000000000000000",
		"NoNewPrivs":    "1",
		"RLIMIT_CPU":    "120,120",
		"RLIMIT_NOFILE": "8,8",
	} {
		if got, ok := fields[k]; !ok || got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	// The memory limit is taken from the runtime's size at start (1.2 GB
	// of address space on amd64, most never touched) plus 256 MiB.
	as, _, _ := strings.Cut(fields["RLIMIT_AS"], ",")
	if as == "" || len(as) > len("4294967296") || fields["RLIMIT_AS"] != as+","+as {
		t.Errorf("RLIMIT_AS: %q, want a finite limit, soft and hard alike", fields["RLIMIT_AS"])
	}
	if strings.HasPrefix(line, "PROBLEM") {
		t.Errorf("doctor: %s", line)
	}
}

// TestDigitSetAddNotAFile: a named pipe as PATH is refused at once, saying
// what it is, instead of waiting for a writer; so is one as a digit.
func TestDigitSetAddNotAFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog")
	fifo := filepath.Join(t.TempDir(), "strip.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := pngFolder(t)
	os.Remove(filepath.Join(dir, "3.png"))
	if err := syscall.Mkfifo(filepath.Join(dir, "3.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "strip.png: a named pipe, not a folder or a plain file"},
		{dir, "digit 3: 3.png: a named pipe, not a plain file"},
	} {
		out, code, took, _ := adminTimed(t, db, 10*time.Second, "theme", "add", "bad", tc.path)
		if code != 1 || !strings.Contains(out, tc.want) || took > 2*time.Second {
			t.Errorf("%s: exit %d in %s, %q; want 1 at once, saying %q", tc.path, code, took, out, tc.want)
		}
	}
}

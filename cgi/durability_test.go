package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/testenv"
)

// The README's first promise is that every hit is on disk before its
// answer is sent. A killed process cannot show it (the kernel keeps what
// it was given), so these tests watch the system calls of the built binary
// under strace: the database is synced after the hit's last write to it
// and before the first byte of the answer.

// syscallEvent is one traced call on a file descriptor.
type syscallEvent struct {
	call string // pwrite64, write, fdatasync, fsync, rename...
	file string // the path or socket strace -y names for the descriptor
	args string // the rest of the line
}

// straceCalls are the calls the tests look at.
const straceCalls = "trace=write,pwrite64,writev,fdatasync,fsync,rename,renameat,renameat2,execve"

// straceCommand returns cmd run under strace -f -y, logging to a file
// whose path it also returns. Without strace the test skips, or fails
// under CI=true.
func straceCommand(t *testing.T, name string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		testenv.Need(t, "strace (apt-get install strace)")
	}
	log := filepath.Join(t.TempDir(), "strace.log")
	return exec.Command(strace, append([]string{"-f", "-y", "-qq", "-s", "16", "-e", straceCalls, "-o", log, "--", name}, args...)...), log
}

var straceLine = regexp.MustCompile(`^\d+\s+(\w+)\((?:\d+<([^>]*)>)?(.*)$`)

// readStrace parses the log that straceCommand wrote.
func readStrace(t *testing.T, log string) []syscallEvent {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var evs []syscallEvent
	for line := range strings.Lines(string(b)) {
		if m := straceLine.FindStringSubmatch(strings.TrimSuffix(line, "\n")); m != nil {
			evs = append(evs, syscallEvent{m[1], m[2], m[3]})
		}
	}
	return evs
}

func isWrite(e syscallEvent) bool {
	return e.call == "write" || e.call == "pwrite64" || e.call == "writev"
}

func isSync(e syscallEvent) bool { return e.call == "fdatasync" || e.call == "fsync" }

// checkSyncedBeforeAnswer fails unless, before the first event that
// answer picks, there is a write to db and a sync of db after the last
// such write.
func checkSyncedBeforeAnswer(t *testing.T, evs []syscallEvent, db string, answer func(syscallEvent) bool) {
	t.Helper()
	lastWrite, synced := -1, false
	for i, e := range evs {
		switch {
		case answer(e):
			if lastWrite < 0 {
				t.Fatalf("answer written (call %d: %s %s) before any write to %s", i, e.call, e.file, db)
			}
			if !synced {
				t.Fatalf("answer written (call %d) with no fdatasync or fsync of %s after its last write (call %d)\n%s", i, db, lastWrite, dumpEvents(evs[:i+1]))
			}
			return
		case e.file == db && isWrite(e):
			lastWrite, synced = i, false
		case e.file == db && isSync(e):
			synced = true
		}
	}
	t.Fatalf("no answer written in %d traced calls", len(evs))
}

func dumpEvents(evs []syscallEvent) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "  %s(%s) %.60s\n", e.call, e.file, e.args)
	}
	return b.String()
}

// TestCGIHitSyncedBeforeAnswer runs one CGI hit of each built binary that
// serves one, the full tool and the hit binary installed as counter.cgi,
// under strace: counter.db is synced after the hit's write and before the
// answer goes to stdout.
func TestCGIHitSyncedBeforeAnswer(t *testing.T) {
	for _, b := range []struct{ name, bin string }{{"full tool", counterBinary(t)}, {"hit binary", hitBinary(t)}} {
		t.Run(b.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "counter.db")
			if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
				t.Fatalf("create: %v %s", err, out)
			}
			cmd, log := straceCommand(t, b.bin)
			cmd.Env = hitEnv(t, db)
			out, err := cmd.Output()
			if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
				t.Fatalf("hit under strace: %v %.60q", err, out)
			}
			evs := readStrace(t, log)
			checkSyncedBeforeAnswer(t, evs, db, func(e syscallEvent) bool {
				return isWrite(e) && strings.HasPrefix(e.args, `, "Status:`)
			})
			if n := countIn(t, db); n != 1 {
				t.Errorf("count %d, want 1", n)
			}
			// The binary strace starts, and no other: the hit binary
			// served the hit itself.
			execs := 0
			for _, e := range evs {
				if e.call == "execve" {
					execs++
				}
			}
			if execs != 1 {
				t.Errorf("%d execve, want 1 (%s)", execs, dumpEvents(evs))
			}
		})
	}
}

// TestFastCGIHitSyncedBeforeAnswer does the same for a FastCGI process
// started as a web server starts it: the batch's commit is synced before
// the first stdout record of the hit's answer goes out.
func TestFastCGIHitSyncedBeforeAnswer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	cmd, log := straceCommand(t, counterBinary(t))
	sock, _, _ := startFastCGICommand(t, db, cmd)
	c := fcgitest.MustDial(t, sock)
	out, _, err := c.Request(1, false, fcgitest.Env("GET", "/demo.png", ""), nil, 0)
	if err != nil || !bytes.HasPrefix(out, []byte("Status: 200")) {
		t.Fatalf("hit under strace: %v %.60q", err, out)
	}
	c.Conn.Close()
	// Stop the process itself (strace's child) as the web server would;
	// strace then ends, its log whole.
	kids := testenv.Children(cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("strace's children: %v, want the traced process alone", kids)
	}
	syscall.Kill(kids[0], syscall.SIGTERM)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the FastCGI process did not stop within 10s of SIGTERM")
	}
	checkSyncedBeforeAnswer(t, readStrace(t, log), db, func(e syscallEvent) bool {
		// the header of a stdout record: version 1, type 6
		return isWrite(e) && strings.HasPrefix(e.file, "socket:") && strings.HasPrefix(e.args, `, "\1\6`)
	})
	if n := countIn(t, db); n != 1 {
		t.Errorf("count %d, want 1", n)
	}
}

// TestBackupSyncedBeforeRename runs "counter.cgi backup" under strace:
// the temporary copy is synced after its last write and before it is
// renamed over the backup.
func TestBackupSyncedBeforeRename(t *testing.T) {
	dir := t.TempDir()
	db, _ := grownDB(t, dir)
	dst := filepath.Join(dir, "backup.db")
	cmd, log := straceCommand(t, counterBinary(t), "backup", dst)
	cmd.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("backup under strace: %v %s", err, out)
	}
	evs := readStrace(t, log)
	var tmp string
	for _, e := range evs {
		if isWrite(e) && strings.Contains(filepath.Base(e.file), ".backup.db.tmp-") {
			tmp = e.file
		}
	}
	if tmp == "" {
		t.Fatalf("no write to a temporary file beside %s:\n%s", dst, dumpEvents(evs))
	}
	checkSyncedBeforeAnswer(t, evs, tmp, func(e syscallEvent) bool {
		return strings.HasPrefix(e.call, "rename") && strings.Contains(e.args, `"`+tmp+`"`)
	})
	if _, err := os.Stat(dst); err != nil {
		t.Errorf("no backup: %v", err)
	}
}

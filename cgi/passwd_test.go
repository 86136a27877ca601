package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/sys/unix"

	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/store"
)

// adminStdin runs an admin command of the built binary with stdin.
func adminStdin(t *testing.T, db, stdin string, args ...string) (string, int) {
	t.Helper()
	return adminStdinEnv(t, []string{"COUNTER_DB=" + db}, stdin, args...)
}

// adminStdinEnv runs an admin command with an environment and stdin, and
// returns its output and exit code.
func adminStdinEnv(t *testing.T, env []string, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(counterBinary(t), args...)
	cmd.Env = testenv.OwnRunDir(t, env)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func setHashIn(t *testing.T, db, name string, hash []byte) {
	t.Helper()
	d, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.SetPasswordHash(name, hash); err != nil {
		t.Fatal(err)
	}
}

func hashIn(t *testing.T, db, name string) []byte {
	t.Helper()
	d, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	info, err := d.Counter(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.PasswordHash
}

// TestPasswdCommand drives passwd as an owner would, through the built
// binary: the hash it stores is cost 10 whatever the library's default.
func TestPasswdCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	adminRun(t, db, "create", "blog")
	php12 := "$2y$12$" + strings.Repeat("a", 53)
	cost13 := "$2y$13$abcdefghijklmnopqrstuu5Lv3Gcz/yN6QGw8iQk1Gq1YCTl0bTWa"
	steps := []struct {
		name     string
		stdin    string
		args     []string
		exit     int
		contains string
		check    func(t *testing.T, hash []byte)
	}{
		{"set from stdin", "s3cret words\n", []string{"passwd", "blog"}, 0, "protected now", func(t *testing.T, h []byte) {
			if cost, err := bcrypt.Cost(h); err != nil || cost != counter.PasswordCost {
				t.Errorf("stored cost %d (%v), want %d", cost, err, counter.PasswordCost)
			}
			if bcrypt.CompareHashAndPassword(h, []byte("s3cret words")) != nil {
				t.Errorf("stored hash does not match the password typed")
			}
		}},
		{"empty refused", "\n", []string{"passwd", "blog"}, 1, "empty", nil},
		{"73 bytes refused", strings.Repeat("x", 73) + "\n", []string{"passwd", "blog"}, 1, "longer than 72", nil},
		{"hash import", php12 + "\n", []string{"passwd", "-hash", "blog"}, 0, "cost 12", func(t *testing.T, h []byte) {
			if string(h) != php12 {
				t.Errorf("stored %q, want the imported hash as-is", h)
			}
		}},
		{"cost 13 refused", cost13 + "\n", []string{"passwd", "-hash", "blog"}, 1, "above 12", nil},
		{"not a hash", "hunter2\n", []string{"passwd", "-hash", "blog"}, 1, "not a bcrypt hash", nil},
		{"list shows the cost", "", []string{"list"}, 0, "bcrypt cost 12 (becomes 10 at the next login)", nil},
		{"clear", "", []string{"passwd", "-clear", "blog"}, 0, "public now", func(t *testing.T, h []byte) {
			if h != nil {
				t.Errorf("hash %q still stored", h)
			}
		}},
		{"unknown counter", "x\n", []string{"passwd", "nope"}, 1, "no such counter", nil},
		{"both flags", "", []string{"passwd", "-clear", "-hash", "blog"}, 2, "do not go together", nil},
	}
	for _, st := range steps {
		before := hashIn(t, db, "blog")
		out, code := adminStdin(t, db, st.stdin, st.args...)
		if code != st.exit || !strings.Contains(out, st.contains) {
			t.Fatalf("%s: exit %d, output %q; want exit %d containing %q", st.name, code, out, st.exit, st.contains)
		}
		if strings.Contains(out, "s3cret") {
			t.Errorf("%s: the password was printed", st.name)
		}
		after := hashIn(t, db, "blog")
		if st.check != nil {
			st.check(t, after)
		} else if st.exit != 0 && !bytes.Equal(before, after) {
			t.Errorf("%s failed but changed the stored hash", st.name)
		}
	}
}

// TestPasswdAtATerminal types the password twice at a real pseudo-terminal
// and checks that it is never echoed.
func TestPasswdAtATerminal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	adminRun(t, db, "create", "blog")
	for _, tc := range []struct {
		second string
		exit   int
	}{{"typed twice", 0}, {"typed otherwise", 1}} {
		master, slave := openPTY(t)
		cmd := exec.Command(counterBinary(t), "passwd", "blog")
		cmd.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var screen bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&screen, master); close(done) }()
		waitFor(t, &screen, "New password")
		waitNoEcho(t, slave)
		master.Write([]byte("typed twice\r"))
		waitFor(t, &screen, "Again")
		waitNoEcho(t, slave)
		master.Write([]byte(tc.second + "\r"))
		err := cmd.Wait()
		slave.Close()
		master.Close()
		<-done
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != tc.exit {
			t.Errorf("second entry %q: exit %d, want %d; screen %q", tc.second, code, tc.exit, screen.String())
		}
		if strings.Contains(screen.String(), "typed") {
			t.Errorf("the password was echoed: %q", screen.String())
		}
	}
	if bcrypt.CompareHashAndPassword(hashIn(t, db, "blog"), []byte("typed twice")) != nil {
		t.Errorf("the password typed twice is not the one stored")
	}
}

func waitFor(t *testing.T, screen *bytes.Buffer, text string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(screen.String(), text) {
			return
		}
	}
	t.Fatalf("no %q on the screen: %q", text, screen.String())
}

// waitNoEcho waits until the terminal stops echoing: the prompt is on the
// screen a moment before ReadPassword turns echo off, and a person typing
// as fast as this test would see the password.
func waitNoEcho(t *testing.T, tty *os.File) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			return
		}
	}
	t.Fatal("the terminal still echoes")
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		testenv.Need(t, fmt.Sprintf("pseudo-terminals (%v)", err))
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

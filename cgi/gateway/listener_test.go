package gateway

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"hitcounter/cgi/testenv"
)

func TestListenRefuses(t *testing.T) {
	notSocket := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notSocket, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, spec string }{
		{"no kind", "/run/counter/fcgi.sock"},
		{"empty path", "unix:"},
		{"not loopback", "tcp:0.0.0.0:9000"},
		{"a name, not an address", "tcp:localhost:9000"},
		{"a file in the way", "unix:" + notSocket},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if ln, err := Listen(tc.spec); err == nil {
				ln.Close()
				t.Errorf("Listen(%q): got a listener, want an error", tc.spec)
			}
		})
	}
}

func TestListenUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fcgi.sock")
	ln, err := Listen("unix:" + path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o660 {
		t.Errorf("socket mode: got %o, want 660", got)
	}
	if ln2, err := Listen("unix:" + path); err == nil {
		ln2.Close()
		t.Errorf("second Listen on a live socket: got a listener, want an error")
	}
	// A crash leaves the file behind; the next start replaces it.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	ln, err = Listen("unix:" + path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	ln.Close()
}

func TestSystemdListener(t *testing.T) {
	pid := os.Getpid()
	for _, tc := range []struct {
		name    string
		env     map[string]string
		wantErr bool
	}{
		{"none", nil, false},
		{"for another process", map[string]string{"LISTEN_PID": "1", "LISTEN_FDS": "1"}, false},
		{"two sockets", map[string]string{"LISTEN_PID": strconv.Itoa(pid), "LISTEN_FDS": "2"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := SystemdListener(func(k string) string { return tc.env[k] }, pid)
			if ln != nil {
				ln.Close()
				t.Errorf("got a listener, want none")
			}
			if (err != nil) != tc.wantErr {
				t.Errorf("got error %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

// TestListenUnixAsRoot: a socket that root makes in the web server's
// directory is born the directory owner's, 0660, with nothing changed by
// name after; and the ids it was made with stay on the thread that made
// it: a file that root makes afterwards is root's.
func TestListenUnixAsRoot(t *testing.T) {
	testenv.NeedRoot(t)
	dir := testenv.OwnedDir(t, testenv.UIDWWWData, 0o750)
	// t.TempDir's folders are root's alone: www-data, whom the socket is
	// for, must reach it, as it reaches /run/counter.
	for _, d := range []string{filepath.Dir(filepath.Dir(dir)), filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "fastcgi.sock")
	ln, err := Listen("unix:" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != testenv.UIDWWWData || st.Gid != testenv.UIDWWWData || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o660 {
		t.Errorf("socket: uid %d gid %d mode %v, want www-data's, a socket, 0660", st.Uid, st.Gid, fi.Mode())
	}
	for range 20 { // on whatever threads the runtime picks
		f, err := os.CreateTemp(t.TempDir(), "after")
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		f.Close()
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 || st.Gid != 0 {
			t.Fatalf("a file made after the socket is uid %d gid %d, want root's", st.Uid, st.Gid)
		}
	}
}

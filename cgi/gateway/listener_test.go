package gateway

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
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

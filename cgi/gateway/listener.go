package gateway

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// FastCGIListener returns stdin as a listener when it is a listening
// socket: that is how lighttpd's mod_fastcgi (with bin-path) and Apache's
// mod_fcgid start a FastCGI process, and how systemd does with
// StandardInput=socket. It returns nil otherwise.
func FastCGIListener(stdin io.Reader) net.Listener {
	f, ok := stdin.(*os.File)
	if !ok {
		return nil
	}
	return listenerOf(f)
}

// listenFDsStart is the first file descriptor that systemd passes
// (SD_LISTEN_FDS_START).
const listenFDsStart = 3

// SystemdListener returns the listening socket that systemd's socket
// activation passed to process pid: LISTEN_PID names pid, LISTEN_FDS is 1,
// and the socket is file descriptor 3. Like sd_listen_fds, it returns nil
// when LISTEN_PID is absent or names another process (the variables were
// meant for a parent); it fails when they are meant for this process but
// do not describe one listening socket.
func SystemdListener(getenv func(string) string, pid int) (net.Listener, error) {
	if getenv("LISTEN_PID") != strconv.Itoa(pid) {
		return nil, nil
	}
	if n := getenv("LISTEN_FDS"); n != "1" {
		return nil, fmt.Errorf("gateway: LISTEN_FDS=%q: want exactly one socket (one ListenStream= in the socket unit)", n)
	}
	f := os.NewFile(listenFDsStart, "LISTEN_FDS_3")
	if f == nil {
		return nil, errors.New("gateway: LISTEN_FDS=1 but file descriptor 3 is not open")
	}
	ln := listenerOf(f)
	f.Close() // net.FileListener holds a duplicate; the original is not closed on exec
	if ln == nil {
		return nil, errors.New("gateway: LISTEN_FDS=1 but file descriptor 3 is not a listening socket")
	}
	return ln, nil
}

// listenerOf returns f as a listener when it is a listening socket, else
// nil.
func listenerOf(f *os.File) net.Listener {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	listening := false
	rc.Control(func(fd uintptr) {
		v, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN)
		listening = err == nil && v == 1
	})
	if !listening {
		return nil
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return nil
	}
	return ln
}

// Listen opens the FastCGI socket that spec names, for machines without
// systemd: "unix:PATH", a Unix socket that only its owner and group may
// connect to (0660, and under root its directory's owner's; a stale
// socket file left by a crash is replaced, a live one is refused), or "tcp:ADDR:PORT" on a loopback address only,
// since FastCGI has no authentication of its own.
func Listen(spec string) (net.Listener, error) {
	kind, addr, _ := strings.Cut(spec, ":")
	switch {
	case kind == "unix" && addr != "":
		return listenUnix(addr)
	case kind == "tcp":
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return nil, fmt.Errorf("gateway: listen %s: want tcp:127.0.0.1:PORT: %w", spec, err)
		}
		if !ap.Addr().IsLoopback() {
			return nil, fmt.Errorf("gateway: listen %s: FastCGI trusts whoever connects, so only a loopback address", spec)
		}
		ln, err := net.Listen("tcp", ap.String())
		if err != nil {
			return nil, fmt.Errorf("gateway: %w", err)
		}
		return ln, nil
	}
	return nil, fmt.Errorf("gateway: listen %q: want unix:PATH or tcp:127.0.0.1:PORT", spec)
}

func listenUnix(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != os.ModeSocket {
			return nil, fmt.Errorf("gateway: listen unix:%s: a file that is not a socket is in the way", path)
		}
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("gateway: listen unix:%s: another process answers on it", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("gateway: remove stale socket: %w", err)
		}
	}
	// The socket is made 0660 by the umask, and under root with its
	// owner's ids, never by a chmod or chown after: they go by name, and
	// whoever may write in the directory could have put another file
	// there by then (a hard link to one of root's, where
	// fs.protected_hardlinks is off).
	uid, gid, handOver := socketOwner(path)
	old := syscall.Umask(0o117)
	var ln net.Listener
	var err error
	if handOver {
		ln, err = listenAs(path, uid, gid)
	} else {
		ln, err = net.Listen("unix", path)
	}
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	return ln, nil
}

// socketOwner says whom a socket that root makes at path is for: the
// owner of its directory (the web server's user, or the group its server
// runs in), so that the server may connect: a root-owned 0660 socket lets
// only root in. handOver is false when the process is not root, or the
// directory is root's.
func socketOwner(path string) (uid, gid int, handOver bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return 0, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 && st.Gid == 0 {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// listenAs makes the socket at path on a thread whose file system ids are
// uid and gid, so that the socket is born theirs. The ids are the
// thread's own (setfsuid); the thread is never unlocked, so it ends with
// its goroutine and no other goroutine ever runs with them.
func listenAs(path string, uid, gid int) (net.Listener, error) {
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		// setfsuid and setfsgid report no failure: root may set any.
		unix.Setfsgid(gid)
		unix.Setfsuid(uid)
		ln, err := net.Listen("unix", path)
		done <- result{ln, err}
	}()
	r := <-done
	if r.err != nil {
		// EACCES: uid may not reach the directory, nor then would the
		// web server that runs as uid.
		return nil, fmt.Errorf("make the socket as uid %d, its directory's owner: %w", uid, r.err)
	}
	return r.ln, nil
}

package gateway

import (
	"io"
	"net"
	"os"
	"syscall"
)

// FastCGIListener returns stdin as a listener when it is a listening
// socket: that is how lighttpd's mod_fastcgi (with bin-path) and Apache's
// mod_fcgid start a FastCGI process. It returns nil otherwise.
func FastCGIListener(stdin io.Reader) net.Listener {
	f, ok := stdin.(*os.File)
	if !ok {
		return nil
	}
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

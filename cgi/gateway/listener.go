package main

import (
	"context"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
)

// fastCGIListener returns stdin as a listener when it is a listening
// socket: that is how lighttpd's mod_fastcgi (with bin-path) and Apache's
// mod_fcgid start a FastCGI process. It returns nil otherwise.
func fastCGIListener(stdin io.Reader) net.Listener {
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

// runFastCGI serves FastCGI on ln until the web server sends SIGTERM (or
// SIGINT), then answers the requests in hand, commits their hits and
// returns.
func runFastCGI(cfg config, log *logger, ln net.Listener) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := newApp(cfg, log)
	defer a.longLived()()
	return serveFastCGI(ctx, ln, a.handler(), log)
}

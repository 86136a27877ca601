package main

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"hitcounter/cgi/admin"
	"hitcounter/cgi/gateway"
	"hitcounter/cgi/internal/buildinfo"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/web"
	"hitcounter/store"
)

// run is the whole program. Under CGI (GATEWAY_INTERFACE set) it serves one
// request and ignores its arguments: Apache passes a query without '=' as
// arguments, and a visitor must never reach an admin command that way.
// Started with no arguments on a listening socket, it serves FastCGI.
// Anything else is an admin command.
func run(args, environ []string, stdin io.Reader, stdout, stderr io.Writer) error {
	getenv := config.Lookup(environ)
	log := logline.New(stderr)
	cfg, errs := config.FromEnv(getenv)
	for _, err := range errs {
		log.Printf("config: %v", err)
	}
	cgi := getenv("GATEWAY_INTERFACE") != ""
	named := args
	if cgi {
		named = nil // a visitor's, ignored below
	}
	if err := toCluster(cfg.DB, named, args, environ); err != nil {
		return err
	}
	remote, visitors, disconnect, keep := cluster(getenv)
	defer disconnect()
	cfg.Remote, cfg.SharedVisitors = remote, visitors
	if cgi {
		a := web.New(cfg, log, web.OneRequest)
		return gateway.ServeCGI(a.Handler(), environ, stdin, stdout, gateway.Options{Log: log, Refuse: a.Refuse})
	}
	if len(args) < 2 {
		ln, err := inheritedListener(getenv, stdin)
		if err != nil {
			return err
		}
		if ln != nil {
			return runFastCGI(cfg, log, ln, false, keep)
		}
	}
	return admin.Run(cfg, getenv, args[1:], admin.Env{
		Stdin: stdin, Stdout: stdout, Stderr: stderr, Log: log,
		Serve: func(ctx context.Context, cfg config.Config, ln net.Listener) error {
			mode := web.Local
			if cfg.DB == admin.DemoDB {
				mode = web.Demo
			}
			a := web.New(cfg, log, mode)
			defer a.Close()
			return gateway.ServeHTTP(ctx, ln, a.Handler(), gateway.Options{Log: log, Refuse: a.Refuse})
		},
		FastCGI: func(cfg config.Config, f admin.FastCGIFlags) error {
			ln, err := inheritedListener(getenv, stdin)
			if f.Listen != "" {
				ln, err = gateway.Listen(f.Listen)
			}
			if err != nil {
				return err
			}
			if ln == nil {
				return errors.New("fastcgi: no socket: give -listen unix:PATH, or start it from a systemd socket unit or on a listening socket as stdin")
			}
			return runFastCGI(cfg, log, ln, f.OnlyWebServerConnects, keep)
		},
	})
}

// inheritedListener returns the listening socket that whoever started
// this process handed it: systemd's socket activation (LISTEN_FDS), or a
// socket as stdin (lighttpd's bin-path, mod_fcgid, systemd's
// StandardInput=socket); nil if none.
func inheritedListener(getenv func(string) string, stdin io.Reader) (net.Listener, error) {
	ln, err := gateway.SystemdListener(getenv, os.Getpid())
	if ln != nil || err != nil {
		return ln, err
	}
	return gateway.FastCGIListener(stdin), nil
}

// fastcgiMemoryLimit is the FastCGI service's soft limit on the Go heap.
const fastcgiMemoryLimit = 64 << 20

// runFastCGI serves FastCGI on ln until the web server sends SIGTERM (or
// SIGINT), then answers the requests in hand, commits their hits and
// returns. onlyWebServer is -only-web-server-connects. On a cluster's
// store it keeps the cluster's history compacted (keep) while it runs.
func runFastCGI(cfg config.Config, log *logline.Logger, ln net.Listener, onlyWebServer bool, keep func(context.Context, func(string, ...any))) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if store.IsRemote(cfg.DB) {
		go keep(ctx, log.Printf)
	}
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		// Unless GOMEMLIMIT says otherwise, the garbage of big answers
		// is collected before the heap doubles past half the systemd
		// unit's MemoryMax, rather than once it has.
		debug.SetMemoryLimit(fastcgiMemoryLimit)
	}
	a := web.New(cfg, log, web.LongLived)
	defer a.Close()
	// One line at start, for the owner's log: which build now answers,
	// and over TCP, whom logins count against.
	log.Printf("fastcgi: %s, serving%s", buildinfo.Read(), tcpNote(ln, onlyWebServer))
	return gateway.ServeFastCGI(ctx, ln, a.Handler(), gateway.Options{Log: log, Refuse: a.Refuse, OnlyWebServerConnects: onlyWebServer})
}

// tcpNote says, for the start line, what a TCP socket means for logins.
func tcpNote(ln net.Listener, onlyWebServer bool) string {
	if ln.Addr().Network() != "tcp" {
		return ""
	}
	if onlyWebServer {
		return " on tcp " + ln.Addr().String() + ": logins are limited per REMOTE_ADDR, as -only-web-server-connects says nothing but the web server can reach it"
	}
	return " on tcp " + ln.Addr().String() + ": any local user may connect and claim any REMOTE_ADDR, so all logins count as one client; a unix: socket is the better choice"
}

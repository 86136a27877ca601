package main

import (
	"context"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"hitcounter/cgi/admin"
	"hitcounter/cgi/gateway"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
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
	if getenv("GATEWAY_INTERFACE") != "" {
		a := newApp(cfg, log)
		return gateway.ServeCGI(a.handler(), environ, stdin, stdout, gateway.Options{Log: log, Refuse: a.refuse})
	}
	if len(args) < 2 {
		if ln := gateway.FastCGIListener(stdin); ln != nil {
			return runFastCGI(cfg, log, ln)
		}
	}
	return admin.Run(cfg, getenv, args[1:], admin.Env{
		Stdin: stdin, Stdout: stdout, Stderr: stderr, Log: log,
		Serve: func(ctx context.Context, cfg config.Config, ln net.Listener) error {
			a := newApp(cfg, log)
			a.demo = true
			defer a.longLived()()
			return gateway.ServeHTTP(ctx, ln, a.handler(), gateway.Options{Log: log, Refuse: a.refuse})
		},
	})
}

// runFastCGI serves FastCGI on ln until the web server sends SIGTERM (or
// SIGINT), then answers the requests in hand, commits their hits and
// returns.
func runFastCGI(cfg config.Config, log *logline.Logger, ln net.Listener) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := newApp(cfg, log)
	defer a.longLived()()
	return gateway.ServeFastCGI(ctx, ln, a.handler(), gateway.Options{Log: log, Refuse: a.refuse})
}

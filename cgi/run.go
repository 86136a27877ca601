package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"hitcounter/cgi/gateway"
	"hitcounter/cgi/internal/logline"
)

// usageError is a mistake on the command line: main exits 2 for it.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// run is the whole program. Under CGI (GATEWAY_INTERFACE set) it serves one
// request and ignores its arguments: Apache passes a query without '=' as
// arguments, and a visitor must never reach an admin command that way.
// Started with no arguments on a listening socket, it serves FastCGI.
func run(args, environ []string, stdin io.Reader, stdout, stderr io.Writer) error {
	getenv := envLookup(environ)
	log := logline.New(stderr)
	cfg, errs := configFromEnv(getenv)
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
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	cmd, rest := args[1], args[2:]
	c, ok := lookupCommand(cmd)
	if !ok {
		fmt.Fprint(stderr, usage)
		return usagef("unknown command %q", cmd)
	}
	if cmd == "serve" {
		// Never the live database by accident: only -db picks another.
		cfg.DB = demoDB
		if getenv("COUNTER_RUN_DIR") == "" {
			cfg.RunDir = filepath.Join(os.TempDir(), "counter-run-"+strconv.Itoa(os.Getuid()))
		}
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DB, "db", cfg.DB, "database `file` (default from COUNTER_DB)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: counter.cgi %s %s\n", cmd, c.args)
		fs.PrintDefaults()
	}
	env := &cmdEnv{cfg: &cfg, stdin: stdin, stdout: stdout, stderr: stderr, log: log}
	c.flags(fs, env)
	pos, err := parseInterspersed(fs, rest)
	if err != nil {
		return err
	}
	if len(pos) < c.minArgs || len(pos) > c.maxArgs {
		fs.Usage()
		return usagef("%s: wrong number of arguments", cmd)
	}
	return c.run(env, pos)
}

// runFastCGI serves FastCGI on ln until the web server sends SIGTERM (or
// SIGINT), then answers the requests in hand, commits their hits and
// returns.
func runFastCGI(cfg config, log *logline.Logger, ln net.Listener) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := newApp(cfg, log)
	defer a.longLived()()
	return gateway.ServeFastCGI(ctx, ln, a.handler(), gateway.Options{Log: log, Refuse: a.refuse})
}

// parseInterspersed parses flags wherever they stand, so that both
// "create -start 5 NAME" and "create NAME -start 5" work.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

const usage = `counter.cgi: a hit counter for static web sites.

Run by a web server as CGI, it counts a hit and answers with an image.
From a shell it manages the counters:

  counter.cgi create NAME [-start N]   make a counter (visitors never can)
  counter.cgi list                     show every counter, its count and age
  counter.cgi set NAME N               set a counter's total
  counter.cgi delete NAME              remove a counter and its history
  counter.cgi passwd NAME              protect its statistics with a password
                                       (asked twice, or read from stdin)
  counter.cgi passwd -clear NAME       make its statistics public again
  counter.cgi passwd -hash NAME        store a bcrypt hash read from stdin
  counter.cgi doctor [-max 250ms]      time a password check here, check the
                                       database and the runtime directory
  counter.cgi check [FILE]             check the database (or FILE) for
                                       damage, changing nothing
  counter.cgi backup FILE              write a checked copy of the database
                                       to FILE, while hits go on
  counter.cgi serve [-addr HOST:PORT]  try it out on a local web server
  counter.cgi help                     show this text

Every command takes -db FILE; the default is $COUNTER_DB, else
/var/lib/counter/counter.db. serve ignores $COUNTER_DB and uses
./counter-demo.db unless given -db.
`

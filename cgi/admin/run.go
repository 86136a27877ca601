package admin

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"

	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
)

// Env is what the commands run with.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Log            *logline.Logger
	// Serve serves the counter with its demo page over plain HTTP on ln
	// until ctx ends, for the serve command. The web handlers are not
	// this package's to know.
	Serve func(ctx context.Context, cfg config.Config, ln net.Listener) error
	// FastCGI serves the counter as FastCGI as the fastcgi command's
	// flags say, until SIGTERM.
	FastCGI func(cfg config.Config, f FastCGIFlags) error
}

// FastCGIFlags are the fastcgi command's flags.
type FastCGIFlags struct {
	// Listen names the socket to serve on, "unix:PATH" or
	// "tcp:127.0.0.1:PORT"; empty, the one this process was handed.
	Listen string
	// OnlyWebServerConnects is the owner's word that nobody but the web
	// server can reach a TCP socket, so that the REMOTE_ADDR it sends is
	// believed for logins; without it, every login over TCP counts as one
	// client. It changes nothing on a Unix socket.
	OnlyWebServerConnects bool
}

// UsageError is a mistake on the command line: the program exits 2 for
// it.
type UsageError struct{ err error }

func (u UsageError) Error() string { return u.err.Error() }
func (u UsageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// Run runs the command that args name (the program's arguments after its
// own name), with cfg as the environment set it and the flags change it.
func Run(cfg config.Config, getenv func(string) string, args []string, env Env) error {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, Usage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	c, ok := lookupCommand(cmd)
	if !ok {
		fmt.Fprint(env.Stderr, Usage)
		return usagef("unknown command %q", cmd)
	}
	privateRunDir := false
	if cmd == "serve" {
		// Never the live database by accident: only -db picks another.
		cfg.DB = DemoDB
		privateRunDir = getenv("COUNTER_RUN_DIR") == ""
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.StringVar(&cfg.DB, "db", cfg.DB, "database `file` (default from COUNTER_DB)")
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: counter %s %s\n", cmd, c.args)
		fs.PrintDefaults()
	}
	e := &cmdEnv{cfg: &cfg, getenv: getenv, stdin: env.Stdin, stdout: env.Stdout, stderr: env.Stderr, log: env.Log, serve: env.Serve, fastCGI: env.FastCGI,
		privateRunDir: privateRunDir}
	c.flags(fs, e)
	pos, err := parseInterspersed(fs, rest)
	if err != nil {
		return err
	}
	if len(pos) < c.minArgs || c.maxArgs != manyArgs && len(pos) > c.maxArgs {
		fs.Usage()
		return usagef("%s: wrong number of arguments", cmd)
	}
	return c.run(e, pos)
}

// parseInterspersed parses flags wherever they stand, so that both
// "create -start 5 NAME" and "create NAME -start 5" work.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, UsageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// Usage is the text that help, and a mistake on the command line, print.
const Usage = `counter (counter.cgi): a hit counter for static web sites.

Run by a web server as CGI, it counts a hit and answers with an image.
From a shell it manages the counters:

  counter create NAME [START] [KEY=VALUE ...]
                                   make a counter (visitors never can),
                                   from START (or -start N, default 0),
                                   with settings
  counter create NAME -site -hosts HOST,... [KEY=VALUE ...]
                                   make a site: one tag in the template
                                   counts each page on those hosts
  counter pages [-days N] NAME     list a site's pages, most viewed first
  counter merge NAME FROM INTO     fold a site's page FROM (a moved page)
                                   into INTO, day by day
  counter titles [-replace] NAME FILE
                                   store the titles of a site's pages
                                   from FILE, its RSS or Atom feed (- for
                                   stdin), for the lists of popular pages
  counter config NAME              show a counter's settings, one
                                   KEY=VALUE a line
  counter config NAME KEY=VALUE ...
                                   change them, all or none, and show them
  counter digitset add [-replace] NAME PATH
                                   add a digit set NAME, which tags show
                                   with ?theme=NAME: PATH is a folder of
                                   0.png..9.png or 0.gif..9.gif, or one
                                   strip image of ten digits (PNG, GIF)
  counter digitset list            every name theme= takes besides light,
                                   dark and auto, a line each: the
                                   built-in looks, then the digit sets
  counter digitset show NAME       a digit set's digits, sizes and frames
  counter digitset remove NAME     remove a digit set no counter shows
  counter theme add|list|show|remove ...
                                   the same command, by its first name
  counter list                     show every counter, its count, age,
                                   what it shows and its visitors
  counter set NAME N               set a counter's total
  counter import [-dry-run] [-replace] [-name NAME] FILE
                                   bring a history in from FILE (- for
                                   stdin): this counter's stats.json or
                                   stats.csv, GoatCounter's CSV export,
                                   NAME COUNT lines, or a file holding
                                   one number (with -name); all or
                                   nothing, never lowering a day
  counter import -log FILE [-log FILE ...] [-path PATH] NAME
                                   make days of history from access logs
                                   (combined format, gzip'd or not): the
                                   requests for PATH, with bots and
                                   reloads left out
  counter delete NAME              remove a counter and its history
  counter passwd NAME              protect its statistics with a password
                                   (asked twice, or read from stdin)
  counter passwd -clear NAME       make its statistics public again
  counter passwd -hash NAME        store a bcrypt hash read from stdin
  counter passwd -owner [-clear | -hash]
                                   the owner's password, whose login (at
                                   /cgi-bin/counter.cgi/login) opens every
                                   counter's statistics; -clear removes it
  counter doctor [-max 250ms] [-socket PATH | -socket tcp:127.0.0.1:PORT]
                                   time a password check here (at cost
                                   10, 11 and 12), check the database,
                                   the runtime directory and the FastCGI
                                   service's socket (and whom its logins
                                   count against), show what hits,
                                   commits and logins cost here lately
  counter costs [-json] [-days N]  what the counter cost on this machine,
                                   a line a day and kind (p50, p90, p99),
                                   and its warnings; -json for scripts
  counter report [-days N]         every counter's views and visitors
                                   over the last N whole days (default 7)
                                   against the N before, its top pages
                                   and sources, and what to act on: for
                                   cron, which mails it (MAILTO)
  counter version                  the version, commit and Go version
                                   (also -version)
  counter check [FILE]             check the database (or FILE) for
                                   damage, changing nothing
  counter backup FILE              write a checked copy of the database
                                   to FILE, while hits go on, and note
                                   its time (the overview, the report)
  counter copy FROM TO             copy a whole store into a new file or
                                   an empty cluster prefix
                                   (etcd://HOST:2379/PREFIX), and check
                                   the copy against FROM
  counter token metrics            make the token that opens /metrics
                                   to Prometheus (printed once, stored
                                   hashed; a new one replaces the old)
  counter serve [-addr HOST:PORT]  try it out on a local web server
  counter fastcgi [-listen unix:PATH]
                                   serve FastCGI for Apache, nginx or
                                   Caddy on that socket, or on the one
                                   systemd passes (socket activation):
                                   a unix socket is the one to choose,
                                   only the web server's group reaches it
  counter fastcgi -listen tcp:127.0.0.1:PORT [-only-web-server-connects]
                                   the same on a loopback port, which
                                   every local user can reach and send
                                   any REMOTE_ADDR: all logins over it
                                   count as one client, unless the flag
                                   says only the web server reaches it
  counter help                     show this text

Settings (KEY+=A,B adds to a list, KEY-=A takes from it, KEY= empties it):
  show=views|visitors         what the image shows: every view, or each
                              day's visitors once (default views)
  reload=30m|off              a visitor's hits within this time of a
                              counted one are reloads (at most 24h)
  ignore=ADDR,NET/BITS,...    addresses whose hits are not counted
  referrers=HOST,*.DOMAIN,... the sites whose pages count (empty: all)
  theme=NAME                  how the image is drawn when the tag says
                              no theme=: a built-in look or a digit set
                              (empty: the font)

Every command takes -db FILE; the default is $COUNTER_DB, else
/var/lib/counter/counter.db. serve ignores $COUNTER_DB and uses
./counter-demo.db unless given -db.
`

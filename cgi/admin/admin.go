// Package admin is the owner's side of counter.cgi: the commands run from
// a shell to create, list, set and delete counters, protect their
// statistics, back up, check and measure (doctor), and try it out (serve),
// each with its own flags, and the usage text.
package admin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/store"
)

// cmdEnv is what an admin command works with.
type cmdEnv struct {
	cfg               *config.Config
	getenv            func(string) string
	stdin             io.Reader
	stdout, stderr    io.Writer
	log               *logline.Logger
	start             uint64        // create -start, or its START
	startGiven        bool          // create -start was given
	site              bool          // create -site
	hosts             string        // create -hosts
	since             string        // pages -days
	addr              string        // serve -addr
	privateRunDir     bool          // serve makes a runtime directory of its own
	clear, importHash bool          // passwd -clear, -hash
	owner             bool          // passwd -owner
	maxHash           time.Duration // doctor -max
	socket            string        // doctor -socket
	ownerChecked      bool          // ownerWarning has run
	serve             func(context.Context, config.Config, net.Listener) error
	fcgi              FastCGIFlags // fastcgi -listen, -only-web-server-connects
	fastCGI           func(config.Config, FastCGIFlags) error
	imp               importFlags
	json              bool // costs -json
	costDays          int  // costs -days
	reportDays        int  // report -days
	replaceSet        bool // digitset add -replace
	replaceTitles     bool // titles -replace
}

// command is one admin command: its flags, its arguments and what it does.
type command struct {
	args             string
	minArgs, maxArgs int
	flags            func(*flag.FlagSet, *cmdEnv)
	run              func(*cmdEnv, []string) error
}

// manyArgs is the maxArgs of a command that takes any number.
const manyArgs = -1

func noFlags(*flag.FlagSet, *cmdEnv) {}

// lookupCommand returns the admin command called name.
func lookupCommand(name string) (command, bool) {
	switch name {
	case "create":
		return command{"NAME [START | -start N] [-site -hosts HOST,...] [KEY=VALUE ...]", 1, manyArgs, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.Func("start", "first `count` (default 0)", func(v string) error {
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return fmt.Errorf("%q is not a count", v)
				}
				e.start, e.startGiven = n, true
				return nil
			})
			fs.BoolVar(&e.site, "site", false, "make a site: one tag counts each page of the site")
			fs.StringVar(&e.hosts, "hosts", "", "the site's `hosts`, comma-separated: only pages on them make rows")
		}, runCreate}, true
	case "pages":
		return command{"[-days N] NAME", 1, 1, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.StringVar(&e.since, "days", "", "count the last `N` days only (today included)")
		}, runPages}, true
	case "merge":
		return command{"NAME FROM-PAGE INTO-PAGE", 3, 3, noFlags, runMerge}, true
	case "titles":
		return titlesCommand(), true
	case "import":
		return importCommand(), true
	case "config":
		return command{"NAME [KEY=VALUE ...]", 1, manyArgs, noFlags, runConfig}, true
	case "digitset", "theme":
		return digitSetCommand(name), true
	case "list":
		return command{"", 0, 0, noFlags, runList}, true
	case "set":
		return command{"NAME N", 2, 2, noFlags, runSet}, true
	case "delete":
		return command{"NAME", 1, 1, noFlags, runDelete}, true
	case "passwd":
		return command{"[-clear | -hash] NAME | -owner [-clear | -hash]", 0, 1, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.BoolVar(&e.owner, "owner", false, "set the owner's password, whose login opens every counter's statistics (-clear: remove it)")
			fs.BoolVar(&e.clear, "clear", false, "make the statistics public again")
			fs.BoolVar(&e.importHash, "hash", false, "store a bcrypt hash read from stdin (from PHP's password_hash or htpasswd -B)")
		}, runPasswd}, true
	case "serve":
		return command{"[-addr HOST:PORT]", 0, 0, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.StringVar(&e.addr, "addr", "127.0.0.1:8080", "`address` to listen on")
		}, runServe}, true
	case "fastcgi":
		return command{"[-listen unix:PATH | -listen tcp:127.0.0.1:PORT [-only-web-server-connects]]", 0, 0, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.StringVar(&e.fcgi.Listen, "listen", "", "`socket` to serve on: unix:PATH, the one to choose, or tcp:127.0.0.1:PORT (default: the one systemd or the web server passed)")
			fs.BoolVar(&e.fcgi.OnlyWebServerConnects, "only-web-server-connects", false,
				"over tcp:, believe the REMOTE_ADDR of every connection for login limits: say so only when nothing but the web server can reach the port (without it, any local user could claim any address, so all logins over tcp: count as one client)")
		}, func(e *cmdEnv, _ []string) error { return e.fastCGI(*e.cfg, e.fcgi) }}, true
	case "doctor":
		return command{"[-max DURATION] [-socket PATH | -socket tcp:127.0.0.1:PORT]", 0, 0, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.DurationVar(&e.maxHash, "max", defaultMaxHash, "longest acceptable `time` for one password check")
			fs.StringVar(&e.socket, "socket", defaultSocket, "the FastCGI service's `socket` to check, when it is there: a path, or tcp:127.0.0.1:PORT")
		}, runDoctor}, true
	case "costs":
		return command{"[-json] [-days N]", 0, 0, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.BoolVar(&e.json, "json", false, "print JSON, for scripts and monitoring")
			fs.IntVar(&e.costDays, "days", 30, "the last `N` days (the history keeps a year)")
		}, runCosts}, true
	case "report":
		return command{"[-days N]", 0, 0, func(fs *flag.FlagSet, e *cmdEnv) {
			fs.IntVar(&e.reportDays, "days", 7, "the last `N` days (today included) against the N before")
		}, runReport}, true
	case "version", "-version", "--version":
		return command{"", 0, 0, noFlags, runVersion}, true
	case "check":
		return command{"[FILE]", 0, 1, noFlags, runCheck}, true
	case "backup":
		return command{"FILE", 1, 1, noFlags, runBackup}, true
	case "copy":
		return command{"FROM TO", 2, 2, noFlags, runCopy}, true
	case "token":
		return command{"metrics", 1, 1, noFlags, runToken}, true
	case "fix-owner":
		return fixOwnerCommand(), true
	case "help", "-h", "-help", "--help":
		return command{"", 0, 0, noFlags, func(e *cmdEnv, _ []string) error {
			fmt.Fprint(e.stdout, Usage)
			return nil
		}}, true
	}
	return command{}, false
}

// open opens the database for an admin command, first warning once when
// this user would leave it unusable by the web server.
func (e *cmdEnv) open(opts store.Options) (*store.DB, error) {
	if !e.ownerChecked {
		e.ownerChecked = true
		if w := ownerWarning(e.cfg.DB, os.Geteuid()); w != "" {
			fmt.Fprintln(e.stderr, "counter: "+w)
		}
	}
	opts.Wait, opts.MaxSize, opts.Remote = e.cfg.Wait, e.cfg.MaxDBSize, e.cfg.Remote
	return store.Open(e.cfg.DB, opts)
}

// view runs fn on the database opened read-only.
func (e *cmdEnv) view(fn func(*store.DB) error) error {
	db, err := e.open(store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// update runs fn on the database opened for writing, creating it if asked.
func (e *cmdEnv) update(create bool, fn func(*store.DB) error) error {
	db, err := e.open(store.Options{Create: create})
	if err != nil {
		return err
	}
	if err := fn(db); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

func checkedName(name string) error {
	if err := counter.CheckName(name); err != nil {
		return usagef("%q: %v", name, err)
	}
	return nil
}

func runCreate(e *cmdEnv, args []string) error {
	name, rest := args[0], args[1:]
	if err := checkedName(name); err != nil {
		return err
	}
	if len(rest) > 0 && !isSetting(rest[0]) {
		if e.startGiven {
			return usagef("create: the first count given twice, as %q and by -start", rest[0])
		}
		n, err := strconv.ParseUint(rest[0], 10, 64)
		if err != nil {
			return usagef("create: %q is neither a count nor a KEY=VALUE setting", rest[0])
		}
		e.start, rest = n, rest[1:]
	}
	for _, a := range rest {
		if !isSetting(a) {
			return usagef("create: %q is not a KEY=VALUE setting", a)
		}
	}
	base := counter.DefaultSettings()
	switch {
	case e.site:
		var err error
		if base, err = counter.NewSite(e.hosts); err != nil {
			return usagef("create: %v", err)
		}
	case e.hosts != "":
		return usagef("create: -hosts is for a site: add -site")
	}
	s, err := applySettings("create", base, rest)
	if err != nil {
		return err
	}
	err = e.update(true, func(db *store.DB) error { return db.CreateWith(name, e.start, e.cfg.Now(), s) })
	if err != nil {
		return err
	}
	if s.IsSite() {
		fmt.Fprintf(e.stdout, "created site %s for %s, counting each page it is shown on; put <img src=\"/cgi-bin/counter.cgi/%s.png\" alt=\"views\"> in the template of every page\n",
			name, strings.Join(s.Site.Hosts, ", "), name)
		return nil
	}
	fmt.Fprintf(e.stdout, "created %s at %d, showing %s; embed it with <img src=\"/cgi-bin/counter.cgi/%s.png\" alt=\"visitors\">\n", name, e.start, s.Show, name)
	return nil
}

func runList(e *cmdEnv, _ []string) error {
	var list []counter.Info
	err := e.view(func(db *store.DB) error {
		var err error
		list, err = db.List()
		return err
	})
	if err != nil {
		return err
	}
	// The columns of old stay where they were, STATISTICS (free text)
	// last, so that a script's $2 is still the count.
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCOUNT\tCREATED\tSHOWS\tVISITORS\tSETTINGS\tSTATISTICS")
	for _, c := range list {
		shows := c.Settings.Show.String()
		if c.Settings.IsSite() {
			shows = fmt.Sprintf("%s, site of %d pages", shows, c.Pages)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\t%s\n", c.Name, c.Count, c.Created.Format("2006-01-02 15:04 MST"),
			shows, c.Visitors, ownSettings(c.Settings), protection(c))
	}
	return tw.Flush()
}

// ownSettings names, in one word, the settings besides show that a
// counter does not have at their defaults; config shows their values.
func ownSettings(s counter.Settings) string {
	var own []string
	if s.Reload != counter.DefaultReload {
		own = append(own, "reload")
	}
	if len(s.Ignore) > 0 {
		own = append(own, "ignore")
	}
	if len(s.Referrers) > 0 {
		own = append(own, "referrers")
	}
	if s.Theme != "" {
		own = append(own, "theme")
	}
	if site := s.Site; site != nil {
		own = append(own, "hosts")
		if site.MaxPages != counter.DefaultMaxPages {
			own = append(own, "max-pages")
		}
		if len(site.KeepQuery) > 0 {
			own = append(own, "keep-query")
		}
		if site.Image != counter.PageImage {
			own = append(own, "image")
		}
		if site.PublicPages {
			own = append(own, "public-pages")
		}
	}
	if len(own) == 0 {
		return "default"
	}
	return strings.Join(own, ",")
}

// protection says who can read a counter's statistics, and the cost of its
// password hash when it has one.
func protection(c counter.Info) string {
	if !c.Protected() {
		return "public"
	}
	cost, err := counter.HashCost(c.PasswordHash)
	switch {
	case errors.Is(err, counter.ErrHashTooCostly):
		return fmt.Sprintf("password, bcrypt cost %d: too costly to check, set a new one", cost)
	case err != nil:
		return "password, unreadable hash: set a new one"
	case cost != counter.PasswordCost:
		return fmt.Sprintf("password, bcrypt cost %d (becomes %d at the next login)", cost, counter.PasswordCost)
	}
	return fmt.Sprintf("password, bcrypt cost %d", cost)
}

func runSet(e *cmdEnv, args []string) error {
	name := args[0]
	if err := checkedName(name); err != nil {
		return err
	}
	n, err := strconv.ParseUint(args[1], 10, 64)
	if err != nil {
		return usagef("set: %q is not a count", args[1])
	}
	return e.update(false, func(db *store.DB) error { return db.Set(name, n) })
}

func runDelete(e *cmdEnv, args []string) error {
	name := args[0]
	if err := checkedName(name); err != nil {
		return err
	}
	return e.update(false, func(db *store.DB) error { return db.Delete(name) })
}

// Package config is everything counter.cgi can be told, with its
// defaults, read in one place: from the environment, which is all a CGI
// process has (the web server's configuration sets it), and from the
// admin commands' -db flag.
package config

import (
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/guard"
	"hitcounter/cgi/seen"
	"hitcounter/store"
)

// Config is everything the binary can be told, with its defaults. Under CGI
// there is no command line, so the web server's configuration sets it
// through the environment; admin commands also take flags.
type Config struct {
	// DB is the bbolt file (COUNTER_DB, flag -db), or a store in an
	// etcd cluster, etcd://host:2379,host:2379/PREFIX (store.IsRemote).
	DB string
	// Remote opens DB when it is a cluster's. Only the full tool's
	// composition root sets it (from COUNTER_ETCD_OPTIONS, the file of the
	// cluster's TLS and user options): the hit binary links no client
	// and hands such a store's hits to the full tool.
	Remote store.Remote
	// SharedVisitors is the visitor table that the hosts of the cluster
	// at DB share, when DB is a cluster's: set with Remote, by the full
	// tool built with -tags etcd; each of its calls waits at most wait
	// for the cluster. Without it each host judges visitors by its own
	// runtime directory.
	SharedVisitors func(db string, wait time.Duration) seen.Visitors
	// Wait bounds every wait for the database lock (COUNTER_WAIT, e.g. "2s").
	Wait time.Duration
	// RunDir holds the bcrypt slots and the login throttle: a runtime
	// directory on tmpfs, so logins add no writes to the SD card
	// (COUNTER_RUN_DIR).
	RunDir string
	// BcryptSlots is how many password checks may run at once across all
	// processes (COUNTER_BCRYPT_SLOTS, 1 to 16).
	BcryptSlots int
	// MaxDBSize is the size in bytes past which the database does not grow
	// (COUNTER_MAX_DB_SIZE, e.g. "512MiB"): a hit that would grow it is not
	// counted. It is at most 1 GiB on 32-bit ARM, where bbolt cannot map more.
	MaxDBSize int
	// TrustedProxies are the peer addresses whose X-Forwarded-For is
	// believed (COUNTER_TRUSTED_PROXIES, comma-separated); by default none.
	TrustedProxies []netip.Addr
	// NoCosts turns off the timing of requests (COUNTER_COSTS=off): what
	// the counter costs on this machine, kept per day in RunDir and in the
	// database.
	NoCosts bool
	// BlankErrors answers an image request that cannot show a count
	// (an unknown counter, a bad parameter) with a 1x1 transparent image,
	// as releases before did, instead of one that says what is wrong
	// (COUNTER_ERRORS=blank; image, the default, draws it). The status
	// and X-Counter-Error are the same either way. It is no counter's
	// setting: the counter asked for may not exist.
	BlankErrors bool
	// Now is the clock; tests replace it.
	Now func() time.Time
}

// DefaultDB is where the install puts the database: outside any document
// root, in a directory owned by the web server's user.
const DefaultDB = "/var/lib/counter/counter.db"

// defaultRunDir is where the install makes the runtime directory.
const defaultRunDir = "/run/counter"

// maxWait keeps a misconfigured wait from piling up CGI processes.
const maxWait = 30 * time.Second

// FromEnv reads the configuration from the environment. A bad value is
// reported and replaced by its default, so that a typo in the web server's
// config does not stop every hit.
func FromEnv(getenv func(string) string) (Config, []error) {
	cfg := Config{DB: DefaultDB, Wait: store.DefaultWait, RunDir: defaultRunDir, BcryptSlots: 1,
		MaxDBSize: store.DefaultMaxSize, Now: time.Now}
	var errs []error
	if v := getenv("COUNTER_DB"); v != "" {
		cfg.DB = v
	}
	if v := strings.TrimSpace(getenv("COUNTER_WAIT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Millisecond || d > maxWait {
			errs = append(errs, fmt.Errorf("COUNTER_WAIT=%q: want a duration from 1ms to %s, using %s", v, maxWait, cfg.Wait))
		} else {
			cfg.Wait = d
		}
	}
	if v := getenv("COUNTER_RUN_DIR"); v != "" {
		cfg.RunDir = v
	}
	if v := strings.TrimSpace(getenv("COUNTER_BCRYPT_SLOTS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > guard.MaxSlots {
			errs = append(errs, fmt.Errorf("COUNTER_BCRYPT_SLOTS=%q: want 1 to %d, using %d", v, guard.MaxSlots, cfg.BcryptSlots))
		} else {
			cfg.BcryptSlots = n
		}
	}
	if v := strings.TrimSpace(getenv("COUNTER_MAX_DB_SIZE")); v != "" {
		n, ok := parseSize(v)
		if !ok || n < store.SmallestMaxSize || n > store.LargestMaxSize {
			errs = append(errs, fmt.Errorf("COUNTER_MAX_DB_SIZE=%q: want a size from %s to %s, like 512MiB, using %s",
				v, FormatSize(store.SmallestMaxSize), FormatSize(store.LargestMaxSize), FormatSize(cfg.MaxDBSize)))
		} else {
			cfg.MaxDBSize = n
		}
	}
	for _, v := range strings.Split(getenv("COUNTER_TRUSTED_PROXIES"), ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		a, err := netip.ParseAddr(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("COUNTER_TRUSTED_PROXIES: %q is not an address, ignored", v))
			continue
		}
		cfg.TrustedProxies = append(cfg.TrustedProxies, a.Unmap())
	}
	switch v := strings.TrimSpace(getenv("COUNTER_COSTS")); v {
	case "", "on":
	case "off":
		cfg.NoCosts = true
	default:
		errs = append(errs, fmt.Errorf("COUNTER_COSTS=%q: want on or off, using on", v))
	}
	switch v := strings.TrimSpace(getenv("COUNTER_ERRORS")); v {
	case "", "image":
	case "blank":
		cfg.BlankErrors = true
	default:
		errs = append(errs, fmt.Errorf("COUNTER_ERRORS=%q: want image or blank, using image", v))
	}
	return cfg, errs
}

// sizeUnits are the suffixes a size may have, largest first.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"", 0}}

// parseSize reads a whole number of bytes, KiB, MiB, GiB or TiB.
func parseSize(s string) (int, bool) {
	for _, u := range sizeUnits {
		digits, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(digits), 10, 64)
		if err != nil || n > math.MaxInt>>u.shift {
			return 0, false
		}
		return int(n << u.shift), true
	}
	return 0, false
}

// FormatSize writes n in the largest unit that divides it.
func FormatSize(n int) string {
	for _, u := range sizeUnits {
		if m := uint64(n); m > 0 && m%(1<<u.shift) == 0 {
			return strconv.FormatUint(m>>u.shift, 10) + u.suffix
		}
	}
	return strconv.Itoa(n)
}

// Lookup turns an environment list into a getenv function.
func Lookup(environ []string) func(string) string {
	return func(key string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	}
}

package admin

import (
	"errors"
	"fmt"
	"strings"

	"hitcounter/counter"
	"hitcounter/store"
)

// runConfig prints the settings of counter NAME, or changes them: every
// KEY=VALUE given, in order, in one transaction, then prints them as they
// now stand. The lines it prints are the settings it takes, so that they
// can be saved and given back.
func runConfig(e *cmdEnv, args []string) error {
	name, settings := args[0], args[1:]
	if err := checkedName(name); err != nil {
		return err
	}
	if len(settings) == 0 {
		var info counter.Info
		err := e.view(func(db *store.DB) error {
			var err error
			info, err = db.Counter(name)
			return err
		})
		if err != nil {
			return err
		}
		printSettings(e, info.Settings)
		return nil
	}
	// Every setting is read once before the file is opened, so that a
	// mistake is told without waiting for the lock, on a plain counter and
	// on a site; a list grown past its bound, or a setting that the kind
	// of counter does not take, only shows in the transaction.
	site, _ := counter.NewSite("example.org")
	for _, kv := range settings {
		if _, err := applySettings("config", counter.DefaultSettings(), []string{kv}); err != nil {
			if _, serr := applySettings("config", site, []string{kv}); serr != nil {
				if errors.Is(err, counter.ErrNotSite) {
					return serr
				}
				return err
			}
		}
	}
	var bad error
	var s counter.Settings
	private := false // a public page list that a password keeps private
	err := e.update(false, func(db *store.DB) error {
		var err error
		s, err = db.Configure(name, func(s *counter.Settings) error {
			*s, bad = applySettings("config", *s, settings)
			return bad
		})
		if err == nil && s.Site != nil && s.Site.PublicPages {
			var info counter.Info
			if info, err = db.Counter(name); err == nil {
				private = info.Protected()
			}
		}
		return err
	})
	if bad != nil {
		return bad
	}
	if err != nil {
		return err
	}
	printSettings(e, s)
	if private {
		fmt.Fprintf(e.stderr, "counter: note: %s's statistics have a password, so its page list stays private whatever public-pages says; passwd -clear %s makes both public\n", name, name)
	}
	return nil
}

// applySettings returns s with every "key=value" of settings applied in
// order, or a usage error of command cmd naming the first that cannot be
// taken.
func applySettings(cmd string, s counter.Settings, settings []string) (counter.Settings, error) {
	for _, kv := range settings {
		if err := s.Set(kv); err != nil {
			return s, usagef("%s: %w", cmd, err)
		}
	}
	return s, nil
}

func printSettings(e *cmdEnv, s counter.Settings) {
	fmt.Fprintln(e.stdout, strings.Join(s.Format(), "\n"))
}

// isSetting reports whether a command-line argument is a setting rather
// than a name or a count.
func isSetting(arg string) bool { return strings.Contains(arg, "=") }

package admin

import (
	"fmt"

	"hitcounter/store"
)

// runCopy copies the whole store FROM into TO, a new file or an empty
// prefix of an etcd cluster (etcd://HOST:2379/PREFIX), either way, and
// checks the copy: the way into a cluster and back to one Pi.
func runCopy(e *cmdEnv, args []string) error {
	from, to := args[0], args[1]
	r, err := store.Copy(from, to, store.Options{Wait: e.cfg.Wait, Remote: e.cfg.Remote})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s copied to %s and checked: %d counter(s), %d view(s) in all, schema %d, %d digit set(s), the same content\n",
		from, to, r.Counters, r.Hits, r.Schema, r.DigitSets)
	return nil
}

package admin

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"hitcounter/store"
)

// DemoDB is the database of the local server when none is configured.
const DemoDB = "counter-demo.db"

// runServe serves the handler over plain HTTP for trying the counter out,
// with a demo counter made on first start.
func runServe(e *cmdEnv, _ []string) error {
	// No web server opens the demo database, so who owns it does not
	// matter; one given with -db may be the live one, and is checked.
	e.ownerChecked = e.cfg.DB == DemoDB
	err := e.update(true, func(db *store.DB) error {
		list, err := db.List()
		if err != nil || len(list) > 0 {
			return err
		}
		return db.Create("demo", 0, e.cfg.Now())
	})
	if err != nil {
		return err
	}
	if e.privateRunDir {
		// Made anew, private and under a name nobody can guess: a
		// predictable one in a shared /tmp could be made first by another
		// user, with links in it for the first hit to write through.
		dir, err := os.MkdirTemp("", "counter-run-")
		if err != nil {
			return fmt.Errorf("serve: runtime directory: %w", err)
		}
		defer os.RemoveAll(dir)
		e.cfg.RunDir = dir
	}
	ln, err := net.Listen("tcp", e.addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(e.stdout, "counting in %s; open http://%s/ (Ctrl-C stops)\n", e.cfg.DB, ln.Addr())
	return e.serve(ctx, *e.cfg, ln)
}

package main

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"hitcounter/store"
)

// demoDB is the database of the local server when none is configured.
const demoDB = "counter-demo.db"

// runServe serves the handler over plain HTTP for trying the counter out,
// with a demo counter made on first start.
func runServe(e *cmdEnv, _ []string) error {
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
	ln, err := net.Listen("tcp", e.addr)
	if err != nil {
		return err
	}
	a := &app{cfg: *e.cfg, log: e.log, demo: true}
	srv := &http.Server{
		Handler:           a.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          stdlog.New(e.stderr, "counter: ", 0),
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Fprintf(e.stdout, "counting in %s; open http://%s/ (Ctrl-C stops)\n", e.cfg.DB, ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

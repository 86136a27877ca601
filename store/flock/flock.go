// Package flock takes and leaves flock(2) locks on open files, the one
// way every process of the counter shares a file: the database's side
// lock (store), the visitor table (cgi/seen) and the login slots
// (cgi/guard).
package flock

import (
	"errors"
	"os"
	"syscall"
)

// Do applies how (syscall.LOCK_SH, LOCK_EX or LOCK_UN, with LOCK_NB or
// not) to f, again when a signal interrupts it: the Go runtime's own
// signals (preemption, the profiler) interrupt a blocked flock, which is
// no reason to give up.
func Do(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

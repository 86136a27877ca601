// Package flock takes and leaves flock(2) locks on open files, the one
// way every process of the counter shares a file: the database's side
// lock (store), the visitor table (cgi/seen), the login slots
// (cgi/guard) and the cost meter's file (cgi/meter).
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
	return FD(int(f.Fd()), how)
}

// FD is Do for a descriptor opened without os (a file that is mapped).
func FD(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

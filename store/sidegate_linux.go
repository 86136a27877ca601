//go:build !bboltlockonly

package store

import (
	"errors"
	"os"
	"syscall"
)

// The gate is a lock of an open file description's own (F_OFD_SETLKW) on
// the side file's first byte, apart from the flock, which Linux keeps
// apart from it on a local file system. flock alone lets a reader in
// whenever readers hold the lock, however long a writer has waited, so
// that readers who overlap keep a writer out for ever: every counted hit
// would wait its whole wait and fail. With the gate, whoever has to wait
// for the flock waits holding the gate, a writer alone and readers
// together, and a reader comes in only while no writer holds it: a writer
// waiting lets the readers already in finish, and those after it wait
// for it, and then come in all at once.

// The fcntl commands of an open file description's own locks (Linux 3.15),
// the same on every architecture; package syscall does not name them.
const (
	fOFDGetLk  = 36
	fOFDSetLk  = 37
	fOFDSetLkW = 38
)

// gateOpen says whether no writer waits at the gate of side file f. One
// who comes to wait just after it looked lets this reader in, as if it
// had come a moment before. A gate that cannot be read is open: the
// flock keeps the data safe, only less fairly.
func gateOpen(f *os.File) bool {
	lk := gateLock(syscall.F_RDLCK)
	for {
		err := syscall.FcntlFlock(f.Fd(), fOFDGetLk, &lk)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		return err != nil || lk.Type == syscall.F_UNLCK
	}
}

// enterGate waits at the gate of side file f and holds it, shared for a
// reader, alone for a writer. An error (a kernel or file system without
// such locks) leaves it open, and the caller goes on without it.
func enterGate(f *os.File, exclusive bool) error {
	lk := gateLock(syscall.F_RDLCK)
	if exclusive {
		lk.Type = syscall.F_WRLCK
	}
	for {
		err := syscall.FcntlFlock(f.Fd(), fOFDSetLkW, &lk)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// leaveGate lets go of the gate that enterGate held.
func leaveGate(f *os.File) {
	lk := gateLock(syscall.F_UNLCK)
	syscall.FcntlFlock(f.Fd(), fOFDSetLk, &lk)
}

func gateLock(typ int16) syscall.Flock_t {
	return syscall.Flock_t{Type: typ, Whence: 0, Start: 0, Len: 1}
}

//go:build !bboltlockonly

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"hitcounter/store/flock"
)

// lockSide takes a blocking flock on the side file of the database at
// db, giving up after wait. waits, if not nil, bounds the blocked flocks
// this process leaves behind. A side file that cannot be opened (a
// read-only directory, say) is not an error: bbolt's own lock still
// keeps the data safe, only less fairly. Nor is one that is not a plain
// file of its own (a link, which is never followed, or a FIFO): it is not
// used. Under root, it is the web server's user's (handOver).
func lockSide(db string, exclusive bool, wait time.Duration, waits *LockWaits) (*os.File, error) {
	f, err := openChecked(LockPath(db), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, fileMode)
	if err != nil {
		return nil, nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || handOver(f, db) != nil {
		f.Close()
		return nil, nil
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if held, done := tryEnter(f, how); done {
		return held, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	release := func() {}
	if waits != nil {
		select {
		case waits.slots <- struct{}{}:
			release = func() { <-waits.slots }
		case <-timer.C:
			f.Close()
			return nil, ErrTimeout
		}
		// The holder may have let go while this open waited for a slot.
		if held, done := tryEnter(f, how); done {
			release()
			return held, nil
		}
	}
	done := make(chan error, 1)
	go func() {
		err := queue(f, how)
		release()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock: %w", err)
		}
		return f, nil
	case <-timer.C:
		// Let the blocked flock finish in the background and release at
		// once, so a long-lived process does not keep a lock it gave up on.
		go func() {
			if <-done == nil {
				unlockSide(f)
				return
			}
			f.Close()
		}()
		return nil, ErrTimeout
	}
}

// tryEnter takes the lock if it is free and, for a reader, if no writer
// waits for it at the gate (sidegate_linux.go), with tryFlock's answer. A
// writer does not look at the gate: that costs every commit a system
// call, and a writer that finds the lock free keeps no one waiting
// longer than a commit.
func tryEnter(f *os.File, how int) (held *os.File, done bool) {
	if how == syscall.LOCK_SH && !gateOpen(f) {
		return nil, false
	}
	return tryFlock(f, how)
}

// queue waits for the lock at the gate: whoever waits for the flock holds
// the gate, a writer alone, so that no reader comes in past a writer who
// waits, and readers together, so that they come in at once after it.
func queue(f *os.File, how int) error {
	if enterGate(f, how == syscall.LOCK_EX) != nil {
		return flock.Do(f, how) // no gate here: only less fair
	}
	defer leaveGate(f)
	return flock.Do(f, how)
}

// tryFlock takes the lock if it is free. done reports that lockSide has
// its answer: f, locked, or nil when flock itself fails (see lockSide);
// otherwise another process holds the lock.
func tryFlock(f *os.File, how int) (held *os.File, done bool) {
	switch err := flock.Do(f, how|syscall.LOCK_NB); {
	case err == nil:
		return f, true
	case errors.Is(err, syscall.EWOULDBLOCK):
		return nil, false
	default:
		f.Close()
		return nil, true
	}
}

func unlockSide(f *os.File) {
	if f == nil {
		return
	}
	flock.Do(f, syscall.LOCK_UN)
	f.Close()
}

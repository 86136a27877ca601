//go:build !bboltlockonly

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockSide takes a blocking flock on the side file, giving up after wait.
// A side file that cannot be opened (a read-only directory, say) is not an
// error: bbolt's own lock still keeps the data safe, only less fairly.
func lockSide(path string, exclusive bool, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, nil
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err = flock(f, how|syscall.LOCK_NB)
	if err == nil {
		return f, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, nil
	}
	done := make(chan error, 1)
	go func() { done <- flock(f, how) }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock: %w", err)
		}
		return f, nil
	case <-timer.C:
		// The blocked flock cannot be cancelled: let it finish in the
		// background and release at once, so a long-lived process does not
		// keep a lock it gave up on.
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

func unlockSide(f *os.File) {
	if f == nil {
		return
	}
	flock(f, syscall.LOCK_UN)
	f.Close()
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

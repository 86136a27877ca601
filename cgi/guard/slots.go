package guard

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"time"

	"hitcounter/cgi/rundir"
	"hitcounter/store/flock"
)

// ErrBusy reports that every slot is taken.
var ErrBusy = errors.New("every bcrypt slot is busy")

// MaxSlots bounds the number of slots an owner can configure.
const MaxSlots = 16

// Slots is a cap of N concurrent holders across processes: N lock files,
// each taken with a non-blocking flock. The kernel drops a holder's lock
// when it exits, even by SIGKILL, so a crash never leaks a slot.
type Slots struct {
	Dir *rundir.Dir
	N   int
	// Name names the lock files, Name-0.lock and on; "bcrypt" if empty.
	// Slots of another name are a cap of their own.
	Name string
}

// Acquire takes a free slot without waiting, or fails with ErrBusy.
// Release the slot by calling the returned function.
func (s Slots) Acquire() (release func(), err error) {
	if s.N < 1 || s.N > MaxSlots {
		return nil, fmt.Errorf("guard: %d slots, want 1 to %d", s.N, MaxSlots)
	}
	for i := range s.N {
		name := s.Name
		if name == "" {
			name = "bcrypt"
		}
		f, err := s.Dir.OpenFile(name+"-"+strconv.Itoa(i)+".lock", true)
		if err != nil {
			return nil, fmt.Errorf("guard: slot: %w", err)
		}
		err = flock.Do(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { flock.Do(f, syscall.LOCK_UN); f.Close() }, nil
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("guard: slot: %w", err)
		}
	}
	return nil, ErrBusy
}

// pollEvery is how often FirstFree tries its slots again while it waits:
// flock can neither wait on several files at once nor for a bounded time.
const pollEvery = 20 * time.Millisecond

// FirstFree takes a free slot of the first of slots that has one, and if
// none has, tries them all again every pollEvery for up to wait, so that
// a check that ends within it hands its slot on. It fails with ErrBusy if
// none is freed in time. Release the slot by calling the returned function.
func FirstFree(wait time.Duration, slots ...Slots) (release func(), err error) {
	deadline := time.Now().Add(wait)
	for {
		for _, s := range slots {
			release, err := s.Acquire()
			if !errors.Is(err, ErrBusy) {
				return release, err
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, ErrBusy
		}
		time.Sleep(min(pollEvery, left))
	}
}

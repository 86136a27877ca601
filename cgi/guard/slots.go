package guard

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"hitcounter/cgi/rundir"
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
		err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { flock(f, syscall.LOCK_UN); f.Close() }, nil
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("guard: slot: %w", err)
		}
	}
	return nil, ErrBusy
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

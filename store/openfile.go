package store

import (
	"os"
	"syscall"
)

// openFile is os.OpenFile for the database and its side lock, without
// the runtime's poller: os.OpenFile offers every file it opens to the
// poller, which a CGI process then starts for nothing (epoll_create1,
// eventfd2, and four fcntls and an epoll_ctl a file, refused for a plain
// file): 25 system calls, and the poller's start among the costliest
// CPU of opening the file (deploy/bench/bench-breakdown.sh). os.NewFile
// leaves a blocking descriptor out of the poller.
func openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// maxRootLinks bounds the links of root's own that openAsRoot follows,
// and its looks at a name that keeps turning from a link to a file.
const maxRootLinks = 8

// openAsRoot is openFile for a process run as root, in a directory that
// the web server's user may write in, and so swap names in at any moment
// (renameat2's exchange): a check of the name and an open of it would be
// two looks at two different files. So the name is looked at once: its
// directory is opened, then the name in it, relative to that descriptor,
// without following a link. A link of root's own is followed, by
// reading that very link through a descriptor of its own, and the
// target is opened the same way; a link of anyone else's is refused, and
// so is any link when flag holds O_NOFOLLOW.
// What was opened is then checked through its descriptor, as only a
// descriptor can tell the truth about it: a regular file (no FIFO,
// device or directory), on its directory's own disk (no mount put
// over it); handOver then looks at it again through the same descriptor.
func openAsRoot(name string, flag int, perm os.FileMode) (*os.File, error) {
	path := name
	for range maxRootLinks {
		dir, base := filepath.Split(path)
		if dir == "" {
			dir = "."
		}
		dfd, err := retry(func() (int, error) {
			return unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		})
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		// Non-blocking: opening a FIFO put there would wait for a writer.
		fd, err := retry(func() (int, error) {
			return unix.Openat(dfd, base, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
		})
		if errors.Is(err, unix.ELOOP) && flag&unix.O_NOFOLLOW == 0 {
			target, lerr := rootsLink(dfd, base, path)
			unix.Close(dfd)
			if errors.Is(lerr, errNotLink) {
				continue // a file again, swapped back meanwhile: look anew
			}
			if lerr != nil {
				return nil, lerr
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			path = target
			continue
		}
		if err != nil {
			unix.Close(dfd)
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		err = fitFile(fd, path)
		unix.Close(dfd)
		if err == nil {
			err = unix.SetNonblock(fd, false)
		}
		if err != nil {
			unix.Close(fd)
			return nil, err
		}
		return os.NewFile(uintptr(fd), name), nil
	}
	return nil, &refusal{name, fmt.Sprintf("goes through more than %d links, or keeps changing: not followed", maxRootLinks)}
}

// errNotLink says that a name that was a link a moment ago is not one
// now.
var errNotLink = errors.New("not a link now")

// rootsLink returns the target of the link base in the directory dfd if
// the link is root's. It opens the link itself (O_PATH) and reads that
// very one: a name looked at twice could be two links.
func rootsLink(dfd int, base, path string) (string, error) {
	fd, err := retry(func() (int, error) {
		return unix.Openat(dfd, base, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return "", &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return "", errNotLink
	}
	if st.Uid != 0 {
		return "", &refusal{path, fmt.Sprintf("is a link made by uid %d: root does not follow it (point COUNTER_DB at the file itself)", st.Uid)}
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(fd, "", buf)
	if err != nil {
		return "", &os.PathError{Op: "readlink", Path: path, Err: err}
	}
	return string(buf[:n]), nil
}

// fitFile checks fd, just opened in its directory: a regular file.
// Its device is not compared with the directory's: only root can mount
// something over the name, and on overlayfs (a container's root, a live
// system) a file reports the device of the layer it comes from, not the
// directory's.
func fitFile(fd int, path string) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return &refusal{path, "is not a regular file: root does not use it"}
	}
	return nil
}

func retry(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// refusal is a file that root does not use, and why: a fault of the
// setup, not damage to the database.
type refusal struct{ path, why string }

func (r *refusal) Error() string { return r.path + " " + r.why }

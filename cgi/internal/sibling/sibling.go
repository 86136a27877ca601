// Package sibling runs another of the counter's programs in place of this
// process: the hit binary runs the full tool for all but a hit, and the
// full tool runs the cluster tool for a store in an etcd cluster. Only a
// file no other user of the machine could have planted is run, since a
// web server's request may be what runs it.
package sibling

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Path is p, or when p is relative, p from the folder of this program's
// executable (the kernel's /proc/self/exe, never the environment, which
// a visitor's request fills).
func Path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	exe, err := os.Executable()
	if err != nil {
		return p // not found then, and said so
	}
	return filepath.Join(filepath.Dir(exe), p)
}

// Exec runs the program at path in place of this process, with args
// (args[0] kept, so that its messages name the program the owner ran)
// and environ. Only a file this program can trust is run: the path and
// its directory are not links, and are owned by root or by this
// process's user and writable by no one else. It returns only on a
// failure, which names the program.
func Exec(path string, args, environ []string) error {
	for _, p := range []string{filepath.Dir(path), path} {
		if err := trusted(p); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	err := syscall.Exec(path, args, environ)
	return fmt.Errorf("%s: %w", path, err)
}

// trusted refuses p when it is a link, or owned by another user than
// root or this process's, or writable by its group or others.
func trusted(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a link", p)
	case !ok:
		return fmt.Errorf("%s: no owner", p)
	case st.Uid != 0 && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s is owned by user %d", p, st.Uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others than its owner (mode %v)", p, fi.Mode().Perm())
	}
	return nil
}

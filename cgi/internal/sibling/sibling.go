package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// fullTool is the path of the full tool: p, or when p is relative, p
// from the folder of this program's executable.
func fullTool(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	exe, err := os.Executable()
	if err != nil {
		return p // not found then, and said so
	}
	return filepath.Join(filepath.Dir(exe), p)
}

// execTool runs the full tool at path in place of this process, with
// args (args[0] kept, so that its messages name counter.cgi) and environ.
// Only a file this program can trust is run: the path and its directory
// are not links, and are owned by root or by this process's user and
// writable by no one else, so that no other user of the machine can
// plant a program that a web server's request would run. It returns
// only on a failure.
func execTool(path string, args, environ []string) error {
	for _, p := range []string{filepath.Dir(path), path} {
		if err := trusted(p); err != nil {
			return fmt.Errorf("the full tool %s: %w (reinstall the counter)", path, err)
		}
	}
	err := syscall.Exec(path, args, environ)
	return fmt.Errorf("the full tool %s: %w (reinstall the counter)", path, err)
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

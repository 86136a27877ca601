// Package rundir is the runtime directory that every process of the
// counter shares (COUNTER_RUN_DIR, /run/counter by default): the visitor
// tables, the login throttles, the bcrypt slots and the costs of the day.
//
// Anyone who may add or rename files in that directory could make the
// counter write wherever a link of theirs points, and the counter runs as
// root too, when an owner types sudo by habit. So the directory is opened
// once, without following a link, and refused when a user other than
// this process's, root, or (for root) the database's owner owns it, or
// when others may write in it; each file in it is then opened by name in
// the open directory (openat), never through a link, and a file that is
// not a regular file of its own (a hard link) is not used.
//
// Run as root, the package makes every file, and the directory itself,
// for the database's owner (the web server's user), and hands over any it
// finds that belong to someone else: a hit, a login or an admin command
// run with sudo leaves nothing the web server's user cannot use. A file
// that this process cannot use (one left by root under an older release,
// say) is removed and made anew, with one log line, where the directory
// allows it; all the files here are made again as needed.
package rundir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"hitcounter/cgi/internal/logline"
)

// ErrUnusable is what every Problem is: the directory, or a file in it,
// cannot be used as it is.
var ErrUnusable = errors.New("runtime directory unusable")

// Problem says why the directory, or a file in it, cannot be used, and
// the one command that fixes it.
type Problem struct {
	Path string // the directory or the file
	What string // what is wrong with it
	Fix  string // the command that fixes it
}

func (p *Problem) Error() string {
	return fmt.Sprintf("runtime directory: %s %s (fix: %s)", p.Path, p.What, p.Fix)
}

// Is makes every Problem an ErrUnusable.
func (p *Problem) Is(target error) bool { return target == ErrUnusable }

// FileMode is the mode of every file made here.
const FileMode = 0o600

// dirMode is the mode of the directory when this package makes it.
const dirMode = 0o700

// Dir is one runtime directory. It does no I/O until a file is opened,
// and is safe for concurrent use.
type Dir struct {
	path string
	db   string // the database: whose owner the files are made for, under root
	// log, if not nil, hears of each file that was not fit to use and
	// was made anew: one line for the owner.
	log *logline.Logger

	mu      sync.Mutex
	fd      int   // the directory, opened; -1 until then
	forUser owner // whom the files here are for
}

// owner is a user and group that files here are made for.
type owner struct{ uid, gid int }

// New returns the runtime directory at path, for the database at db.
// log, if not nil, is told in one line of each file made anew.
func New(path, db string, log *logline.Logger) *Dir {
	return &Dir{path: path, db: db, log: log, fd: -1}
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Close closes the directory. A Dir may be used again after it: it opens
// the directory anew.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.forget()
}

func (d *Dir) forget() error {
	if d.fd < 0 {
		return nil
	}
	err := syscall.Close(d.fd)
	d.fd = -1
	return err
}

// Check opens the directory, making it if it is missing and mkdir is set,
// and says whether it may be used.
func (d *Dir) Check(mkdir bool) error {
	_, _, err := d.open(mkdir)
	return err
}

// open returns the open directory and whom its files are for, opening
// (and, with mkdir, making) it first if need be.
func (d *Dir) open(mkdir bool) (int, owner, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fd >= 0 {
		return d.fd, d.forUser, nil
	}
	euid := os.Geteuid()
	forUser := owner{euid, os.Getegid()}
	if euid == 0 {
		forUser = dbOwner(d.db)
	}
	fd, err := openDir(d.path)
	made := false
	if errors.Is(err, syscall.ENOENT) && mkdir {
		// /run is emptied at boot; the install also has systemd or the
		// init script make it again. One level only: a tree of
		// directories made by root would shut the web server's user out.
		if err := syscall.Mkdir(d.path, dirMode); err == nil {
			made = true
		} else if !errors.Is(err, syscall.EEXIST) {
			return -1, owner{}, d.problem(err, forUser)
		}
		fd, err = openDir(d.path)
	}
	if err != nil {
		return -1, owner{}, d.problem(err, forUser)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, owner{}, fmt.Errorf("runtime directory %s: %w", d.path, err)
	}
	if made && euid == 0 && forUser.uid != 0 {
		if err := syscall.Fchown(fd, forUser.uid, forUser.gid); err != nil {
			syscall.Close(fd)
			return -1, owner{}, fmt.Errorf("runtime directory %s: give it to %s: %w", d.path, userName(forUser.uid), err)
		}
		st.Uid, st.Gid = uint32(forUser.uid), uint32(forUser.gid)
	}
	if p := d.refuse(&st, euid, forUser); p != nil {
		syscall.Close(fd)
		return -1, owner{}, p
	}
	d.fd, d.forUser = fd, forUser
	return fd, forUser, nil
}

// refuse says why a directory of st may not be used by a process of
// euid making files for forUser, or nil if it may.
func (d *Dir) refuse(st *syscall.Stat_t, euid int, forUser owner) *Problem {
	uid := int(st.Uid)
	if uid != euid && uid != 0 && uid != forUser.uid {
		return &Problem{Path: d.path,
			What: fmt.Sprintf("belongs to %s, not to %s: refused, as that user could plant links in it", userName(uid), userName(forUser.uid)),
			Fix:  fmt.Sprintf("sudo chown %s: %s && sudo chmod 0750 %s", userName(forUser.uid), d.path, d.path)}
	}
	if st.Mode&0o022 != 0 {
		return &Problem{Path: d.path,
			What: fmt.Sprintf("may be written by other users (mode %04o): refused, as they could plant links in it", st.Mode&0o7777),
			Fix:  fmt.Sprintf("sudo chmod 0750 %s", d.path)}
	}
	return nil
}

// problem turns a failure to open or make the directory into a Problem.
func (d *Dir) problem(err error, forUser owner) error {
	install := fmt.Sprintf("sudo install -d -o %s -g %s -m 0750 %s", userName(forUser.uid), groupName(forUser.gid), d.path)
	switch {
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.ENOTDIR):
		what := "is not a directory"
		if fi, lerr := os.Lstat(d.path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			what = "is a link: not followed"
		}
		return &Problem{Path: d.path, What: what, Fix: fmt.Sprintf("sudo rm %s && %s", d.path, install)}
	case errors.Is(err, syscall.ENOENT):
		return &Problem{Path: d.path, What: "is missing, and this user cannot make it", Fix: install}
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return &Problem{Path: d.path, What: "cannot be opened by " + userName(os.Geteuid()), Fix: install}
	}
	return fmt.Errorf("runtime directory %s: %w", d.path, err)
}

func openDir(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}

// OpenFile opens the file name in the directory to read and write, never
// through a link. With create, a missing file is made (mode 0600), and so
// is the directory; a file not fit to use (a link, a hard link, not a
// regular file, or one this user may not open) is removed and made anew,
// with one log line, and the file a link pointed to is never
// touched. Without create, a missing file is fs.ErrNotExist. Under root,
// the file is handed to the database's owner.
func (d *Dir) OpenFile(name string, create bool) (*os.File, error) {
	fd, err := d.OpenFd(name, create)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.path, name)), nil
}

// OpenFd is OpenFile's bare descriptor: a process that serves one request
// and uses the file with pread and pwrite spares itself an os.File.
func (d *Dir) OpenFd(name string, create bool) (int, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return -1, fmt.Errorf("runtime directory: %q is not a file name", name)
	}
	how := syscall.O_RDWR | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	if create {
		how |= syscall.O_CREAT
	}
	remade := false
	for try := 0; try < 3; try++ {
		dir, forUser, err := d.open(create)
		if err != nil {
			return -1, err
		}
		fd, err := openat(dir, name, how)
		if errors.Is(err, syscall.ENOENT) && create && try == 0 {
			// The directory was removed since it was opened (cleaned by
			// hand, or at boot under a long-lived process): open it anew.
			d.mu.Lock()
			if d.fd == dir {
				d.forget()
			}
			d.mu.Unlock()
			continue
		}
		bad, err := d.unfit(fd, err, name, forUser)
		if err != nil {
			return -1, err
		}
		if bad == "" {
			return fd, nil
		}
		path := filepath.Join(d.path, name)
		if !create || remade {
			return -1, &Problem{Path: path, What: bad, Fix: "sudo rm " + path}
		}
		if err := syscall.Unlinkat(dir, name); errors.Is(err, syscall.EISDIR) {
			return -1, &Problem{Path: path, What: bad + ": a directory, not removed", Fix: "sudo rm -r " + path}
		} else if err != nil && !errors.Is(err, syscall.ENOENT) {
			return -1, &Problem{Path: path, What: bad + ", and cannot be removed: " + err.Error(), Fix: "sudo rm " + path}
		}
		if d.log != nil {
			d.log.Printf("runtime directory: %s %s: removed, and made anew", path, bad)
		}
		// Made only by this process from here on: whatever appears under
		// the name meanwhile is someone else's, and not used.
		how |= syscall.O_EXCL
		remade = true
	}
	path := filepath.Join(d.path, name)
	return -1, &Problem{Path: path, What: "keeps being replaced by another process", Fix: "sudo rm " + path}
}

// unfit looks at the file just opened (fd, or the error of opening it):
// bad says why it is not fit to use, with fd closed; an error is a
// failure that making the file anew would not mend. A fit file is handed
// to forUser under root.
func (d *Dir) unfit(fd int, openErr error, name string, forUser owner) (bad string, err error) {
	path := filepath.Join(d.path, name)
	switch {
	case errors.Is(openErr, syscall.ELOOP):
		return "is a link: not followed", nil
	case errors.Is(openErr, syscall.EACCES), errors.Is(openErr, syscall.EPERM):
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			// Nothing there: it is the directory that lets this user make
			// no file (one made by root by hand, say).
			user := userName(os.Geteuid())
			return "", &Problem{Path: d.path, What: fmt.Sprintf("%s, and %s may not make files in it", describe(d.path), user),
				Fix: fmt.Sprintf("sudo chown %s: %s && sudo chmod 0750 %s", user, d.path, d.path)}
		}
		return describe(path) + ", which " + userName(os.Geteuid()) + " cannot open", nil
	case errors.Is(openErr, syscall.ENXIO), errors.Is(openErr, syscall.EISDIR):
		return "is not a regular file", nil
	case openErr != nil:
		return "", &os.PathError{Op: "open", Path: path, Err: openErr}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return "", &os.PathError{Op: "stat", Path: path, Err: err}
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		bad = "is not a regular file"
	case st.Nlink > 1:
		bad = "has another name too (a hard link): not used"
	}
	if bad != "" {
		syscall.Close(fd)
		return bad, nil
	}
	if os.Geteuid() == 0 && (int(st.Uid) != forUser.uid || int(st.Gid) != forUser.gid) {
		if err := syscall.Fchown(fd, forUser.uid, forUser.gid); err != nil {
			syscall.Close(fd)
			return "", fmt.Errorf("runtime directory: give %s to %s: %w", path, userName(forUser.uid), err)
		}
	}
	if st.Mode&0o077 != 0 {
		syscall.Fchmod(fd, FileMode) // made by someone else, or by hand: keep it private
	}
	return "", nil
}

func openat(dir int, name string, how int) (int, error) {
	for {
		fd, err := syscall.Openat(dir, name, how, FileMode)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}

// ReadFile reads the file name whole, never through a link, if it is a
// regular file of at most max bytes; a larger one is an error.
func (d *Dir) ReadFile(name string, max int) ([]byte, error) {
	dir, _, err := d.open(false)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(d.path, name)
	// Non-blocking: opening a planted FIFO to read would wait for a writer.
	fd, err := openat(dir, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Nlink > 1 || st.Size > int64(max) {
		return nil, fmt.Errorf("runtime directory: %s is not a file of its own of at most %d bytes: not read", path, max)
	}
	b := make([]byte, st.Size)
	n, err := syscall.Pread(fd, b, 0)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return b[:n], nil
}

// Names returns the names of the files in the directory, unsorted.
func (d *Dir) Names() ([]string, error) {
	dir, _, err := d.open(false)
	if err != nil {
		return nil, err
	}
	fd, err := openat(dir, ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("runtime directory: list %s: %w", d.path, err)
	}
	return names, nil
}

// Remove removes the file name, not what a link of that name points to.
// A file already gone is no error.
func (d *Dir) Remove(name string) error {
	dir, _, err := d.open(false)
	if err != nil {
		return err
	}
	if err := syscall.Unlinkat(dir, name); err != nil && !errors.Is(err, syscall.ENOENT) {
		return &os.PathError{Op: "remove", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

// describe says whose a file is and its mode, for a message.
func describe(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "cannot be looked at"
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "is of mode " + fi.Mode().String()
	}
	return fmt.Sprintf("belongs to %s, mode %04o", userName(int(st.Uid)), st.Mode&0o7777)
}

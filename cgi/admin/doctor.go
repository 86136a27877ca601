package admin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hitcounter/cgi/internal/buildinfo"
	"hitcounter/cgi/rundir"
	"hitcounter/counter"
	"hitcounter/store"
)

// defaultMaxHash is the doctor's default limit for one hash at the pinned
// cost: past it, a login flood would hurt the rest of the site.
const defaultMaxHash = 250 * time.Millisecond

// doctorRuns is how many hashes the doctor times for its median.
const doctorRuns = 5

// runDoctor measures what a password check costs here, lists stored hashes
// at other costs, and checks the database and the runtime directory. It
// exits non-zero when a check fails: this is the warning that no upgrade
// gives when a cost becomes too slow for the hardware.
func runDoctor(e *cmdEnv, _ []string) error {
	d := doctor{w: e.stdout}
	fmt.Fprintln(d.w, buildinfo.Read())
	times, err := counter.TimeHash(counter.PasswordCost, doctorRuns)
	if err != nil {
		return err
	}
	median := medianOf(times)
	fmt.Fprintf(d.w, "bcrypt at the pinned cost %d: %s a check (median of %d here, %s to %s)\n",
		counter.PasswordCost, ms(median), len(times), ms(slices.Min(times)), ms(slices.Max(times)))
	fmt.Fprintf(d.w, "  a flood of wrong passwords gets at most %.0f checks a second per core; %d may run at once (COUNTER_BCRYPT_SLOTS)\n",
		float64(time.Second)/float64(median), e.cfg.BcryptSlots)
	if median > e.maxHash {
		d.problem("a check takes %s, over the limit of %s: this machine is too slow for cost %d", ms(median), ms(e.maxHash), counter.PasswordCost)
	}
	d.costTable(median)
	list, owner := d.database(e.cfg.DB)
	d.hashes(list, owner, median)
	d.runDir(e.cfg.RunDir, e.cfg.DB)
	d.fastCGISocket(e.socket)
	d.decoder()
	if list != nil {
		d.costs(e)
	}
	if d.problems > 0 {
		return fmt.Errorf("doctor: %d problem(s)", d.problems)
	}
	fmt.Fprintln(d.w, "all good")
	return nil
}

// doctor prints findings and counts problems.
type doctor struct {
	w        io.Writer
	problems int
}

func (d *doctor) problem(format string, args ...any) {
	d.problems++
	fmt.Fprintf(d.w, "PROBLEM: "+format+"\n", args...)
}

// database checks the database file and lists its counters, with the
// owner's password hash (nil when none is set).
func (d *doctor) database(path string) ([]counter.Info, []byte) {
	fi, err := os.Stat(path)
	if err != nil {
		d.problem("database %s: %v", path, err)
		return nil, nil
	}
	fmt.Fprintf(d.w, "database %s: %s\n", path, describe(fi))
	if fi.Mode().Perm()&0o004 != 0 {
		d.problem("database %s is readable by every user: chmod o-rwx it", path)
	}
	if dir, err := os.Stat(filepath.Dir(path)); err == nil && owner(dir) != owner(fi) {
		d.problem("database %s belongs to %s but its directory to %s: the web server's user must own both", path, owner(fi), owner(dir))
	}
	d.lockFile(store.LockPath(path), fi)
	d.besideDatabase(path, fi)
	db, err := store.Open(path, store.Options{ReadOnly: true, Wait: time.Second})
	if err != nil {
		d.problem("%v", err)
		return nil, nil
	}
	defer db.Close()
	list, err := db.List()
	if err != nil {
		d.problem("%v", err)
	}
	fmt.Fprintf(d.w, "  %d counter(s)\n", len(list))
	o, err := db.OwnerLogin()
	if err != nil {
		d.problem("%v", err)
	}
	return list, o.PasswordHash
}

// hashes lists stored hashes whose cost is not the pinned one, with what
// checking each costs here: the counters' and the owner's.
func (d *doctor) hashes(list []counter.Info, owner []byte, pinned time.Duration) {
	for _, c := range list {
		if c.Protected() {
			d.hash(c.Name, c.Name, c.PasswordHash, pinned)
		}
	}
	if owner != nil {
		d.hash("the owner's login", "-owner", owner, pinned)
	}
}

// hash reports the stored hash of what, which counter passwd args sets
// anew, if its cost is not the pinned one.
func (d *doctor) hash(what, args string, hash []byte, pinned time.Duration) {
	cost, err := counter.HashCost(hash)
	switch {
	case errors.Is(err, counter.ErrHashTooCostly):
		d.problem("%s: hash at cost %d is never checked (about %s a try here): counter passwd %s",
			what, cost, ms(pinned<<(cost-counter.PasswordCost)), args)
	case err != nil:
		d.problem("%s: the stored hash is not a bcrypt hash: counter passwd %s", what, args)
	case cost != counter.PasswordCost:
		t, err := counter.TimeHash(cost, 1)
		if err != nil {
			d.problem("%s: %v", what, err)
			return
		}
		fmt.Fprintf(d.w, "%s: hash at cost %d takes %s a check here; the next good login makes it cost %d\n",
			what, cost, ms(t[0]), counter.PasswordCost)
	}
}

// lockFile checks the side file that queues processes for the database:
// one they cannot open makes every open fall back to bbolt's own lock,
// which polls, and hits then wait longer than they need to.
func (d *doctor) lockFile(lock string, db os.FileInfo) {
	fi, err := os.Stat(lock)
	if errors.Is(err, os.ErrNotExist) {
		return // made by the first open, owned as the database is
	}
	if err != nil {
		d.problem("lock file %s: %v", lock, err)
		return
	}
	fmt.Fprintf(d.w, "lock file %s: %s\n", lock, describe(fi))
	if os.SameFile(fi, db) {
		d.problem("lock file %s is the database itself (a link to it): every hit would wait, then fail as busy; remove %s, it is made again", lock, lock)
		return
	}
	if owner(fi) != owner(db) {
		d.problem("lock file %s belongs to %s but the database to %s: remove it, it is made again", lock, owner(fi), owner(db))
	}
	// Never through a link, nor blocking on a FIFO: run as root, doctor
	// would otherwise open whatever another user put there.
	fd, err := syscall.Open(lock, syscall.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		d.problem("lock file %s cannot be opened by this user: %v", lock, &os.PathError{Op: "open", Path: lock, Err: err})
		return
	}
	syscall.Close(fd)
}

// decoder shows the rights and limits digitset add's decoder runs with, as
// it reports them itself: run by root, it must have dropped them.
func (d *doctor) decoder() {
	bin, err := findDecoder()
	if err != nil {
		fmt.Fprintf(d.w, "theme decoder: %v\n", err) // digitset add's only
		return
	}
	line, err := decoderStatus(bin)
	if err != nil {
		d.problem("theme decoder %s: %v", bin, err)
		return
	}
	fmt.Fprintf(d.w, "theme decoder %s: %s\n", bin, line)
	if strings.HasPrefix(line, "Uid=0,") || !strings.Contains(line, "CapEff=0000000000000000") || !strings.Contains(line, "NoNewPrivs=1") {
		d.problem("theme decoder %s keeps privileges it must drop: %s", bin, line)
	}
}

// runDir checks the runtime directory as every hit checks it (package
// rundir), that this user may make files in it, and then every file in
// it: each must be a plain file of its own, private, and the database
// owner's, or the hits and logins of that user cannot use it.
func (d *doctor) runDir(dir, db string) {
	fi, err := os.Lstat(dir)
	if err != nil {
		d.problem("runtime directory %s: %v (logins and telling reloads apart need it; /run is emptied at every boot, and the install has it made again: systemd's tmpfiles.d/counter.conf, or /etc/init.d/counter-rundir); make it now with: %s", dir, err, makeRunDir(dir, db))
		return
	}
	fmt.Fprintf(d.w, "runtime directory %s: %s\n", dir, describe(fi))
	run := rundir.New(dir, db, nil)
	defer run.Close()
	if err := run.Check(false); err != nil {
		d.problem("%v", err)
		return
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		d.problem("runtime directory %s is not writable by this user: %v", dir, err)
		return
	}
	f.Close()
	os.Remove(f.Name())
	names, err := run.Names()
	if err != nil {
		d.problem("%v", err)
		return
	}
	want, ok := ownerUID(fi)
	if dbInfo, err := os.Stat(db); err == nil {
		want, ok = ownerUID(dbInfo)
		// Run as root, doctor may write where the web server's user may
		// not: the directory must be the database owner's.
		if have, _ := ownerUID(fi); ok && have != want {
			d.problem("runtime directory %s belongs to %s but the database to %s: hits cannot make files in it; sudo chown %s: %s",
				dir, owner(fi), userName(want), userName(want), dir)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if what := unfitFile(path, want, ok); what != "" {
			d.problem("runtime file %s %s: hits and logins cannot use it; remove it, it is made again: sudo rm %s", path, what, path)
		}
	}
}

// besideDatabase checks every other file in the database's directory:
// each must be a plain file of the database owner's, not readable by
// every user. A link there is one root would follow.
func (d *doctor) besideDatabase(db string, dbInfo os.FileInfo) {
	dir := filepath.Dir(db)
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.problem("database directory %s: %v", dir, err)
		return
	}
	want, ok := ownerUID(dbInfo)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if path == db || path == store.LockPath(db) || e.IsDir() || e.Name() == "fastcgi.sock" {
			continue // checked on their own, or not a file
		}
		if what := unfitFile(path, want, ok); what != "" {
			d.problem("%s, beside the database, %s: sudo chown %s: %s, or remove it", path, what, userName(want), path)
		}
	}
}

// unfitFile says what is wrong with the file at path, which should be a
// plain, private file of its own, of user want (if known), and one this
// user may open; "" if nothing is.
func unfitFile(path string, want uint32, known bool) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "cannot be looked at: " + err.Error()
	}
	st, isUnix := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "is a link (never followed)"
	case fi.Mode()&fs.ModeSocket != 0:
		return "" // a FastCGI socket someone keeps here
	case !fi.Mode().IsRegular():
		return "is not a regular file"
	case isUnix && st.Nlink > 1:
		return "has another name too (a hard link)"
	case known && isUnix && st.Uid != want:
		return fmt.Sprintf("belongs to %s, not %s", owner(fi), userName(want))
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Sprintf("has mode %s: others may read it", fi.Mode().Perm())
	}
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Sprintf("(%s) cannot be opened by this user: %v", describe(fi), err)
	}
	syscall.Close(fd)
	return ""
}

func describe(fi os.FileInfo) string {
	return fmt.Sprintf("owner %s, mode %s", owner(fi), fi.Mode().Perm())
}

// makeRunDir is the command that makes the runtime directory dir for the
// web server's user, whose the database is.
func makeRunDir(dir, db string) string {
	uid, gid, ok := store.ServerUser(db)
	if !ok {
		uid, gid = os.Getuid(), os.Getgid()
	}
	group := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(group); err == nil {
		group = g.Name
	}
	return fmt.Sprintf("sudo install -d -m 0750 -o %s -g %s %s", userName(uint32(uid)), group, dir)
}

func owner(fi os.FileInfo) string {
	uid, ok := ownerUID(fi)
	if !ok {
		return "?"
	}
	return userName(uid)
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

package seen

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"hitcounter/cgi/rundir"
)

// dayFile is one day's table file, open between hits in a long-lived
// process, and the hash keyed with its salt.
type dayFile struct {
	day  time.Time // midnight UTC; zero for none
	dir  *rundir.Dir
	name string
	f    *os.File // nil until opened
	salt [saltSize]byte
	mac  hash.Hash // keyed with salt; nil until the header is read
}

func newDayFile(dir *rundir.Dir, day time.Time) dayFile {
	return dayFile{day: day, dir: dir, name: filePrefix + day.Format(dayLayout)}
}

// lock opens the file if need be and locks it: exclusively to write when
// create is set, and then a missing, short or damaged file is made anew
// (made reports that); shared to read otherwise, and then ok is false for
// a missing or damaged file. The caller unlocks when ok.
func (d *dayFile) lock(slots int, create bool) (ok, made bool, err error) {
	how := syscall.LOCK_SH
	if create {
		how = syscall.LOCK_EX
	}
	for range 3 {
		if d.f == nil {
			// Never through a link, and, under root, made for the web
			// server's user (package rundir).
			f, err := d.dir.OpenFile(d.name, create)
			if err != nil {
				if !create && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, rundir.ErrUnusable)) {
					return false, false, nil
				}
				return false, false, fmt.Errorf("seen: open: %w", err)
			}
			d.f = f
		}
		if err := flock(d.f, how); err != nil {
			return false, false, fmt.Errorf("seen: lock: %w", err)
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(int(d.f.Fd()), &st); err != nil {
			d.unlock()
			return false, false, fmt.Errorf("seen: stat: %w", err)
		}
		if st.Nlink == 0 {
			// Removed since we opened it (pruned, or the directory
			// cleaned): what others use is the file of that name now.
			d.unlock()
			d.close()
			continue
		}
		if st.Size == fileSize(slots) && d.readHeader(slots) {
			return true, false, nil
		}
		if !create {
			d.unlock()
			return false, false, nil
		}
		if err := d.make(slots); err != nil {
			d.unlock()
			return false, false, err
		}
		return true, true, nil
	}
	return false, false, errors.New("seen: the table file keeps being removed")
}

// readHeader reads the salt, and reports whether the header is good.
func (d *dayFile) readHeader(slots int) bool {
	var b [headerSize]byte
	if _, err := d.f.ReadAt(b[:], 0); err != nil {
		return false
	}
	salt, ok := decodeHeader(b[:], slots)
	if !ok {
		return false
	}
	if d.mac == nil || salt != d.salt {
		d.salt, d.mac = salt, hmac.New(sha256.New, salt[:])
	}
	return true
}

// make writes a new header with a fresh salt and empties every slot. It
// works in place, under the lock, so that every process that has the
// file open sees the new table.
func (d *dayFile) make(slots int) error {
	salt := newSalt()
	if err := d.f.Truncate(0); err != nil {
		return fmt.Errorf("seen: make table: %w", err)
	}
	if _, err := d.f.WriteAt(encodeHeader(slots, salt), 0); err != nil {
		return fmt.Errorf("seen: make table: %w", err)
	}
	if err := d.f.Truncate(fileSize(slots)); err != nil {
		return fmt.Errorf("seen: make table: %w", err)
	}
	d.salt, d.mac = salt, hmac.New(sha256.New, salt[:])
	return nil
}

// spot is where a visitor is in a table, or would go.
type spot struct {
	off   int64 // of its slot in the file; -1 when there is no room
	found bool
	last  uint32 // time of its last counted view, when found
}

// find looks k up in the locked file, one bucket at a time. buf holds a
// bucket.
func (d *dayFile) find(k key, slots int, buf []byte) (spot, error) {
	buckets := slots / bucketSlots
	first := bucketOf(k, slots)
	for p := range min(probes, buckets) {
		off := headerSize + int64((first+p)%buckets)*bucketSize
		if _, err := d.f.ReadAt(buf[:bucketSize], off); err != nil {
			return spot{}, fmt.Errorf("seen: read: %w", err)
		}
		for i := range bucketSlots {
			s := buf[i*slotSize : (i+1)*slotSize]
			last := binary.BigEndian.Uint32(s[keySize:])
			at := off + int64(i*slotSize)
			if last == 0 {
				// Slots fill in order and empty only with the whole
				// table: k is not further on.
				return spot{off: at}, nil
			}
			if key(s) == k {
				return spot{off: at, found: true, last: last}, nil
			}
		}
	}
	return spot{off: -1}, nil
}

// write records k's counted view at s, a spot that find returned.
func (d *dayFile) write(s spot, k key, last uint32, buf []byte) error {
	if _, err := d.f.WriteAt(encodeSlot(buf, k, last), s.off); err != nil {
		return fmt.Errorf("seen: write: %w", err)
	}
	return nil
}

func (d *dayFile) unlock() { flock(d.f, syscall.LOCK_UN) }

func (d *dayFile) close() error {
	if d.f == nil {
		return nil
	}
	err := d.f.Close()
	d.f = nil
	return err
}

// prune removes the tables of days before yesterday, and any of a day
// after tomorrow (left by a clock that was set back): a salt lives
// through the next day, and no longer.
func prune(dir *rundir.Dir, today time.Time) error {
	names, err := dir.Names()
	if err != nil {
		return fmt.Errorf("seen: remove old tables: %w", err)
	}
	oldest, newest := today.AddDate(0, 0, -1), today.AddDate(0, 0, 1)
	for _, name := range names {
		s, ok := strings.CutPrefix(name, filePrefix)
		if !ok {
			continue
		}
		day, err := time.Parse(dayLayout, s)
		if err != nil || !(day.Before(oldest) || day.After(newest)) {
			continue
		}
		if err := dir.Remove(name); err != nil {
			return fmt.Errorf("seen: remove old table: %w", err)
		}
	}
	return nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// full returns ErrFull the first time today's table is found full, in
// any process, and ErrStillFull after: a flag in the header (fullFlag)
// remembers it. The caller holds the file's lock.
func (d *dayFile) full() error {
	var b [1]byte
	if _, err := d.f.ReadAt(b[:], fullFlag); err != nil {
		return fmt.Errorf("seen: read the header: %w", err)
	}
	if b[0] != 0 {
		return ErrStillFull
	}
	if _, err := d.f.WriteAt([]byte{1}, fullFlag); err != nil {
		return fmt.Errorf("seen: write the header: %w", err)
	}
	return ErrFull
}

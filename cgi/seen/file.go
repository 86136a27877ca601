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
	"hitcounter/store/flock"
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
	// shareOf holds the shares of the counters looked up in the file of
	// this salt: a share, once given, is kept all day.
	shareOf map[string]int
	// said has bit s set once share s is known to have said it forgot a
	// visitor today (Verdict.Crowded).
	said uint64
}

func newDayFile(dir *rundir.Dir, day time.Time) dayFile {
	return dayFile{day: day, dir: dir, name: filePrefix + day.Format(dayLayout)}
}

// lock opens the file if need be and locks it: exclusively to write when
// create is set, and then a missing, short or damaged file is made anew
// (made reports that); shared to read otherwise, and then ok is false for
// a missing or damaged file. The caller unlocks when ok.
func (d *dayFile) lock(shareSlots int, create bool) (ok, made bool, err error) {
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
		if err := flock.Do(d.f, how); err != nil {
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
		if st.Size == fileSize(shareSlots) && d.readHeader(shareSlots) {
			return true, false, nil
		}
		if !create {
			d.unlock()
			return false, false, nil
		}
		if err := d.make(shareSlots); err != nil {
			d.unlock()
			return false, false, err
		}
		return true, true, nil
	}
	return false, false, errors.New("seen: the table file keeps being removed")
}

// readHeader reads the salt, and reports whether the header is good.
func (d *dayFile) readHeader(shareSlots int) bool {
	var b [headerSize]byte
	if _, err := d.f.ReadAt(b[:], 0); err != nil {
		return false
	}
	salt, ok := decodeHeader(b[:], shareSlots)
	if !ok {
		return false
	}
	if d.mac == nil || salt != d.salt {
		d.newSalt(salt)
	}
	return true
}

// newSalt makes salt the file's, forgetting what was known of the file
// of another.
func (d *dayFile) newSalt(salt [saltSize]byte) {
	d.salt, d.mac = salt, hmac.New(sha256.New, salt[:])
	d.shareOf, d.said = nil, 0
}

// make writes a new header with a fresh salt and empties every slot. It
// works in place, under the lock, so that every process that has the
// file open sees the new table.
func (d *dayFile) make(shareSlots int) error {
	salt := newSalt()
	if err := d.f.Truncate(0); err != nil {
		return fmt.Errorf("seen: make table: %w", err)
	}
	if _, err := d.f.WriteAt(encodeHeader(shareSlots, salt), 0); err != nil {
		return fmt.Errorf("seen: make table: %w", err)
	}
	if err := d.f.Truncate(fileSize(shareSlots)); err != nil {
		return fmt.Errorf("seen: make table: %w", err)
	}
	d.newSalt(salt)
	return nil
}

// maxShareOf bounds dayFile.shareOf, which holds the owner's counter
// names alone; past it, it starts again empty.
const maxShareOf = 1 << 12

// share returns the share of counter name in the locked file, and buf,
// scratch space, for reuse. With take, a counter not in the directory
// takes the next free entry; without, it has no share that day (ok is
// false) unless the directory is full. A counter that comes when the
// directory is full, or whose name cannot be stored, gets a share picked
// by a keyed hash of its name.
func (d *dayFile) share(name string, take bool, buf []byte) (s int, _ []byte, ok bool, err error) {
	if s, ok := d.shareOf[name]; ok {
		return s, buf, true, nil
	}
	s = -1
	if e, ok := dirEntry(name); ok {
		var dir [dirSize]byte
		if _, err := d.f.ReadAt(dir[:], dirAt); err != nil {
			return 0, buf, false, fmt.Errorf("seen: read the directory: %w", err)
		}
		for i := range shares {
			got := dir[i*nameSize : (i+1)*nameSize]
			if [nameSize]byte(got) == e {
				s = i
				break
			}
			if got[0] != 0 {
				continue
			}
			// Entries fill in order: name is not further on.
			if !take {
				return 0, buf, false, nil
			}
			if _, err := d.f.WriteAt(e[:], dirAt+int64(i*nameSize)); err != nil {
				return 0, buf, false, fmt.Errorf("seen: write the directory: %w", err)
			}
			s = i
			break
		}
	}
	if s < 0 {
		s, buf = hashedShare(d.mac, buf, name)
	}
	if d.shareOf == nil || len(d.shareOf) >= maxShareOf {
		d.shareOf = make(map[string]int)
	}
	d.shareOf[name] = s
	return s, buf, true, nil
}

// spot is where a visitor is in a table, or would go.
type spot struct {
	bucket int64  // the offset of its bucket in the file
	filled int    // how many of the bucket's slots are taken
	at     int    // its slot in the bucket; -1 when not found
	last   uint32 // time of its last counted view, when found
	via    Via    // what asked for that view, when found
}

func (s spot) found() bool { return s.at >= 0 }

// evict reports that the bucket is full and k not in it: to make room,
// its first slot is forgotten.
func (s spot) evict() bool { return s.at < 0 && s.filled == bucketSlots }

// find looks k up in its bucket, at off in the locked file, which it
// reads into buf.
func (d *dayFile) find(k key, off int64, buf []byte) (spot, error) {
	if _, err := d.f.ReadAt(buf[:bucketSize], off); err != nil {
		return spot{}, fmt.Errorf("seen: read: %w", err)
	}
	for i := range bucketSlots {
		s := buf[i*slotSize : (i+1)*slotSize]
		last := binary.BigEndian.Uint32(s[timeAt:])
		if last == 0 {
			// Slots fill in order and are never emptied: k is not
			// further on.
			return spot{bucket: off, filled: i, at: -1}, nil
		}
		if key(s[:keySize]) == k {
			filled := i + 1
			for filled < bucketSlots && binary.BigEndian.Uint32(buf[filled*slotSize+timeAt:]) != 0 {
				filled++
			}
			return spot{bucket: off, filled: filled, at: i, last: last, via: Via(s[viaAt])}, nil
		}
	}
	return spot{bucket: off, filled: bucketSlots, at: -1}, nil
}

// write records k's counted view in the bucket of s, which find read
// into buf, keeping its slots in the order they were written: k's slot
// moves to the end of the taken ones, and in a full bucket the first,
// that of the visitor whose last counted view is the oldest, is
// forgotten. via is what asked for the view. Only the slots that change
// are written.
func (d *dayFile) write(s spot, k key, last uint32, via Via, buf []byte) error {
	from, end := s.at, s.filled
	switch {
	case s.found():
	case s.filled < bucketSlots:
		from, end = s.filled, s.filled+1
	default:
		from = 0
	}
	copy(buf[from*slotSize:end*slotSize], buf[(from+1)*slotSize:end*slotSize])
	slot := buf[(end-1)*slotSize : end*slotSize]
	copy(slot, k[:])
	slot[viaAt] = byte(via)
	binary.BigEndian.PutUint32(slot[timeAt:], last)
	if _, err := d.f.WriteAt(buf[from*slotSize:end*slotSize], s.bucket+int64(from*slotSize)); err != nil {
		return fmt.Errorf("seen: write: %w", err)
	}
	return nil
}

// unwrite takes back the counted view that write recorded at s, which
// find read into buf: with prev, the visitor's last counted view before
// it (and prevVia, what asked for it), or, when prev is 0, by emptying
// his slot, the taken ones after it moving up so that they stay in the
// order they were written.
func (d *dayFile) unwrite(s spot, prev uint32, prevVia Via, buf []byte) error {
	from, end := s.at, s.filled
	if prev != 0 {
		buf[from*slotSize+viaAt] = byte(prevVia)
		binary.BigEndian.PutUint32(buf[from*slotSize+timeAt:], prev)
		end = from + 1
	} else {
		copy(buf[from*slotSize:end*slotSize], buf[(from+1)*slotSize:end*slotSize])
		clear(buf[(end-1)*slotSize : end*slotSize])
	}
	if _, err := d.f.WriteAt(buf[from*slotSize:end*slotSize], s.bucket+int64(from*slotSize)); err != nil {
		return fmt.Errorf("seen: write: %w", err)
	}
	return nil
}

// join adds via to what asked for the view of the visitor found at s,
// which find read into buf: the view's time stays as it was.
func (d *dayFile) join(s spot, via Via, buf []byte) error {
	at := s.at*slotSize + viaAt
	buf[at] |= byte(via)
	if _, err := d.f.WriteAt(buf[at:at+1], s.bucket+int64(at)); err != nil {
		return fmt.Errorf("seen: write: %w", err)
	}
	return nil
}

// crowded records that share s forgot a visitor, and reports whether it
// is the first time today, in any process: a flag in the file
// (flagsAt) remembers it. The caller holds the file's lock.
func (d *dayFile) crowded(s int) (bool, error) {
	if d.said&(1<<s) != 0 {
		return false, nil
	}
	var b [1]byte
	if _, err := d.f.ReadAt(b[:], flagsAt+int64(s)); err != nil {
		return false, fmt.Errorf("seen: read the flags: %w", err)
	}
	if b[0] == 0 {
		if _, err := d.f.WriteAt([]byte{1}, flagsAt+int64(s)); err != nil {
			return false, fmt.Errorf("seen: write the flags: %w", err)
		}
	}
	d.said |= 1 << s
	return b[0] == 0, nil
}

func (d *dayFile) unlock() { flock.Do(d.f, syscall.LOCK_UN) }

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

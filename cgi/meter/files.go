package meter

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"hitcounter/store/flock"
)

// The layout of the files in the runtime directory, which the package
// comment (doc.go) draws.
const (
	magic      = "counter-costs\x00\x00\x00"
	version    = 1
	headerSize = 64
	countsAt   = 32
	histBytes  = Buckets * 4
	buildAt    = headerSize + int(NumKinds)*2*histBytes
	buildSize  = 128
	fileSize   = buildAt + buildSize

	dayPrefix = "costs-"
	buildName = "costs-build"
)

// Dir is the runtime directory the files are in (cgi/rundir.Dir): it
// opens, reads and removes them without following a link. It comes in as
// an interface because the store, which keeps this package's records,
// may import nothing of the binary's helpers.
type Dir interface {
	Names() ([]string, error)
	ReadFile(name string, max int) ([]byte, error)
	Remove(name string) error
	// OpenFd opens name to read and write, made if create and missing.
	OpenFd(name string, create bool) (int, error)
}

// add counts one request in c.
func add(c counts, k Kind, wall, cpu time.Duration) {
	base := headerSize + int(k)*2*histBytes
	c.add(base + 4*Bucket(wall))
	if cpu > 0 {
		c.add(base + histBytes + 4*Bucket(cpu))
	}
}

// figuresOf reads kind k's histograms from c.
func figuresOf(c counts, k Kind) Figures {
	var wall, cpu Histogram
	base := headerSize + int(k)*2*histBytes
	for i := range Buckets {
		wall[i] = c.load(base + 4*i)
		cpu[i] = c.load(base + histBytes + 4*i)
	}
	return FiguresOf(&wall, &cpu)
}

// counts are a file's counts: a shared mapping, a file read and written
// word by word, or a file's bytes read whole.
type counts interface {
	add(off int) uint32 // adds one to the word at off, returns the sum
	load(off int) uint32
	release()
}

// mapping is a file mapped shared, added to with atomic adds.
type mapping []byte

// word is the uint32 at off, 4-byte aligned as the mapping is page aligned.
func (m mapping) word(off int) *uint32 { return (*uint32)(unsafe.Pointer(&m[off])) }
func (m mapping) add(off int) uint32   { return atomic.AddUint32(m.word(off), 1) }
func (m mapping) load(off int) uint32  { return atomic.LoadUint32(m.word(off)) }
func (m mapping) release()             { syscall.Munmap(m) }

// wordFile is a file added to word by word with pread and pwrite, on the
// bare descriptor: an os.File would register it with the poller, four
// system calls more for every file a CGI process opens.
type wordFile struct{ fd int }

func (w wordFile) load(off int) uint32 {
	var b [4]byte
	if n, err := syscall.Pread(w.fd, b[:], int64(off)); err != nil || n != 4 {
		return 0
	}
	return binary.NativeEndian.Uint32(b[:])
}

func (w wordFile) add(off int) uint32 {
	n := w.load(off) + 1
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], n)
	syscall.Pwrite(w.fd, b[:], int64(off))
	return n
}

func (w wordFile) release() { syscall.Close(w.fd) }

// fileBytes are a file's bytes, read whole; add is not theirs.
type fileBytes []byte

func (b fileBytes) load(off int) uint32 { return binary.NativeEndian.Uint32(b[off:]) }
func (b fileBytes) add(off int) uint32  { panic("meter: adding to a file read whole") }
func (b fileBytes) release()            {}

// Read returns the figures of the day files in dir, oldest first, and the
// build's first requests: what is not in the database yet.
func Read(dir Dir) (days []Day, build Build, err error) {
	names, err := dir.Names()
	if err != nil {
		return nil, build, fmt.Errorf("costs: %w", err)
	}
	for _, name := range names {
		// Only the costs' own files: the runtime directory also holds the
		// visitor tables, a mebibyte each.
		if !strings.HasPrefix(name, dayPrefix) {
			continue
		}
		b, err := dir.ReadFile(name, fileSize)
		if err != nil || !validHeader(b) {
			continue
		}
		if name == buildName {
			build.ID = buildID(b)
			for _, k := range Kinds() {
				build.Kinds[k] = figuresOf(fileBytes(b), k)
			}
			continue
		}
		if d, ok := strings.CutPrefix(name, dayPrefix); ok && len(d) == len(time.DateOnly) {
			day := Day{Date: d}
			for _, k := range Kinds() {
				day.Kinds[k] = figuresOf(fileBytes(b), k)
			}
			days = append(days, day)
		}
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Date < days[j].Date })
	return days, build, nil
}

func validHeader(b []byte) bool {
	return len(b) == fileSize && string(b[:16]) == magic &&
		binary.NativeEndian.Uint32(b[16:]) == version &&
		binary.NativeEndian.Uint32(b[20:]) == uint32(NumKinds) &&
		binary.NativeEndian.Uint32(b[24:]) == Buckets
}

func buildID(b []byte) string {
	n := int(b[buildAt])
	return string(b[buildAt+1 : buildAt+1+min(n, buildSize-1)])
}

// openFile opens the file name in dir, mapped or not, making it (or making it
// anew, if it is damaged, or if build is not "" and names another build)
// with an exclusive lock held while it writes the header; made says it
// did.
func openFile(dir Dir, name, build string, mapped bool) (c counts, made bool, err error) {
	// Never through a link, and made for the web server's user under root.
	fd, err := dir.OpenFd(name, true)
	if err != nil {
		return nil, false, err
	}
	// whole opens the file's counts if it is whole and of this build.
	whole := func() (counts, error) {
		head := make([]byte, fileSize+1)
		if n, _ := syscall.Pread(fd, head, 0); n != fileSize || !validHeader(head[:n]) || (build != "" && buildID(head) != build) {
			return nil, nil
		}
		if !mapped {
			return wordFile{fd}, nil
		}
		mem, err := syscall.Mmap(fd, 0, fileSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			return nil, fmt.Errorf("map %s: %w", name, err)
		}
		return mapping(mem), nil
	}
	done := func(c counts, made bool, err error) (counts, bool, error) {
		if _, isFile := c.(wordFile); !isFile {
			syscall.Close(fd) // a mapping holds the file; an error, none
		}
		return c, made, err
	}
	if c, err := whole(); c != nil || err != nil {
		return done(c, false, err)
	}
	// New, damaged or another build's: made anew, under a lock so that
	// two processes do not both make it.
	if err := flock.FD(fd, syscall.LOCK_EX); err != nil {
		return done(nil, false, err)
	}
	// Unlocked before done closes the descriptor: a mapping keeps the
	// file open, and its lock with it.
	done0 := done
	done = func(c counts, made bool, err error) (counts, bool, error) {
		flock.FD(fd, syscall.LOCK_UN)
		return done0(c, made, err)
	}
	if c, err := whole(); c != nil || err != nil {
		return done(c, false, err) // another process made it meanwhile
	}
	fresh := make([]byte, fileSize)
	copy(fresh, magic)
	binary.NativeEndian.PutUint32(fresh[16:], version)
	binary.NativeEndian.PutUint32(fresh[20:], uint32(NumKinds))
	binary.NativeEndian.PutUint32(fresh[24:], Buckets)
	if build != "" {
		id := build[:min(len(build), buildSize-1)]
		fresh[buildAt] = byte(len(id))
		copy(fresh[buildAt+1:], id)
	}
	// Written over in place, never cut to nothing: another process may
	// have it mapped.
	if n, err := syscall.Pwrite(fd, fresh, 0); err != nil || n != fileSize {
		return done(nil, false, fmt.Errorf("write %s: %d bytes, %v", name, n, err))
	}
	if err := syscall.Ftruncate(fd, int64(fileSize)); err != nil {
		return done(nil, false, err)
	}
	if c, err = whole(); c == nil && err == nil {
		err = fmt.Errorf("open %s: made, but not whole", name)
	}
	return done(c, err == nil, err)
}

func release(c *counts) {
	if *c != nil {
		(*c).release()
		*c = nil
	}
}

// ReadWall returns the wall-time histograms of each kind in the day file
// of date (YYYY-MM-DD), and whether that file could be read: the day's
// requests so far, as the metrics show them.
func ReadWall(dir Dir, date string) (wall [NumKinds]Histogram, ok bool) {
	b, err := dir.ReadFile(dayPrefix+date, fileSize)
	if err != nil || !validHeader(b) {
		return wall, false
	}
	for k := range NumKinds {
		base := headerSize + int(k)*2*histBytes
		for i := range Buckets {
			wall[k][i] = fileBytes(b).load(base + 4*i)
		}
	}
	return wall, true
}

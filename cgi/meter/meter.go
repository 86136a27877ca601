// Package meter times the counter's work on the machine it runs on: each
// request's wall and CPU time by kind (package counter/costs), and each
// commit's, into a day's histograms in the runtime directory, shared by
// every CGI process and a FastCGI process. The process that starts a new
// UTC day's file folds the days before it into the history in the
// database, and the request that completes a new build's first
// costs.BuildRequests of a kind has them judged against the build before.
//
// # Files
//
// In the runtime directory (COUNTER_RUN_DIR, on tmpfs), mode 0600:
//
//	costs-YYYY-MM-DD   a day's histograms
//	costs-build        the running build's first costs.BuildRequests
//	                   requests of each kind
//
// Both have the same layout, in the machine's own byte order (the files
// never leave it):
//
//	offset  size  field
//	0       16    magic "counter-costs" and three zero bytes
//	16      4     format version, 1
//	20      4     kinds, costs.NumKinds
//	24      4     buckets, costs.Buckets
//	28      4     zero
//	32      24    costs-build: the requests of each kind so far (uint32
//	              each), which go on past the ones in its histograms
//	56      8     zero
//	64      ...   for each kind, a histogram of wall times then one of CPU
//	              times: costs.Buckets uint32 counts each
//	4672    128   costs-build: the build's ID, a length byte then the
//	              text; zero in a day's file
//
// Counts are added with atomic adds to a shared mapping of the file: no
// lock, no lost update, and a hit never waits on another. A file of the
// wrong size or with a bad header is made anew. There is no fsync: a
// reboot loses the day's histograms, never a count, and the days folded
// before it are in the database.
package meter

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"hitcounter/counter/costs"
)

const (
	magic      = "counter-costs\x00\x00\x00"
	version    = 1
	headerSize = 64
	countsAt   = 32
	histBytes  = costs.Buckets * 4
	buildAt    = headerSize + int(costs.NumKinds)*2*histBytes
	buildSize  = 128
	fileSize   = buildAt + buildSize

	dayPrefix = "costs-"
	buildName = "costs-build"
)

// Hooks are what a Meter calls on the database; either may be nil.
type Hooks struct {
	// Fold adds whole days to the history and returns their warnings.
	Fold func(days []costs.Day) ([]string, error)
	// Build records a build's first requests of a kind and returns the
	// warning, if any.
	Build func(id string, k costs.Kind, f costs.Figures) (string, error)
	// Warn writes a line to the owner's error log.
	Warn func(line string)
}

// Meter records into the runtime directory. It is safe for concurrent
// use; a CGI process makes one and closes it, a FastCGI process keeps
// one.
type Meter struct {
	dir   string
	build string
	now   func() time.Time
	hooks Hooks

	mu      sync.Mutex
	date    string // the day mapped, "" for none
	day     []byte // its mapping
	bmem    []byte // costs-build's mapping, nil until mapped
	bdead   bool   // costs-build could not be mapped: do without
	folding string // this process made the day's file: fold the days before it
}

// New returns a Meter on the runtime directory dir for the build named
// build ("" records no build figures), with its clock.
func New(dir, build string, now func() time.Time, hooks Hooks) *Meter {
	return &Meter{dir: dir, build: build, now: now, hooks: hooks}
}

// Record adds one request of kind k that took wall and cpu (0 for
// unknown). A file it cannot open or map is skipped: measuring never
// fails a request.
//
// A commit is recorded from inside the database's write, with the file
// open: its Record touches nothing but the mappings, and leaves the fold
// of a new day and the build's judgement to the next request's.
func (m *Meter) Record(k costs.Kind, wall, cpu time.Duration) {
	if m == nil || k >= costs.NumKinds {
		return
	}
	day, build, fold := m.mapped(k != costs.Commit)
	if day != nil {
		add(day, k, wall, cpu)
	}
	if fold != "" {
		m.fold(fold)
	}
	if build == nil || k == costs.Commit {
		return
	}
	n := atomic.AddUint32(word(build, countsAt+4*int(k)), 1)
	if n > costs.BuildRequests {
		return
	}
	add(build, k, wall, cpu)
	if n == costs.BuildRequests && m.hooks.Build != nil {
		f := figuresOf(build, k)
		warning, err := m.hooks.Build(m.build, k, f)
		switch {
		case err != nil:
			m.warn(fmt.Sprintf("costs: build figures: %v", err))
		case warning != "":
			m.warn("costs: " + warning)
		}
	}
}

// Close lets go of the mappings.
func (m *Meter) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	unmap(&m.day)
	unmap(&m.bmem)
	m.date = ""
}

func (m *Meter) warn(line string) {
	if m.hooks.Warn != nil {
		m.hooks.Warn(line)
	}
}

// mapped returns today's mapping and the build's, mapping them first if
// need be; either is nil if it cannot be had. When this process made
// today's file and may fold, fold is the date to fold the days before.
func (m *Meter) mapped(mayFold bool) (day, build []byte, fold string) {
	date := m.now().UTC().Format(time.DateOnly)
	m.mu.Lock()
	defer m.mu.Unlock()
	if date != m.date {
		unmap(&m.day)
		var made bool
		// A file that cannot be had (no runtime directory: doctor says
		// so) is done without, in silence: a log line a request would
		// bury the owner's log.
		m.day, made, _ = mapFile(filepath.Join(m.dir, dayPrefix+date), "")
		m.date = date
		if made {
			m.folding = date
		}
	}
	if mayFold && m.folding != "" {
		fold, m.folding = m.folding, ""
	}
	if m.bmem == nil && !m.bdead && m.build != "" {
		var err error
		if m.bmem, _, err = mapFile(filepath.Join(m.dir, buildName), m.build); err != nil {
			m.bdead = true
		}
	}
	return m.day, m.bmem, fold
}

// fold hands the day files before date to hooks.Fold and removes them
// once they are in the database. Only the process that made date's file
// calls it, once a day.
func (m *Meter) fold(date string) {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return
	}
	var days []costs.Day
	var paths []string
	for _, e := range entries {
		d, ok := strings.CutPrefix(e.Name(), dayPrefix)
		if !ok || len(d) != len(time.DateOnly) || d >= date {
			continue
		}
		p := filepath.Join(m.dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil || !validHeader(b) {
			os.Remove(p) // damaged: nothing to keep
			continue
		}
		day := costs.Day{Date: d, Build: m.build}
		for _, k := range costs.Kinds() {
			day.Kinds[k] = figuresOf(b, k)
		}
		days = append(days, day)
		paths = append(paths, p)
	}
	if len(days) == 0 || m.hooks.Fold == nil {
		return
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Date < days[j].Date })
	warnings, err := m.hooks.Fold(days)
	if err != nil {
		m.warn(fmt.Sprintf("costs: fold %d day(s) into the database: %v", len(days), err))
		return // kept for the next day's first request
	}
	for _, p := range paths {
		os.Remove(p)
	}
	for _, w := range warnings {
		m.warn("costs: " + w)
	}
}

// add counts one request in a mapping.
func add(mem []byte, k costs.Kind, wall, cpu time.Duration) {
	base := headerSize + int(k)*2*histBytes
	atomic.AddUint32(word(mem, base+4*costs.Bucket(wall)), 1)
	if cpu > 0 {
		atomic.AddUint32(word(mem, base+histBytes+4*costs.Bucket(cpu)), 1)
	}
}

// figuresOf reads kind k's histograms from a mapping or a file's bytes.
func figuresOf(mem []byte, k costs.Kind) costs.Figures {
	var wall, cpu costs.Histogram
	base := headerSize + int(k)*2*histBytes
	for i := range costs.Buckets {
		wall[i] = atomic.LoadUint32(word(mem, base+4*i))
		cpu[i] = atomic.LoadUint32(word(mem, base+histBytes+4*i))
	}
	return costs.FiguresOf(&wall, &cpu)
}

// word is the uint32 at off in mem, which is 4-byte aligned (a mapping is
// page aligned; a file read into memory is copied aligned by figuresOf's
// callers' allocation).
func word(mem []byte, off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&mem[off]))
}

// Read returns the figures of the day files in dir, oldest first, and the
// build's first requests: what is not in the database yet.
func Read(dir string) (days []costs.Day, build costs.Build, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, build, fmt.Errorf("costs: %w", err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !validHeader(b) {
			continue
		}
		if e.Name() == buildName {
			build.ID = buildID(b)
			for _, k := range costs.Kinds() {
				build.Kinds[k] = figuresOf(b, k)
			}
			continue
		}
		if d, ok := strings.CutPrefix(e.Name(), dayPrefix); ok && len(d) == len(time.DateOnly) {
			day := costs.Day{Date: d}
			for _, k := range costs.Kinds() {
				day.Kinds[k] = figuresOf(b, k)
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
		binary.NativeEndian.Uint32(b[20:]) == uint32(costs.NumKinds) &&
		binary.NativeEndian.Uint32(b[24:]) == costs.Buckets
}

func buildID(b []byte) string {
	n := int(b[buildAt])
	return string(b[buildAt+1 : buildAt+1+min(n, buildSize-1)])
}

// mapFile maps the file at path, making it (or making it anew, if it is
// damaged, or if build is not "" and names another build) with an
// exclusive lock held while it writes the header; made says it did.
func mapFile(path, build string) (mem []byte, made bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fd := int(f.Fd())
	// mapValid maps the file if it is whole and of this build.
	mapValid := func() ([]byte, error) {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil || st.Size != int64(fileSize) {
			return nil, err
		}
		mem, err := syscall.Mmap(fd, 0, fileSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			return nil, fmt.Errorf("map %s: %w", filepath.Base(path), err)
		}
		if validHeader(mem) && (build == "" || buildID(mem) == build) {
			return mem, nil
		}
		syscall.Munmap(mem)
		return nil, nil
	}
	if mem, err := mapValid(); mem != nil || err != nil {
		return mem, false, err
	}
	// New, damaged or another build's: made anew, under a lock so that
	// two processes do not both make it.
	if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
		return nil, false, err
	}
	defer syscall.Flock(fd, syscall.LOCK_UN)
	if mem, err := mapValid(); mem != nil || err != nil {
		return mem, false, err // another process made it meanwhile
	}
	fresh := make([]byte, fileSize)
	copy(fresh, magic)
	binary.NativeEndian.PutUint32(fresh[16:], version)
	binary.NativeEndian.PutUint32(fresh[20:], uint32(costs.NumKinds))
	binary.NativeEndian.PutUint32(fresh[24:], costs.Buckets)
	if build != "" {
		id := build[:min(len(build), buildSize-1)]
		fresh[buildAt] = byte(len(id))
		copy(fresh[buildAt+1:], id)
	}
	if _, err := f.WriteAt(fresh, 0); err != nil {
		return nil, false, err
	}
	if err := f.Truncate(int64(fileSize)); err != nil {
		return nil, false, err
	}
	if mem, err = mapValid(); mem == nil && err == nil {
		err = fmt.Errorf("map %s: made, but not whole", filepath.Base(path))
	}
	return mem, err == nil, err
}

func unmap(mem *[]byte) {
	if *mem != nil {
		syscall.Munmap(*mem)
		*mem = nil
	}
}

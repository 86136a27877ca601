package meter

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

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

// Hooks are what a Meter calls on the database; any may be nil.
type Hooks struct {
	// Fold adds whole days to the history and returns their warnings.
	Fold func(days []Day) ([]string, error)
	// Build records a build's first requests of a kind and returns the
	// warning, if any.
	Build func(id string, k Kind, f Figures) (string, error)
	// Warn writes a line to the owner's error log.
	Warn func(line string)
	// MaxLine is the longest line Warn writes whole (0: no bound): the
	// day's warnings are gathered in as few lines as hold them.
	MaxLine int
}

// Meter records into the runtime directory. It is safe for concurrent
// use; a CGI process makes one and closes it, a FastCGI process keeps
// one.
type Meter struct {
	dir   Dir
	build string
	now   func() time.Time
	hooks Hooks

	mapped bool // map the files (a long-lived process) or read and write them

	mu      sync.Mutex
	date    string // the day opened, "" for none
	day     counts // its counts, nil if it could not be opened
	bmem    counts // costs-build's, nil until opened
	bdead   bool   // costs-build could not be opened: do without
	folding string // this process made the day's file: fold the days before it
	// A long-lived process's requests find the day's and the build's
	// counts here without the lock, until the day ends; a mapping of a
	// day before is kept one day more, for a request still adding to it.
	ready atomic.Pointer[opened]
	stale counts
	// Requests being timed (Start), and how many have begun.
	inFlight, begun atomic.Int64
}

// opened is what Record needs on its way, for the day from..until (Unix
// seconds).
type opened struct {
	from, until int64
	day, build  counts
}

// New returns a Meter on the runtime directory dir for the build named
// build ("" records no build figures), with its clock, for a process that
// records one request and exits (CGI): it reads and writes the words it
// adds to with pread and pwrite, which costs a process less than mapping
// the files; two processes adding to one word at the same instant may
// lose one of the adds.
func New(dir Dir, build string, now func() time.Time, hooks Hooks) *Meter {
	return &Meter{dir: dir, build: build, now: now, hooks: hooks}
}

// NewMapped is New for a long-lived process: it maps the files and adds
// with atomic adds, losing nothing.
func NewMapped(dir Dir, build string, now func() time.Time, hooks Hooks) *Meter {
	return &Meter{dir: dir, build: build, now: now, hooks: hooks, mapped: true}
}

// Record adds one request of kind k that took wall and cpu (0 for
// unknown). A file it cannot open or map is skipped: measuring never
// fails a request.
//
// A commit is recorded from inside the database's write, with the file
// open: its Record touches nothing but the mappings, and leaves the fold
// of a new day and the build's judgement to the next request's.
func (m *Meter) Record(k Kind, wall, cpu time.Duration) {
	if m == nil || k >= NumKinds {
		return
	}
	day, build, fold := m.opened(k != Commit)
	if day != nil {
		add(day, k, wall, cpu)
	}
	if fold != "" {
		m.fold(fold)
	}
	if build == nil || k == Commit {
		return
	}
	// Past the build's first requests, one read says so.
	if build.load(countsAt+4*int(k)) >= BuildRequests {
		return
	}
	n := build.add(countsAt + 4*int(k))
	if n > BuildRequests {
		return
	}
	add(build, k, wall, cpu)
	if n == BuildRequests && m.hooks.Build != nil {
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

// Pending returns the figures not folded into the history yet: today's
// so far, from this process's mapping when it has one (no file opened),
// else the day files read from the directory.
func (m *Meter) Pending() []Day {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	if m.mapped && m.day != nil && m.date == m.now().UTC().Format(time.DateOnly) {
		d := Day{Date: m.date, Build: m.build}
		for _, k := range Kinds() {
			d.Kinds[k] = figuresOf(m.day, k)
		}
		m.mu.Unlock()
		return []Day{d}
	}
	m.mu.Unlock()
	days, _, _ := Read(m.dir)
	return days
}

// Close lets go of the mappings.
func (m *Meter) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ready.Store(nil)
	release(&m.day)
	release(&m.bmem)
	release(&m.stale)
	m.date = ""
}

func (m *Meter) warn(line string) {
	if m.hooks.Warn != nil {
		m.hooks.Warn(line)
	}
}

// opened returns today's counts and the build's, opening them first if
// need be; either is nil if it cannot be had. When this process made
// today's file and may fold, fold is the date to fold the days before.
func (m *Meter) opened(mayFold bool) (day, build counts, fold string) {
	now := m.now()
	if o := m.ready.Load(); o != nil && now.Unix() >= o.from && now.Unix() < o.until {
		return o.day, o.build, ""
	}
	date := now.UTC().Format(time.DateOnly)
	m.mu.Lock()
	defer m.mu.Unlock()
	if date < m.date {
		// Read before midnight by a request that took the lock after
		// another had moved on, or a clock stepped back: never a day
		// back, and never a mapping unmapped under a request.
		return m.day, m.bmem, ""
	}
	if date != m.date {
		if m.mapped {
			release(&m.stale)
			m.stale, m.day = m.day, nil
		}
		release(&m.day)
		var made bool
		// A file that cannot be had (no runtime directory: doctor says
		// so) is done without, in silence: a log line a request would
		// bury the owner's log.
		m.day, made, _ = openFile(m.dir, dayPrefix+date, "", m.mapped)
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
		if m.bmem, _, err = openFile(m.dir, buildName, m.build, m.mapped); err != nil {
			m.bdead = true
		}
	}
	if m.mapped && m.folding == "" && m.day != nil && (m.bmem != nil || m.bdead || m.build == "") {
		from, _ := time.Parse(time.DateOnly, date)
		m.ready.Store(&opened{from: from.Unix(), until: from.AddDate(0, 0, 1).Unix(), day: m.day, build: m.bmem})
	}
	return m.day, m.bmem, fold
}

// fold hands the day files before date to hooks.Fold and removes them
// once they are in the database. Only the process that made date's file
// calls it, once a day.
func (m *Meter) fold(date string) {
	names, err := m.dir.Names()
	if err != nil {
		return
	}
	var days []Day
	var paths []string
	for _, name := range names {
		d, ok := strings.CutPrefix(name, dayPrefix)
		if !ok || len(d) != len(time.DateOnly) || d >= date {
			continue
		}
		b, err := m.dir.ReadFile(name, fileSize)
		if err != nil || !validHeader(b) {
			m.dir.Remove(name) // damaged, or not a file of ours: nothing to keep
			continue
		}
		day := Day{Date: d, Build: m.build}
		for _, k := range Kinds() {
			day.Kinds[k] = figuresOf(fileBytes(b), k)
		}
		days = append(days, day)
		paths = append(paths, name)
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
	for _, name := range paths {
		m.dir.Remove(name)
	}
	for _, line := range warnLines(warnings, m.hooks.MaxLine) {
		m.warn(line)
	}
}

// warnLines are the day's warnings as the error log gets them: each
// "DATE: what" once, the date said once on each line, in as few lines of
// at most max bytes as hold them whole (a warning too long for a line of
// its own goes alone, and the log cuts it).
func warnLines(warnings []string, max int) []string {
	const head, tail = "costs: ", " (counter doctor)"
	if max <= 0 {
		max = math.MaxInt
	}
	var lines []string
	var b strings.Builder
	last := ""
	end := func() {
		if b.Len() > 0 {
			lines = append(lines, head+b.String()+tail)
			b.Reset()
		}
	}
	for _, w := range warnings {
		date, what, ok := strings.Cut(w, ": ")
		if !ok {
			date, what = "", w
		}
		dated := what // the warning as a line, or a new day on one, starts
		if date != "" {
			dated = date + ": " + what
		}
		add := dated
		switch {
		case b.Len() == 0:
		case date == last:
			add = "; " + what
		default:
			add = "; " + dated
		}
		if b.Len() > 0 && len(head)+b.Len()+len(add)+len(tail) > max {
			end()
			add = dated
		}
		b.WriteString(add)
		last = date
	}
	end()
	return lines
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
	if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
		return done(nil, false, err)
	}
	// Unlocked before done closes the descriptor: a mapping keeps the
	// file open, and its lock with it.
	done0 := done
	done = func(c counts, made bool, err error) (counts, bool, error) {
		syscall.Flock(fd, syscall.LOCK_UN)
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

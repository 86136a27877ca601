package meter

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

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

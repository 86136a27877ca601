package imagehit

import (
	"cmp"
	"fmt"
	"runtime"
	"sync"
	"time"

	"hitcounter/cgi/internal/buildinfo"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/meter"
	"hitcounter/cgi/rundir"
	"hitcounter/cgi/seen"
	"hitcounter/counter"
	"hitcounter/counter/draw"
	"hitcounter/store"
)

// Process is what a process needs to serve hits, set up in one place for
// every way a hit arrives: the hit binary's CGI and the full tool's CGI,
// FastCGI and local server. It is the composition root of a hit; the full
// tool's handlers (cgi/web) build on it.
type Process struct {
	Cfg config.Config
	Log *logline.Logger
	Run *rundir.Dir // the runtime directory, shared with other processes
	// Visitors is who was seen today: the table in Run, or on a store in
	// a cluster the table its hosts share (config.Config.SharedVisitors).
	Visitors seen.Visitors
	// Meter records what requests cost, in Run; nil when the owner turned
	// the costs off.
	Meter *meter.Meter
	// Hits counts a hit: a transaction of its own in a CGI process, a
	// shared commit (store.Batcher) in a long-lived one.
	Hits Hitter
	// Long-lived only, nil in a CGI process, which exits after one request.
	Waits  *store.LockWaits // bounds the flocks left blocked on a stuck holder
	Glyphs *draw.GlyphCache // glyphs drawn once
	Turns  *SetTurns        // digit sets drawn a few at a time
	batch  *store.Batcher   // Hits, to close
	long   bool             // serves many requests
	mu     sync.Mutex       // guards commits
	// A CGI process's commits, recorded after its request: a commit is
	// heard with the database still locked, and the lock is not held for
	// the costs' files.
	commits []time.Duration
}

// lockWaits is how many flocks a long-lived process may leave blocked on
// a stuck holder at once: each holds an OS thread and a file.
const lockWaits = 4

// NewProcess sets up the hits of a process that serves one request (a CGI
// process) or many (longLived). Close it once every request is answered.
func NewProcess(cfg config.Config, log *logline.Logger, longLived bool) *Process {
	p := &Process{Cfg: cfg, Log: log, long: longLived}
	p.Run = rundir.New(cfg.RunDir, cfg.DB, log)
	p.Visitors = seen.Open(p.Run)
	if store.IsRemote(cfg.DB) && cfg.SharedVisitors != nil {
		// Hosts that share the counts share who they saw, or a visitor
		// seen by two of them is two.
		p.Visitors = cfg.SharedVisitors(cfg.DB, cmp.Or(cfg.Wait, store.DefaultWait))
	}
	if longLived {
		// Readers and the batcher wait for a stuck holder with a few
		// blocked flocks between them, not one per request.
		p.Waits = store.NewLockWaits(lockWaits)
		p.Glyphs = new(draw.GlyphCache)
		p.Turns = NewSetTurns(runtime.GOMAXPROCS(0))
	}
	if !cfg.NoCosts {
		open := meter.New // a few reads and writes for one request
		if longLived {
			open = meter.NewMapped
		}
		p.Meter = open(p.Run, buildinfo.Read().ID(), cfg.Now, MeterHooks(p.Open, cfg.Now, log))
	}
	if longLived {
		p.batch = store.NewBatcher(cfg.DB, p.Options(false))
		p.Hits = p.batch
	} else {
		p.Hits = OneShot{Open: p.Open, Log: log}
	}
	return p
}

// LongLived says whether p serves many requests.
func (p *Process) LongLived() bool { return p.long }

// Options says how a request opens the file for one transaction.
func (p *Process) Options(readOnly bool) store.Options {
	o := store.Options{ReadOnly: readOnly, Wait: p.Cfg.Wait, Waits: p.Waits, Remote: p.Cfg.Remote}
	if !readOnly {
		o.MaxSize = p.Cfg.MaxDBSize
		if p.Meter != nil {
			o.Committed = p.recordCommit
		}
	}
	return o
}

// Open opens the file for one transaction of a request.
func (p *Process) Open(readOnly bool) (*store.DB, error) {
	return store.Open(p.Cfg.DB, p.Options(readOnly))
}

// Server returns the image server of p.
func (p *Process) Server() *Server {
	return &Server{Cfg: p.Cfg, Log: p.Log, Hits: p.Hits, Visitors: p.Visitors, Glyphs: p.Glyphs, Open: p.Open, SetTurns: p.Turns}
}

// Serve answers image request r for counter name in image type typ, as
// Server.Serve does, and turns a panic into the error image and one log
// line: the recovery of an image's answer in both binaries.
func (p *Process) Serve(r Request, name string, typ counter.ImageType) (ans Answer) {
	s := p.Server()
	defer func() {
		if v := recover(); v != nil {
			ans = s.Refuse(r, typ, fmt.Errorf("panic: %s", logline.PanicSummary(v)))
		}
	}()
	return s.Serve(r, name, typ)
}

// ServeCount answers the script's count r for counter name, as
// Server.ServeCount does, and turns a panic into a 500 and one log line.
func (p *Process) ServeCount(r Request, name string) (ans Answer) {
	s := p.Server()
	defer func() {
		if v := recover(); v != nil {
			ans = s.refuseCount(r, fmt.Errorf("panic: %s", logline.PanicSummary(v)))
		}
	}()
	return s.ServeCount(r, name)
}

// recordCommit is store.Options.Committed: the time of a commit, kept for
// the end of the request in a CGI process, recorded at once (into a
// mapping) in a long-lived one.
func (p *Process) recordCommit(d time.Duration) {
	if p.long {
		p.Meter.Record(meter.Commit, d, 0)
		return
	}
	p.mu.Lock()
	p.commits = append(p.commits, d)
	p.mu.Unlock()
}

// Finished records the costs of a CGI process's one request, once it is
// answered or the file is closed: its wall time since started and the
// process's CPU under kind k (unless counted is false), and the commits it
// heard.
func (p *Process) Finished(k meter.Kind, counted bool, started time.Time) {
	if p.Meter == nil {
		return
	}
	if counted {
		p.Meter.Record(k, time.Since(started), meter.ProcessCPU())
	}
	p.mu.Lock()
	commits := p.commits
	p.commits = nil
	p.mu.Unlock()
	for _, d := range commits {
		p.Meter.Record(meter.Commit, d, 0)
	}
}

// Close waits for the hits in hand to be committed and stops what p
// started. No request may be served after it.
func (p *Process) Close() {
	if p.batch != nil {
		p.batch.Close()
		if err := p.Visitors.Close(); err != nil {
			p.Log.Printf("visitor table: %v", err)
		}
	}
	p.Meter.Close()
	p.Run.Close()
}

package store

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// maxBatch bounds the hits that share one transaction.
const maxBatch = 256

// gatherWait bounds how long a batch waits for hits that recent batches
// suggest are on their way: a fraction of one commit's fsyncs.
const gatherWait = time.Millisecond

// Batcher counts hits for a long-lived process (FastCGI, the local
// server) by group commit: hits that arrive while a batch is being
// committed wait and go into the next one, so that many hits at once share
// one open of the file, one commit and one pair of fsyncs. Each Hit returns
// only once its own hit is on disk.
//
// The file and its lock are held for one batch at a time, never between
// batches, so that CGI processes and the admin commands get their turn
// within their own bounded wait.
type Batcher struct {
	path  string
	opts  Options
	queue chan *pendingHit
	done  chan struct{}
	// reads queues the hits' HitFacts reads, which share read-only opens
	// the same way; readsDone is closed when its loop ends.
	reads     chan *pendingRead
	readsDone chan struct{}

	// judged caches, by counter, what its hits are judged by, as the
	// last batch that counted on it read it (judgedFor).
	mu     sync.Mutex
	judged map[string]cachedFacts

	batches atomic.Int64 // transactions begun, for tests and benchmarks
}

// judgedFor is how long a counter's settings, as a committed batch read
// them, stand in for a read of their own: a change by the admin commands
// (or the owner key made) is seen by a long-lived process's hits within
// it, and a steady flow of hits costs one read-only open a second, not one
// a batch.
const judgedFor = time.Second

// maxJudged bounds the cache: past it, it starts again empty. Only
// counters that exist enter it.
const maxJudged = 1024

type cachedFacts struct {
	settings counter.Settings
	ownerKey []byte
	at       time.Time
}

type pendingRead struct {
	visit Visit
	facts HitFacts
	err   error
	done  chan struct{}
}

type pendingHit struct {
	visit Visit

	counted Counted
	err     error
	done    chan struct{}
}

// NewBatcher starts a batcher for the database at path, opened with opts
// for each batch. Close it when no more hits will come.
func NewBatcher(path string, opts Options) *Batcher {
	opts.ReadOnly, opts.Create = false, false
	b := &Batcher{path: path, opts: opts, queue: make(chan *pendingHit, maxBatch), done: make(chan struct{}),
		reads: make(chan *pendingRead, maxBatch), readsDone: make(chan struct{})}
	go b.run()
	go b.readLoop()
	return b
}

// HitFacts reads what hit v is judged by, as DB.HitFacts does: the reads
// of hits that arrive together share one read-only open of the file, so
// that a long-lived process does not open it twice for each hit.
func (b *Batcher) HitFacts(v Visit) (HitFacts, error) {
	b.mu.Lock()
	c, ok := b.judged[v.Name]
	b.mu.Unlock()
	if ok && time.Since(c.at) < judgedFor {
		j := HitFacts{Settings: c.settings, OwnerKey: c.ownerKey}
		j.Page, _ = pageOf(j.Settings, v)
		return j, nil
	}
	r := &pendingRead{visit: v, done: make(chan struct{})}
	b.reads <- r
	<-r.done
	if r.err == nil {
		b.remember(v.Name, r.facts.Settings, r.facts.OwnerKey)
	}
	return r.facts, r.err
}

// remember caches what counter name's hits are judged by, as read now.
func (b *Batcher) remember(name string, s counter.Settings, ownerKey []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.judged == nil || len(b.judged) >= maxJudged {
		b.judged = make(map[string]cachedFacts)
	}
	b.judged[name] = cachedFacts{settings: s, ownerKey: ownerKey, at: time.Now()}
}

// readLoop serves the HitFacts reads: the first queued and those queued
// with it, in one read-only open. Reads wait for no one: a batch is what
// came while the last one was read.
func (b *Batcher) readLoop() {
	defer close(b.readsDone)
	opts := b.opts
	opts.ReadOnly, opts.Committed = true, nil
	batch := make([]*pendingRead, 0, maxBatch)
	for {
		first, ok := <-b.reads
		if !ok {
			return
		}
		batch = append(batch[:0], first)
	more:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-b.reads:
				if !ok {
					break more
				}
				batch = append(batch, r)
			default:
				break more
			}
		}
		db, err := Open(b.path, opts)
		for _, r := range batch {
			if err != nil {
				r.err = err
			} else {
				r.facts, r.err = db.HitFacts(r.visit)
			}
			close(r.done)
		}
		if err == nil {
			db.Close()
		}
	}
}

// Hit counts one plain view as DB.Hit does, in whatever batch it falls
// into.
func (b *Batcher) Hit(name string, now time.Time, refHost string) (uint64, error) {
	c, err := b.Visit(Visit{Name: name, Now: now, RefHost: refHost})
	return c.Shown, err
}

// Visit counts one hit as DB.Visit does, in whatever batch it falls into.
func (b *Batcher) Visit(v Visit) (Counted, error) {
	h := &pendingHit{visit: v, done: make(chan struct{})}
	b.queue <- h
	<-h.done
	return h.counted, h.err
}

// Close waits for the hits in hand to be committed and stops the batcher.
// No Hit, Visit or HitFacts may be called after it.
func (b *Batcher) Close() {
	close(b.queue)
	close(b.reads)
	<-b.done
	<-b.readsDone
}

func (b *Batcher) run() {
	defer close(b.done)
	batch := make([]*pendingHit, 0, maxBatch)
	var sizes [8]int // of the last batches, for gather
	for n := 0; ; n++ {
		first, ok := <-b.queue
		if !ok {
			return
		}
		batch = b.gather(append(batch[:0], first), slices.Max(sizes[:]))
		sizes[n%len(sizes)] = len(batch)
		b.commit(batch)
		for _, h := range batch {
			close(h.done)
		}
	}
}

// gather adds the hits already queued to batch and, while it holds fewer
// than the recent batches did (want), waits up to gatherWait for the rest.
//
// Without the wait, a few steady clients fall out of step: the first of
// them back starts a commit alone, and the others then wait a whole commit
// for the next one. Waiting a little for as many hits as came together
// lately keeps them in one commit. A lone visitor never waits: the recent
// batches were as small as his.
func (b *Batcher) gather(batch []*pendingHit, want int) []*pendingHit {
	var timeout <-chan time.Time
	for len(batch) < maxBatch {
		select {
		case h, ok := <-b.queue:
			if !ok {
				return batch
			}
			batch = append(batch, h)
			continue
		default:
		}
		if len(batch) >= want {
			return batch
		}
		if timeout == nil {
			timeout = time.After(gatherWait)
		}
		select {
		case h, ok := <-b.queue:
			if !ok {
				return batch
			}
			batch = append(batch, h)
		case <-timeout:
			return batch
		}
	}
	return batch
}

// errNothingCounted rolls back a batch whose every hit was on a counter
// that does not exist: committing it would still write the file and sync
// it, for names a visitor made up.
var errNothingCounted = errors.New("store: no hit in the batch was counted")

// commit writes a batch in one transaction. A hit on a counter that does
// not exist, or that names a set the file does not hold, writes nothing
// and fails alone; if anything else fails, each
// hit is tried in a transaction of its own, so that one bad hit cannot
// cost the others theirs.
func (b *Batcher) commit(batch []*pendingHit) {
	b.batches.Add(1)
	db, err := Open(b.path, b.opts)
	if err != nil {
		for _, h := range batch {
			h.err = err
		}
		return
	}
	defer db.Close()
	b.commitIn(db, batch)
}

// commitIn is commit's transaction on db. A batch too large for the
// engine to commit at once (etcd's --max-txn-ops) goes in halves, each
// answered once its own half is committed; a hit alone that is (its day's
// fold of a big site) goes in the engine's steps. A batch whose commit may or
// may not have applied is answered with the error, never tried again,
// so that no hit is counted twice, and so is one whose engine did not
// answer (a cluster without a majority).
func (b *Batcher) commitIn(db *DB, batch []*pendingHit) {
	var ownerKey []byte
	err := db.write(func(tx kv.Tx) error {
		if a, ok := tx.(interface{ AtOnce() }); ok && len(batch) > 1 {
			// Halves are cheaper than steps, which hold the others up.
			a.AtOnce()
		}
		if meta := tx.Bucket(bucketMeta); meta != nil {
			if k := meta.Get(keyOwnerKey); k != nil {
				ownerKey = slices.Clone(k)
			}
		}
		counted := false
		for _, h := range batch {
			h.counted, h.err = visitTx(tx, h.visit)
			if h.err != nil && !errors.Is(h.err, counter.ErrNotFound) && !errors.Is(h.err, counter.ErrNoDigitSet) {
				return h.err
			}
			counted = counted || h.err == nil
		}
		if !counted {
			return errNothingCounted
		}
		return nil
	})
	if errors.Is(err, errNothingCounted) {
		err = nil // rolled back: each hit has its ErrNotFound or ErrNoDigitSet
	}
	switch {
	case err == nil:
		for _, h := range batch {
			if h.err != nil {
				h.err = fmt.Errorf("store: hit %q: %w", h.visit.Name, h.err)
				continue
			}
			// Committed: what it read is as fresh as a read of its own.
			b.remember(h.visit.Name, h.counted.settings, ownerKey)
		}
	case errors.Is(err, kv.ErrTxTooLarge) && len(batch) > 1:
		b.commitIn(db, batch[:len(batch)/2])
		b.commitIn(db, batch[len(batch)/2:])
	case errors.Is(err, kv.ErrUnknownOutcome), errors.Is(err, kv.ErrUnavailable):
		// Unknown: a hit tried again could count twice. Unavailable:
		// each hit alone would wait its own wait for the same cluster,
		// one after the other, the last of them many waits.
		for _, h := range batch {
			h.counted, h.err = Counted{}, fmt.Errorf("store: hit %q: %w", h.visit.Name, err)
		}
	case len(batch) == 1:
		batch[0].counted, batch[0].err = Counted{}, fmt.Errorf("store: hit %q: %w", batch[0].visit.Name, err)
	default:
		for _, h := range batch {
			h.counted, h.err = db.Visit(h.visit)
		}
	}
}

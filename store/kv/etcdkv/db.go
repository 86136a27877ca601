// Package etcdkv is the etcd engine of package kv: a store's buckets as
// key prefixes in an etcd cluster, each transaction serializable.
//
// A transaction reads the cluster as it was at one revision and keeps its
// writes in memory; it commits them as one etcd transaction, on condition
// that the commit clock (one key every commit changes) is as it was at
// that revision. So commits are serializable as bbolt's are, one after
// the other; a transaction that finds another's commit in between runs
// again on the new state. A commit whose answer is lost (a timeout, a
// leader lost) is sent again unchanged: the same condition lets at most
// one of them apply, and the clock, which holds the transaction's own id,
// says which one did. So a transaction is never applied twice.
//
// One etcd transaction holds at most --max-txn-ops writes and
// --max-request-bytes: a larger commit goes in steps that stay all or
// nothing (big.go), or, if its caller asks for it at once (AtOnce), is
// refused with kv.ErrTxTooLarge.
package etcdkv

import (
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/store/kv"
)

// Defaults for Options.
const (
	// DefaultMaxTxnOps is etcd's own default for --max-txn-ops.
	DefaultMaxTxnOps = 128
	// DefaultMaxRequestBytes stays under etcd's default
	// --max-request-bytes (1.5 MiB) by what a request adds around the
	// keys and values.
	DefaultMaxRequestBytes = 1<<20 + 1<<19 - 64<<10
	DefaultTimeout         = 5 * time.Second
	// DefaultQuotaBytes is etcd's own default for
	// --quota-backend-bytes: past it, the cluster raises NOSPACE and
	// takes no more writes.
	DefaultQuotaBytes = 2 << 30
)

// Options says where in the cluster a store is and what it may send.
type Options struct {
	Prefix          string        // the store's keys start with it; not empty
	MaxTxnOps       int           // the cluster's --max-txn-ops; 0 means DefaultMaxTxnOps
	MaxRequestBytes int           // the cluster's --max-request-bytes, less a margin; 0 means the default
	Timeout         time.Duration // longest wait for one answer of the cluster; 0 means DefaultTimeout
	ReadOnly        bool          // refuse Update
	QuotaBytes      int64         // the members' --quota-backend-bytes; 0 means DefaultQuotaBytes
	// TLS is how the client connects, nil for plain connections: a
	// failure to reach the cluster is explained with it.
	TLS *tls.Config
}

// DB is a store in an etcd cluster.
type DB struct {
	cli      *clientv3.Client
	where    string // the endpoints, for errors: which cluster
	own      bool   // Close closes cli
	prefix   string
	clock    string
	pending  string // the large commit under way, if any (big.go)
	staged   string // the prefix of a large commit's steps
	maxOps   int
	maxBytes int
	timeout  time.Duration
	readOnly bool
	quota    int64
	tls      *tls.Config
	// probeMu guards the last probe of a cluster that did not answer:
	// when, and what it found (unreachable).
	probeMu   sync.Mutex
	probed    time.Time
	probeSaid string
	// writer lets one transaction of this process write at a time, as
	// bbolt does: two would only make each other run again.
	writer sync.Mutex
}

// New is the store under o.Prefix in the cluster cli reaches. Close
// leaves cli open: one client can serve many stores and opens.
func New(cli *clientv3.Client, o Options) (*DB, error) {
	if o.Prefix == "" {
		return nil, errors.New("etcdkv: no prefix")
	}
	d := &DB{
		cli:      cli,
		where:    strings.Join(cli.Endpoints(), ","),
		prefix:   o.Prefix,
		clock:    o.Prefix + string(rune(tagClock)) + "commit",
		pending:  o.Prefix + string(rune(tagClock)) + "pending",
		staged:   o.Prefix + string(rune(tagClock)) + "staged/",
		maxOps:   o.MaxTxnOps,
		maxBytes: o.MaxRequestBytes,
		timeout:  o.Timeout,
		readOnly: o.ReadOnly,
		quota:    o.QuotaBytes,
		tls:      o.TLS,
	}
	if d.quota <= 0 {
		d.quota = DefaultQuotaBytes
	}
	if d.maxOps <= 0 {
		d.maxOps = DefaultMaxTxnOps
	}
	if d.maxBytes <= 0 {
		d.maxBytes = DefaultMaxRequestBytes
	}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	return d, nil
}

// Dial connects to the cluster cfg names and opens the store under
// o.Prefix; Close disconnects.
func Dial(cfg clientv3.Config, o Options) (*DB, error) {
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdkv: connect to %v: %w", cfg.Endpoints, err)
	}
	d, err := New(cli, o)
	if err != nil {
		cli.Close()
		return nil, err
	}
	d.own = true
	return d, nil
}

// MaxOps is how many writes one etcd transaction of the cluster takes.
func (d *DB) MaxOps() int { return d.maxOps }

// Close disconnects, if Dial connected.
func (d *DB) Close() error {
	if d.own {
		return d.cli.Close()
	}
	return nil
}

// View runs fn on the store as it is now.
func (d *DB) View(fn func(kv.Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), d.txTimeout())
	defer cancel()
	t, err := d.begin(ctx, false)
	if err != nil {
		return err
	}
	err = fn(t)
	if t.err != nil {
		err = t.err
	}
	// A revision compacted away while fn read fails the view: a view's
	// fn, unlike Update's, need not be safe to run twice.
	return err
}

// Update runs fn and commits what it wrote, running it again as long as
// another commit came between its reads and its commit.
func (d *DB) Update(fn func(kv.Tx) error) error {
	if d.readOnly {
		return kv.ErrTxNotWritable
	}
	d.writer.Lock()
	defer d.writer.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), d.txTimeout())
	defer cancel()
	for attempt := 0; ; attempt++ {
		t, err := d.begin(ctx, true)
		if err != nil {
			return err
		}
		err = fn(t)
		if t.err != nil {
			err = t.err
		}
		if err == nil {
			var done bool
			if done, err = d.commit(ctx, t); err == nil && done {
				return nil
			}
		}
		// A read at a revision compacted away runs fn again on a newer
		// one; a commit whose outcome is unknown never runs again, as it
		// may have applied.
		if err != nil && (!errors.Is(err, rpctypes.ErrCompacted) || errors.Is(err, kv.ErrUnknownOutcome)) {
			return err
		}
		// Another commit came between: wait a little, so that two
		// processes do not keep meeting, and run fn on the new state.
		select {
		case <-ctx.Done():
			return fmt.Errorf("etcdkv: commit: still conflicting after %d runs: %w", attempt+1, ctx.Err())
		case <-time.After(time.Duration(rand.Int64N(int64(time.Millisecond) << min(attempt, 5)))):
		}
	}
}

// txTimeout bounds a whole transaction, its runs again included: each
// answer of the cluster has d.timeout, and a large transaction (a fold,
// an import's step) waits for many.
func (d *DB) txTimeout() time.Duration { return max(10*d.timeout, 30*time.Second) }

// begin starts a transaction at the cluster's current revision. A large
// commit whose steps are being applied is finished first, by whoever
// comes (rollForward); a write waits for one being staged, which a read
// need not: nothing of it is applied yet.
func (d *DB) begin(ctx context.Context, writable bool) (*tx, error) {
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		rctx, cancel := context.WithTimeout(ctx, d.timeout)
		// The clock and the pending key, read at one revision: nothing
		// else sorts between them.
		resp, err := d.cli.Get(rctx, d.clock, clientv3.WithRange(d.pending+"\x00"))
		cancel()
		if err != nil {
			return nil, d.failed("begin", err)
		}
		t := &tx{db: d, ctx: ctx, writable: writable, rev: resp.Header.Revision,
			writes: map[string]write{}, seen: map[string]entry{}, loaded: map[string]bool{}}
		var pending string
		for _, kv := range resp.Kvs {
			switch string(kv.Key) {
			case d.clock:
				t.clockRev = kv.ModRevision
			case d.pending:
				pending = string(kv.Value)
			}
		}
		switch {
		case pending == "":
			return t, nil
		case strings.HasPrefix(pending, pendingApplying):
			if err := d.rollForward(ctx, pending); err != nil {
				return nil, err
			}
			continue
		case !writable:
			return t, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("etcdkv: cluster %s: begin: a large commit still staged: %w", d.where, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// commit sends t's writes on condition that no commit came since t's
// reads. It reports false, with no error, when one did. Writes that one
// etcd transaction cannot hold go in steps (commitLarge), unless t must
// commit at once.
func (d *DB) commit(ctx context.Context, t *tx) (bool, error) {
	if len(t.order) == 0 && len(t.dels) == 0 {
		return true, nil
	}
	ops, size, err := d.ops(t)
	if err != nil {
		return false, err
	}
	if !d.fits(len(ops)+1, size) {
		if t.atOnce {
			return false, fmt.Errorf("etcdkv: commit of %d operations and about %d bytes, the cluster takes %d and %d at once: %w",
				len(ops)+1, size, d.maxOps, d.maxBytes, kv.ErrTxTooLarge)
		}
		return d.commitLarge(ctx, t, ops)
	}
	tag := newTag()
	then := make([]clientv3.Op, 0, len(ops)+1)
	for _, o := range ops {
		then = append(then, o.etcd())
	}
	return d.commitOnce(ctx, t.rev, t.clockRev, tag, append(then, clientv3.OpPut(d.clock, tag)))
}

// fits says whether n operations of size bytes go in one etcd
// transaction.
func (d *DB) fits(n, size int) bool { return n <= d.maxOps && size <= d.maxBytes }

func newTag() string {
	id := make([]byte, 16)
	crand.Read(id)
	return hex.EncodeToString(id)
}

// commitOnce sends then, which puts tag in the clock, on condition that
// the clock is as it was at clockRev (its mod revision at rev, the
// transaction's snapshot) and no large commit is under way. It reports
// false, with no error, when the condition failed and no send of it
// applied.
func (d *DB) commitOnce(ctx context.Context, rev, clockRev int64, tag string, then []clientv3.Op) (bool, error) {
	cond := []clientv3.Cmp{
		clientv3.Compare(clientv3.ModRevision(d.clock), "=", clockRev),
		clientv3.Compare(clientv3.Version(d.pending), "=", 0),
	}
	// A visitor waits for the answer: the sends again stop after two
	// waits, and the outcome is then unknown.
	ctx, cancel := context.WithTimeout(ctx, 2*d.timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, d.timeout)
		resp, err := d.cli.Txn(rctx).If(cond...).Then(then...).Commit()
		cancel()
		switch {
		case err == nil && resp.Succeeded:
			return true, nil
		case err == nil && attempt == 0:
			return false, nil // no earlier send that could have applied
		case err == nil:
			return d.appliedEarlier(ctx, rev, tag)
		case definite(err):
			return false, fmt.Errorf("etcdkv: cluster %s: commit: %w", d.where, err)
		}
		// The answer was lost: send the same again. Its condition lets
		// only one of the two apply.
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("etcdkv: cluster %s: commit: %w (%w)", d.where, kv.ErrUnknownOutcome, err)
		case <-time.After(time.Duration(10<<min(attempt, 6)) * time.Millisecond):
		}
	}
}

// failed wraps err, a read's failure, as kv.ErrUnavailable unless the
// cluster refused the read as it stood (a user or a permission): a
// cluster that cannot be reached, or has no majority to answer, is
// unavailable, and a long-lived process answers its hits with the
// dashes until it is back. What each endpoint does on a connection of
// its own is added, when one of them refuses it (whyUnreachable).
func (d *DB) failed(what string, err error) error {
	if definite(err) {
		return fmt.Errorf("etcdkv: cluster %s: %s: %w", d.where, what, err)
	}
	if why := d.unreachable(); why != "" {
		return fmt.Errorf("etcdkv: cluster %s: %s: %w (%w; %s)", d.where, what, kv.ErrUnavailable, err, why)
	}
	return fmt.Errorf("etcdkv: cluster %s: %s: %w: is a majority of its members up? (%w)", d.where, what, kv.ErrUnavailable, err)
}

// definite says whether a failed commit surely did not apply: the
// cluster refused it as it stood.
func definite(err error) bool {
	for _, e := range []error{rpctypes.ErrTooManyOps, rpctypes.ErrRequestTooLarge,
		rpctypes.ErrDuplicateKey, rpctypes.ErrPermissionDenied, rpctypes.ErrNoSpace,
		rpctypes.ErrAuthFailed, rpctypes.ErrInvalidAuthToken, rpctypes.ErrUserEmpty} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// appliedEarlier says, after a commit's condition failed, whether an
// earlier send of that very commit, whose answer was lost, had applied:
// then the clock's first change after rev, the transaction's snapshot,
// is to tag. (The clock did not change between its mod revision and rev;
// rev is recent, where the clock's own revision may be older than the
// history compaction keeps.)
func (d *DB) appliedEarlier(ctx context.Context, rev int64, tag string) (bool, error) {
	ev, err := d.firstChange(ctx, d.clock, rev)
	if err != nil {
		return false, fmt.Errorf("etcdkv: cluster %s: commit: %w", d.where, err)
	}
	return string(ev.Kv.Value) == tag, nil
}

// firstChange is key's first change after rev. A failed watch is an
// unknown outcome and only that: its error (a compacted revision, say)
// is no reason to run a transaction again, which could apply it twice,
// so it is not wrapped.
func (d *DB) firstChange(ctx context.Context, key string, rev int64) (*clientv3.Event, error) {
	wctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	for w := range d.cli.Watch(wctx, key, clientv3.WithRev(rev+1)) {
		if err := w.Err(); err != nil {
			return nil, fmt.Errorf("%w (%v)", kv.ErrUnknownOutcome, err)
		}
		if len(w.Events) > 0 {
			return w.Events[0], nil
		}
	}
	return nil, fmt.Errorf("%w (%w)", kv.ErrUnknownOutcome, wctx.Err())
}

// ops are t's writes as etcd operations, in a form etcd takes: no key
// both put and inside a range deleted, no two on one key, so that they
// may go in any order and in any number of etcd transactions. size is
// about the bytes of a request that holds them all.
func (d *DB) ops(t *tx) (ops []op, size int, err error) {
	dels := merge(t.dels)
	inDel := func(k string) bool {
		for _, s := range dels {
			if s.has(k) {
				return true
			}
		}
		return false
	}
	for _, k := range t.order {
		w := t.writes[k]
		switch {
		case !w.del:
			ops = append(ops, op{kind: opPut, key: k, val: w.encode()})
		case inDel(k) || seenAbsent(t, k):
			// Nothing there to delete.
		default:
			ops = append(ops, op{kind: opDelete, key: k})
		}
	}
	for _, s := range dels {
		// Cut the range around the keys put inside it.
		from := s.from
		for i := sort.SearchStrings(t.order, s.from); i < len(t.order) && t.order[i] < s.to; i++ {
			if k := t.order[i]; !t.writes[k].del {
				ops = appendRange(ops, from, k)
				from = k + "\x00"
			}
		}
		ops = appendRange(ops, from, s.to)
	}
	for _, o := range ops {
		size += o.size()
	}
	if size > maxBigBytes {
		return nil, 0, fmt.Errorf("etcdkv: commit of %d operations and about %d bytes, more than %d: %w",
			len(ops), size, maxBigBytes, kv.ErrTxTooLarge)
	}
	return ops, size, nil
}

// seenAbsent says whether a read at rev found k missing.
func seenAbsent(t *tx, k string) bool {
	e, ok := t.seen[k]
	return ok && !e.exists
}

func appendRange(ops []op, from, to string) []op {
	if from >= to {
		return ops
	}
	return append(ops, op{kind: opRange, key: from, val: to})
}

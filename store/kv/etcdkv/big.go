package etcdkv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/store/kv"
)

// A transaction whose writes one etcd transaction cannot hold (a day's
// fold of a big site's pages, the last step of an import, a copy) is
// committed in steps, and stays all or nothing, and serializable:
//
//  1. Its turn: one etcd transaction, on the same condition as any
//     commit, changes the clock and sets the pending key to "s" and its
//     id, under a lease the committer keeps alive. Every commit's
//     condition wants no pending key, so no other write comes in until
//     it is done; reads go on, at revisions where none of it is applied.
//  2. Staged: its operations, in pieces that each fit one etcd
//     transaction, are put under the staged prefix, each on condition
//     that the turn is still its own. A committer that dies here loses
//     its lease, so its turn ends, and nothing of it is applied; the next
//     large commit removes the pieces it left.
//  3. Committed: one etcd transaction sets the pending key to "a" and its
//     id, without the lease. From here it is applied whatever happens.
//  4. Applied: each piece, with the removal of its staged key, in one etcd
//     transaction on condition that the pending key is still "a" and its
//     id; then the pending key is removed. Whoever begins a transaction
//     and finds the pending key at "a" applies the pieces left first
//     (rollForward), the committer's own process or any other. The
//     operations of one commit touch no key twice, so a piece applied
//     twice by two of them leaves what it left once, and none applies
//     once the pending key is gone.
//
// So a large commit that stops midway, whatever the step, is either not
// applied at all (before 3) or applied whole by the next transaction of
// any process (after 3), never half, never twice.

const (
	pendingStaging  = "s"
	pendingApplying = "a"
	// maxBigWrites and maxBigBytes bound a large commit, which the
	// client holds in memory and the cluster holds twice until applied.
	maxBigWrites = 1 << 20
	maxBigBytes  = 128 << 20
	// turnTTL is the lease of a turn, in seconds: how long the others
	// wait for a committer that died while staging.
	turnTTL = 10
)

// op is one operation of a commit: a put of key to val, a delete of key,
// or a delete of the range [key, val).
type op struct {
	kind     byte
	key, val string
}

const (
	opPut    = 'p'
	opDelete = 'd'
	opRange  = 'r'
)

// size is about what op takes in a request.
func (o op) size() int { return len(o.key) + len(o.val) + 16 }

func (o op) etcd() clientv3.Op {
	switch o.kind {
	case opPut:
		return clientv3.OpPut(o.key, o.val)
	case opRange:
		return clientv3.OpDelete(o.key, clientv3.WithRange(o.val))
	}
	return clientv3.OpDelete(o.key)
}

// encodeOps writes ops as a staged piece: per op its kind, then key and
// value, each after its length.
func encodeOps(ops []op) string {
	var b []byte
	for _, o := range ops {
		b = append(b, o.kind)
		b = binary.AppendUvarint(b, uint64(len(o.key)))
		b = append(b, o.key...)
		b = binary.AppendUvarint(b, uint64(len(o.val)))
		b = append(b, o.val...)
	}
	return string(b)
}

func decodeOps(s string) ([]op, error) {
	var ops []op
	for len(s) > 0 {
		o := op{kind: s[0]}
		s = s[1:]
		for _, f := range []*string{&o.key, &o.val} {
			n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
			if w <= 0 || uint64(len(s)-w) < n {
				return nil, errors.New("etcdkv: a staged piece cut short")
			}
			*f, s = s[w:w+int(n)], s[w+int(n):]
		}
		ops = append(ops, o)
	}
	return ops, nil
}

// pieces cuts ops into pieces that each go in one etcd transaction, with
// the removal of their staged key.
func (d *DB) pieces(ops []op) [][]op {
	var out [][]op
	size := 0
	for i, o := range ops {
		n := len(out)
		if n == 0 || len(out[n-1])+2 > d.maxOps || size+o.size()+len(d.staged)+64 > d.maxBytes {
			out, size = append(out, nil), 0
			n++
		}
		out[n-1] = append(out[n-1], ops[i])
		size += o.size()
	}
	return out
}

func (d *DB) stagedKey(id string, i int) string { return fmt.Sprintf("%s%s/%08d", d.staged, id, i) }

// commitLarge commits t's ops in steps (see above). It reports false,
// with no error, when another commit came since t's reads, or its turn
// ended before it was committed: t then runs again.
func (d *DB) commitLarge(ctx context.Context, t *tx, ops []op) (bool, error) {
	id := newTag()
	lease, err := d.cli.Grant(ctx, turnTTL)
	if err != nil {
		return false, fmt.Errorf("etcdkv: cluster %s: commit: %w", d.where, err)
	}
	kctx, stop := context.WithCancel(ctx)
	defer stop()
	alive, err := d.cli.KeepAlive(kctx, lease.ID)
	if err != nil {
		return false, fmt.Errorf("etcdkv: cluster %s: commit: %w", d.where, err)
	}
	go func() {
		for range alive {
		}
	}()
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		d.cli.Revoke(rctx, lease.ID)
		cancel()
	}()
	staging := pendingStaging + id
	done, err := d.commitOnce(ctx, t.rev, t.clockRev, id, []clientv3.Op{
		clientv3.OpPut(d.clock, id), clientv3.OpPut(d.pending, staging, clientv3.WithLease(lease.ID))})
	if err != nil || !done {
		return false, err
	}
	ours := clientv3.Compare(clientv3.Value(d.pending), "=", staging)
	// What an earlier committer that died left.
	ok, rev, err := d.step(ctx, ours, clientv3.OpDelete(d.staged, clientv3.WithPrefix()))
	if err != nil || !ok {
		return false, err
	}
	pieces := d.pieces(ops)
	for i, p := range pieces {
		if ok, rev, err = d.step(ctx, ours, clientv3.OpPut(d.stagedKey(id, i), encodeOps(p))); err != nil || !ok {
			return false, err
		}
	}
	applying := pendingApplying + id
	if ok, _, err = d.step(ctx, ours, clientv3.OpPut(d.pending, applying)); err != nil || !ok {
		// A send whose answer was lost may have applied: then the
		// pending key's first change after the staging is to applying.
		if ok, err = d.changedTo(ctx, rev, applying); err != nil || !ok {
			return false, err
		}
	}
	// Committed: applied whole by this process, or by the next
	// transaction of any process if this one fails or stops.
	d.apply(ctx, applying, func(yield func(key string, ops []op) bool) error {
		for i, p := range pieces {
			if !yield(d.stagedKey(id, i), p) {
				break
			}
		}
		return nil
	})
	return true, nil
}

// changedTo says whether the pending key's first change after rev set it
// to val.
func (d *DB) changedTo(ctx context.Context, rev int64, val string) (bool, error) {
	ev, err := d.firstChange(ctx, d.pending, rev)
	if err != nil {
		return false, fmt.Errorf("etcdkv: cluster %s: large commit: %w", d.where, err)
	}
	return ev.Type == clientv3.EventTypePut && string(ev.Kv.Value) == val, nil
}

// step sends ops on condition cond, again when the answer is lost: it is
// one whose second application changes nothing. It reports whether cond
// held, and the revision the cluster answered at.
func (d *DB) step(ctx context.Context, cond clientv3.Cmp, ops ...clientv3.Op) (bool, int64, error) {
	for attempt := 0; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, d.timeout)
		resp, err := d.cli.Txn(rctx).If(cond).Then(ops...).Commit()
		cancel()
		switch {
		case err == nil:
			return resp.Succeeded, resp.Header.Revision, nil
		case definite(err):
			return false, 0, fmt.Errorf("etcdkv: cluster %s: large commit: %w", d.where, err)
		}
		select {
		case <-ctx.Done():
			return false, 0, fmt.Errorf("etcdkv: cluster %s: large commit: %w (%w)", d.where, kv.ErrUnknownOutcome, err)
		case <-time.After(time.Duration(10<<min(attempt, 6)) * time.Millisecond):
		}
	}
}

func (d *DB) pendingNow(ctx context.Context) (string, error) {
	rctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.cli.Get(rctx, d.pending)
	if err != nil {
		return "", err
	}
	if len(resp.Kvs) == 0 {
		return "", nil
	}
	return string(resp.Kvs[0].Value), nil
}

// apply applies the pieces each gives, each with the removal of its
// staged key, while the pending key is applying, then removes that key.
func (d *DB) apply(ctx context.Context, applying string, each func(yield func(key string, ops []op) bool) error) error {
	still := clientv3.Compare(clientv3.Value(d.pending), "=", applying)
	var err error
	over := false
	eerr := each(func(key string, p []op) bool {
		then := make([]clientv3.Op, 0, len(p)+1)
		for _, o := range p {
			then = append(then, o.etcd())
		}
		var ok bool
		ok, _, err = d.step(ctx, still, append(then, clientv3.OpDelete(key))...)
		over = !ok
		return err == nil && ok
	})
	switch {
	case err != nil:
		return err
	case eerr != nil:
		return eerr
	case over:
		return nil // another process finished it
	}
	_, _, err = d.step(ctx, still, clientv3.OpDelete(d.pending))
	return err
}

// rollForward applies what is left of the large commit that pending (the
// pending key's value) names, as its committer would have.
func (d *DB) rollForward(ctx context.Context, pending string) error {
	id := strings.TrimPrefix(pending, pendingApplying)
	from, end := d.staged+id+"/", d.staged+id+"0" // '0' follows '/'
	err := d.apply(ctx, pending, func(yield func(key string, ops []op) bool) error {
		for {
			// One piece at a time: each is up to a request's size.
			rctx, cancel := context.WithTimeout(ctx, d.timeout)
			resp, err := d.cli.Get(rctx, from, clientv3.WithRange(end), clientv3.WithLimit(1))
			cancel()
			if err != nil {
				return err
			}
			if len(resp.Kvs) == 0 {
				return nil
			}
			ops, err := decodeOps(string(resp.Kvs[0].Value))
			if err != nil {
				return err
			}
			key := string(resp.Kvs[0].Key)
			if !yield(key, ops) {
				return nil
			}
			from = key + "\x00"
		}
	})
	if err != nil {
		return fmt.Errorf("etcdkv: cluster %s: finish a large commit: %w", d.where, err)
	}
	return nil
}

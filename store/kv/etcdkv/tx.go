package etcdkv

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/store/kv"
)

// tx reads the store as it was at one revision, rev, and keeps its writes
// in memory until the commit: a commit applies them only if no other
// commit came between (the clock's revision is still clockRev).
type tx struct {
	db       *DB
	ctx      context.Context
	writable bool
	rev      int64 // the snapshot every read is made at
	clockRev int64 // the clock's mod revision at rev; 0 before the first commit

	writes map[string]write // etcd key: what this transaction wrote
	order  []string         // the keys of writes, sorted
	dels   []span           // ranges deleted (buckets), before the writes
	seen   map[string]entry // what reads found at rev
	known  []span           // ranges whose every key at rev is in seen
	loaded map[string]bool  // buckets whose first entries were read at once
	err    error            // the first failed read: the transaction fails with it
	atOnce bool             // commit as one etcd transaction or not at all
	bytes  int              // about what the writes take in a request
}

// Full says whether the writes so far fill one etcd transaction, or
// nearly: a caller that works in steps (an import) ends its step there,
// so that the step commits at once, not in the steps of a large commit.
func (t *tx) Full() bool {
	return len(t.writes)+len(t.dels)+fullMargin >= t.db.maxOps || t.bytes+fullMargin*1024 >= t.db.maxBytes
}

// fullMargin is the writes a caller may add after Full said no: a row of
// an import writes a few keys.
const fullMargin = 8

// AtOnce makes the transaction's commit one etcd transaction or none:
// writes past the cluster's limits fail with kv.ErrTxTooLarge rather than
// go in steps, which hold every other writer up a while. A caller that
// can split its work (the batcher's hits) asks for it.
func (t *tx) AtOnce() { t.atOnce = true }

// write is one key's value at the end of the transaction.
type write struct {
	entry
	del bool
}

// entry is a key's value as stored: a value, or a bucket's mark.
type entry struct {
	val    []byte
	bucket bool
	exists bool
}

func decode(raw []byte) entry {
	if len(raw) > 0 && raw[0] == markBucket {
		return entry{bucket: true, exists: true}
	}
	if len(raw) > 0 {
		raw = raw[1:]
	}
	return entry{val: raw, exists: true}
}

func (e entry) encode() string {
	if e.bucket {
		return string(rune(markBucket))
	}
	return string(rune(markValue)) + string(e.val)
}

// fail keeps the first error of a read; reads after it find nothing.
func (t *tx) fail(err error) {
	if t.err == nil {
		t.err = t.db.failed("read", err)
	}
}

// masked says whether k's value at rev no longer counts: this
// transaction wrote or deleted it.
func (t *tx) masked(k string) bool {
	if _, ok := t.writes[k]; ok {
		return true
	}
	for _, s := range t.dels {
		if s.has(k) {
			return true
		}
	}
	return false
}

// get is k's entry as this transaction sees it.
func (t *tx) get(k string) entry {
	if w, ok := t.writes[k]; ok {
		if w.del {
			return entry{}
		}
		return w.entry
	}
	for _, s := range t.dels {
		if s.has(k) {
			return entry{}
		}
	}
	return t.remote(k)
}

// remote is k's entry at rev.
func (t *tx) remote(k string) entry {
	if e, ok := t.seen[k]; ok {
		return e
	}
	if t.err != nil {
		return entry{}
	}
	for _, s := range t.known {
		if s.has(k) {
			return entry{} // read with its range, and not there
		}
	}
	ctx, cancel := context.WithTimeout(t.ctx, t.db.timeout)
	defer cancel()
	resp, err := t.read(ctx, k)
	if err != nil {
		t.fail(err)
		return entry{}
	}
	var e entry
	if len(resp.Kvs) > 0 {
		e = decode(resp.Kvs[0].Value)
	}
	t.seen[k] = e
	return e
}

// read reads at the transaction's revision, which begin's linearizable
// read found: what a key held at it is the same on every member that has
// applied it, so a member may answer from its own state (etcd's
// serializable read) without a round of the leader's. One that has not
// applied it yet (the client may ask another member than begin's) says
// so, and is asked again the linearizable way.
func (t *tx) read(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	opts = append(opts, clientv3.WithRev(t.rev))
	resp, err := t.db.cli.Get(ctx, key, append(opts, clientv3.WithSerializable())...)
	if errors.Is(err, rpctypes.ErrFutureRev) {
		resp, err = t.db.cli.Get(ctx, key, opts...)
	}
	return resp, err
}

// set records k's value at the end of the transaction.
func (t *tx) set(k string, w write) error {
	if _, ok := t.writes[k]; !ok {
		if len(t.writes) >= maxBigWrites {
			return fmt.Errorf("etcdkv: more than %d keys written: %w", maxBigWrites, kv.ErrTxTooLarge)
		}
		i := sort.SearchStrings(t.order, k)
		t.order = append(t.order, "")
		copy(t.order[i+1:], t.order[i:])
		t.order[i] = k
	}
	t.writes[k] = w
	t.bytes += len(k) + len(w.val) + 16
	return nil
}

// deleteRange deletes every key in [from, to), this transaction's writes
// among them.
func (t *tx) deleteRange(from, to string) {
	i := sort.SearchStrings(t.order, from)
	j := sort.SearchStrings(t.order, to)
	for _, k := range t.order[i:j] {
		delete(t.writes, k)
	}
	t.order = append(t.order[:i], t.order[j:]...)
	t.dels = append(t.dels, span{from, to})
}

func (t *tx) root() *bucket { return &bucket{t: t, path: t.db.prefix} }

func (t *tx) Bucket(name []byte) kv.Bucket { return t.root().Bucket(name) }
func (t *tx) CreateBucket(name []byte) (kv.Bucket, error) {
	return t.root().CreateBucket(name)
}
func (t *tx) CreateBucketIfNotExists(name []byte) (kv.Bucket, error) {
	return t.root().CreateBucketIfNotExists(name)
}
func (t *tx) DeleteBucket(name []byte) error { return t.root().DeleteBucket(name) }
func (t *tx) Cursor() kv.Cursor              { return t.root().Cursor() }
func (t *tx) Writable() bool                 { return t.writable }

// bucket is the bucket whose encoded path is path.
type bucket struct {
	t    *tx
	mark string // its entry in its parent; "" for the top level
	path string
}

func (b *bucket) key(k []byte) string {
	b.load()
	lo, _ := entries(b.path)
	return lo + string(k)
}

// loadLen is how many of a bucket's first entries a transaction reads
// at once, the first time it looks a key up in it: most buckets a hit
// reads (meta, a counter's settings, the referrers) are that small, and
// one round trip to the cluster then answers all their lookups.
const loadLen = 32

// load reads the first entries of b, once a transaction.
func (b *bucket) load() {
	t := b.t
	if t.loaded[b.path] || t.err != nil {
		return
	}
	t.loaded[b.path] = true
	lo, hi := entries(b.path)
	ctx, cancel := context.WithTimeout(t.ctx, t.db.timeout)
	defer cancel()
	resp, err := t.read(ctx, lo, clientv3.WithRange(hi), clientv3.WithLimit(loadLen))
	if err != nil {
		t.fail(err)
		return
	}
	for _, kv := range resp.Kvs {
		if _, ok := t.seen[string(kv.Key)]; !ok {
			t.seen[string(kv.Key)] = decode(kv.Value)
		}
	}
	known := span{lo, hi}
	if resp.More && len(resp.Kvs) > 0 {
		known.to = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	t.known = append(t.known, known)
}

func (b *bucket) Tx() kv.Tx { return b.t }

func (b *bucket) Get(k []byte) []byte {
	e := b.t.get(b.key(k))
	if e.bucket {
		return nil
	}
	return e.val
}

func (b *bucket) Put(k, v []byte) error {
	switch {
	case !b.t.writable:
		return kv.ErrTxNotWritable
	case len(k) == 0:
		return kv.ErrKeyRequired
	}
	key := b.key(k)
	if b.t.get(key).bucket {
		return kv.ErrIncompatibleValue
	}
	return b.t.set(key, write{entry: entry{val: append([]byte{}, v...), exists: true}})
}

func (b *bucket) Delete(k []byte) error {
	if !b.t.writable {
		return kv.ErrTxNotWritable
	}
	key := b.key(k)
	e := b.t.get(key)
	switch {
	case e.bucket:
		return kv.ErrIncompatibleValue
	case !e.exists:
		return nil
	}
	return b.t.set(key, write{del: true})
}

func (b *bucket) Bucket(name []byte) kv.Bucket {
	if !b.t.get(b.key(name)).bucket {
		return nil
	}
	return &bucket{t: b.t, mark: b.key(name), path: child(b.path, name)}
}

func (b *bucket) CreateBucket(name []byte) (kv.Bucket, error) {
	switch {
	case !b.t.writable:
		return nil, kv.ErrTxNotWritable
	case len(name) == 0:
		return nil, kv.ErrKeyRequired
	}
	key := b.key(name)
	switch e := b.t.get(key); {
	case e.bucket:
		return nil, kv.ErrBucketExists
	case e.exists:
		return nil, kv.ErrIncompatibleValue
	}
	if err := b.t.set(key, write{entry: entry{bucket: true, exists: true}}); err != nil {
		return nil, err
	}
	return &bucket{t: b.t, mark: b.key(name), path: child(b.path, name)}, nil
}

func (b *bucket) CreateBucketIfNotExists(name []byte) (kv.Bucket, error) {
	if c := b.Bucket(name); c != nil {
		return c, nil
	}
	return b.CreateBucket(name)
}

func (b *bucket) DeleteBucket(name []byte) error {
	if !b.t.writable {
		return kv.ErrTxNotWritable
	}
	key := b.key(name)
	switch e := b.t.get(key); {
	case e.exists && !e.bucket:
		return kv.ErrIncompatibleValue
	case !e.exists:
		return kv.ErrBucketNotFound
	}
	p := child(b.path, name)
	b.t.deleteRange(p, prefixEnd(p))
	return b.t.set(key, write{del: true})
}

func (b *bucket) MoveBucket(name []byte, dst kv.Bucket) error {
	d, ok := dst.(*bucket)
	if !ok || d.t != b.t {
		return fmt.Errorf("etcdkv: move bucket %q into another transaction's bucket", name)
	}
	src := b.Bucket(name)
	if src == nil {
		if b.Get(name) != nil {
			return kv.ErrIncompatibleValue
		}
		return kv.ErrBucketNotFound
	}
	to, err := d.CreateBucket(name)
	if err != nil {
		return err
	}
	if err := copyBucket(src, to); err != nil {
		return err
	}
	return b.DeleteBucket(name)
}

// copyBucket copies everything in src into dst.
func copyBucket(src, dst kv.Bucket) error {
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			return dst.Put(k, v)
		}
		to, err := dst.CreateBucket(k)
		if err != nil {
			return err
		}
		return copyBucket(src.Bucket(k), to)
	})
}

func (b *bucket) Cursor() kv.Cursor {
	lo, hi := entries(b.path)
	return &cursor{t: b.t, lo: lo, hi: hi}
}

func (b *bucket) ForEach(fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.t.err
}

func (b *bucket) ForEachBucket(fn func(name []byte) error) error {
	return b.ForEach(func(k, v []byte) error {
		if v != nil {
			return nil
		}
		return fn(k)
	})
}

func (b *bucket) KeyN() int {
	if b.t.masked(b.mark) || b.t.err != nil {
		return 0 // made in this transaction
	}
	ctx, cancel := context.WithTimeout(b.t.ctx, b.t.db.timeout)
	defer cancel()
	resp, err := b.t.read(ctx, b.path, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		b.t.fail(err)
		return 0
	}
	return int(resp.Count)
}

// Size is the file of the member first reached, the whole cluster's
// keyspace with the revisions kept and the pages they freed: what the
// members' quota limits (past it, NOSPACE), and what the overview shows
// as the store's size.
func (t *tx) Size() int64 {
	ctx, cancel := context.WithTimeout(t.ctx, t.db.timeout)
	defer cancel()
	eps := t.db.cli.Endpoints()
	if len(eps) == 0 {
		return 0
	}
	resp, err := t.db.cli.Status(ctx, eps[0])
	if err != nil {
		return 0
	}
	return resp.DbSize
}

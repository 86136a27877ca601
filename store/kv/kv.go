// Package kv is the ordered key-value transaction the store reaches its
// bytes through: buckets that nest, keys that sort as bytes, cursors that
// walk them in order. It is the part of bbolt's API the store uses, so
// that bbolt (boltkv) and an etcd cluster (etcdkv) can both hold a store
// with the very same schema and rules.
//
// A bucket's keys and its sub-buckets share one namespace and one order,
// as in bbolt: a cursor or ForEach gives a sub-bucket as its name with a
// nil value, and Get gives nil for it. A value, even an empty one, is
// never nil.
//
// Slices an engine returns are valid for the transaction only and must not
// be changed.
package kv

import "errors"

// The errors an engine returns for misuse, the same for every engine, so
// the store checks them with errors.Is whichever engine holds it.
var (
	ErrBucketNotFound    = errors.New("bucket not found")
	ErrBucketExists      = errors.New("bucket already exists")
	ErrIncompatibleValue = errors.New("incompatible value") // a key where a bucket is, or the other way round
	ErrTxNotWritable     = errors.New("tx not writable")
	ErrKeyRequired       = errors.New("key required")
	// ErrTxTooLarge reports a transaction an engine cannot commit: its
	// writes exceed what the engine takes at once (etcd's --max-txn-ops
	// and request size) and its caller asked for one commit at once (an
	// engine's optional AtOnce), or exceed what it holds at all. Nothing
	// of it is written.
	ErrTxTooLarge = errors.New("transaction too large to commit at once")
	// ErrUnknownOutcome reports a commit sent whose outcome the engine
	// could not learn in time: it may have applied, once. Running it
	// again could apply it twice.
	ErrUnknownOutcome = errors.New("commit sent but its outcome is unknown")
	// ErrUnavailable reports an engine that did not answer in time: a
	// cluster that cannot be reached or has lost its majority. Nothing
	// was written; the same transaction may succeed later.
	ErrUnavailable = errors.New("no answer in time")
)

// DB is an open engine.
type DB interface {
	// Update runs fn in a read-write transaction and commits it if fn
	// returns nil. An engine whose transactions can conflict may run fn
	// more than once: fn must leave nothing behind but its writes to tx
	// and what a later run overwrites.
	Update(fn func(Tx) error) error
	// View runs fn in a read-only transaction: one consistent state.
	View(fn func(Tx) error) error
	Close() error
}

// Tx is one transaction: its top level holds buckets only.
type Tx interface {
	Bucket(name []byte) Bucket // nil if there is none
	CreateBucket(name []byte) (Bucket, error)
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	DeleteBucket(name []byte) error
	// Cursor walks the top level: bucket names, with nil values.
	Cursor() Cursor
	Writable() bool
}

// Bucket is a set of keys in byte order, and of nested buckets.
type Bucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	Bucket(name []byte) Bucket // nil if there is none
	CreateBucket(name []byte) (Bucket, error)
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	DeleteBucket(name []byte) error
	// MoveBucket moves the sub-bucket name, with all it holds, into dst.
	MoveBucket(name []byte, dst Bucket) error
	Cursor() Cursor
	ForEach(fn func(k, v []byte) error) error
	ForEachBucket(fn func(name []byte) error) error
	// KeyN counts the keys in the bucket and in every bucket under it,
	// each sub-bucket's name included, as they were before this
	// transaction wrote: bbolt's Stats().KeyN reads the pages last
	// committed, and the store's bounds are written knowing it.
	KeyN() int
	Tx() Tx
}

// Cursor walks a bucket in key order. Each method returns a nil key past
// either end.
type Cursor interface {
	First() (k, v []byte)
	Last() (k, v []byte)
	Next() (k, v []byte)
	Prev() (k, v []byte)
	Seek(seek []byte) (k, v []byte) // the first key >= seek
}

// Member is what one member of a cluster says of itself.
type Member struct {
	Endpoint    string
	Err         error // it did not answer
	Version     string
	Leader      bool
	DBSize      int64 // its file's size: what the quota limits
	DBSizeInUse int64 // of which in use; the rest is free pages, given back by a defragmentation
	Errors      []string
}

// Cluster is what an engine that is a cluster (etcd) says of its
// members, for the owner's doctor.
type Cluster struct {
	Members []Member // one an endpoint of the store's address
	Listed  int      // the members the cluster lists, those not in the address too
	Alarms  []string // raised on the cluster (NOSPACE, CORRUPT), each with its member
	Quota   int64    // the members' quota (--quota-backend-bytes) as the address says it
}

// Package boltkv is the bbolt engine of package kv: a thin wrapper that
// leaves the file exactly as bbolt writes it.
package boltkv

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"hitcounter/store/kv"
)

// New is the engine over an open bbolt file; Close closes it.
func New(db *bolt.DB) kv.DB { return boltDB{db} }

type boltDB struct{ db *bolt.DB }

func (d boltDB) Update(fn func(kv.Tx) error) error {
	return d.db.Update(func(t *bolt.Tx) error { return fn(Tx(t)) })
}

func (d boltDB) View(fn func(kv.Tx) error) error {
	return d.db.View(func(t *bolt.Tx) error { return fn(Tx(t)) })
}

func (d boltDB) Close() error { return d.db.Close() }

// Tx is t as a kv.Tx.
func Tx(t *bolt.Tx) kv.Tx { return tx{t} }

// Unwrap gives the bbolt transaction under t, for what only a file has
// (its size, its pages' check, a copy of it); ok is false for another
// engine's.
func Unwrap(t kv.Tx) (b *bolt.Tx, ok bool) {
	x, ok := t.(tx)
	return x.t, ok
}

type tx struct{ t *bolt.Tx }

func (x tx) Bucket(name []byte) kv.Bucket { return bucketOf(x.t.Bucket(name)) }
func (x tx) Cursor() kv.Cursor            { return cursor{x.t.Cursor()} }
func (x tx) Writable() bool               { return x.t.Writable() }
func (x tx) DeleteBucket(name []byte) error {
	return mapErr(x.t.DeleteBucket(name))
}
func (x tx) CreateBucket(name []byte) (kv.Bucket, error) {
	b, err := x.t.CreateBucket(name)
	return bucketOf(b), mapErr(err)
}
func (x tx) CreateBucketIfNotExists(name []byte) (kv.Bucket, error) {
	b, err := x.t.CreateBucketIfNotExists(name)
	return bucketOf(b), mapErr(err)
}

// bucketOf keeps a missing bucket a nil interface, not a nil pointer in
// one, so that callers' b == nil still means "no bucket".
func bucketOf(b *bolt.Bucket) kv.Bucket {
	if b == nil {
		return nil
	}
	return bucket{b}
}

type bucket struct{ b *bolt.Bucket }

func (b bucket) Get(k []byte) []byte                      { return b.b.Get(k) }
func (b bucket) Put(k, v []byte) error                    { return mapErr(b.b.Put(k, v)) }
func (b bucket) Delete(k []byte) error                    { return mapErr(b.b.Delete(k)) }
func (b bucket) Bucket(name []byte) kv.Bucket             { return bucketOf(b.b.Bucket(name)) }
func (b bucket) DeleteBucket(name []byte) error           { return mapErr(b.b.DeleteBucket(name)) }
func (b bucket) Cursor() kv.Cursor                        { return cursor{b.b.Cursor()} }
func (b bucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }
func (b bucket) ForEachBucket(fn func([]byte) error) error {
	return b.b.ForEachBucket(fn)
}
func (b bucket) KeyN() int { return b.b.Stats().KeyN }
func (b bucket) Tx() kv.Tx { return tx{b.b.Tx()} }
func (b bucket) CreateBucket(name []byte) (kv.Bucket, error) {
	c, err := b.b.CreateBucket(name)
	return bucketOf(c), mapErr(err)
}
func (b bucket) CreateBucketIfNotExists(name []byte) (kv.Bucket, error) {
	c, err := b.b.CreateBucketIfNotExists(name)
	return bucketOf(c), mapErr(err)
}
func (b bucket) MoveBucket(name []byte, dst kv.Bucket) error {
	d, ok := dst.(bucket)
	if !ok {
		return fmt.Errorf("boltkv: move bucket %q into another engine's bucket", name)
	}
	return mapErr(b.b.MoveBucket(name, d.b))
}

type cursor struct{ c *bolt.Cursor }

func (c cursor) First() ([]byte, []byte)        { return c.c.First() }
func (c cursor) Last() ([]byte, []byte)         { return c.c.Last() }
func (c cursor) Next() ([]byte, []byte)         { return c.c.Next() }
func (c cursor) Prev() ([]byte, []byte)         { return c.c.Prev() }
func (c cursor) Seek(k []byte) ([]byte, []byte) { return c.c.Seek(k) }

// mapErr gives bbolt's misuse errors as kv's, so that callers check one
// set whatever the engine.
func mapErr(err error) error {
	for _, m := range []struct{ bolt, kv error }{
		{bolt.ErrBucketNotFound, kv.ErrBucketNotFound},
		{bolt.ErrBucketExists, kv.ErrBucketExists},
		{bolt.ErrIncompatibleValue, kv.ErrIncompatibleValue},
		{bolt.ErrTxNotWritable, kv.ErrTxNotWritable},
		{bolt.ErrKeyRequired, kv.ErrKeyRequired},
	} {
		if errors.Is(err, m.bolt) {
			return m.kv
		}
	}
	return err
}

// SetFillPercent sets how full bbolt packs b's pages when they split
// (bbolt's Bucket.FillPercent), for the rest of the transaction; other
// engines have no pages and ignore it.
func SetFillPercent(b kv.Bucket, fill float64) {
	if x, ok := b.(bucket); ok {
		x.b.FillPercent = fill
	}
}

package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/store/kv"
	"hitcounter/store/kv/boltkv"
)

// copyAll copies every bucket of src, and all they hold, into dst, which
// holds none of them: the same keys and values whatever the engines.
func copyAll(src, dst kv.Tx) error {
	c := src.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		b, err := dst.CreateBucket(k)
		if err != nil {
			return fmt.Errorf("bucket %q: %w", k, err)
		}
		if err := copyBucket(src.Bucket(k), b); err != nil {
			return fmt.Errorf("bucket %q: %w", k, err)
		}
	}
	return nil
}

// copyBucket copies what src holds into dst.
func copyBucket(src, dst kv.Bucket) error {
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			return dst.Put(k, v)
		}
		b, err := dst.CreateBucket(k)
		if err != nil {
			return err
		}
		return copyBucket(src.Bucket(k), b)
	})
}

// ErrCopyOverStore reports a copy whose destination already holds a
// store (a file that exists, a prefix with keys): a copy never merges.
var ErrCopyOverStore = errors.New("the destination already holds a store: copy into a new file or an empty prefix")

// ErrCopyDiffers reports a copy whose content, read back, is not the
// source's.
var ErrCopyDiffers = errors.New("the copy's content differs from the source's")

// Copy copies the whole store at from into to, either engine to either
// (a file into a cluster, a cluster into a file), then checks the copy
// as Check does and compares its content with the source's, key by key
// (a digest of both). opts opens both: its wait and its Remote.
//
// The source is read in one read transaction, so the copy is one
// moment's state. A file is written in one transaction, to a temporary
// file renamed into place once synced. A cluster takes so many writes a
// transaction: its copy goes in pieces, the meta bucket last, so that
// until the last piece the prefix holds no store that opens.
func Copy(from, to string, opts Options) (Report, error) {
	src, err := Open(from, Options{ReadOnly: true, Wait: opts.Wait, Remote: opts.Remote})
	if err != nil {
		return Report{}, err
	}
	defer src.Close()
	var want [sha256.Size]byte
	err = src.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		if IsRemote(to) {
			return copyIntoCluster(tx, to, opts, &want)
		}
		return copyIntoFile(tx, from, to, &want)
	})
	if err != nil {
		return Report{}, fmt.Errorf("store: copy %s to %s: %w", from, to, err)
	}
	r, err := CheckWith(to, Options{Wait: opts.Wait, Remote: opts.Remote})
	if err != nil {
		return r, fmt.Errorf("store: copy %s to %s: check of the copy: %w", from, to, err)
	}
	dst, err := Open(to, Options{ReadOnly: true, Wait: opts.Wait, Remote: opts.Remote})
	if err != nil {
		return r, err
	}
	defer dst.Close()
	var got [sha256.Size]byte
	if err := dst.view(func(tx kv.Tx) error { got = digest(tx); return nil }); err != nil {
		return r, err
	}
	if got != want {
		return r, fmt.Errorf("store: copy %s to %s: %w", from, to, ErrCopyDiffers)
	}
	return r, nil
}

// copyIntoFile writes src's content into a new file at to.
func copyIntoFile(src kv.Tx, from, to string, sum *[sha256.Size]byte) error {
	if err := notLive(from, to); err != nil {
		return err
	}
	if _, err := os.Lstat(to); err == nil {
		return ErrCopyOverStore
	}
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	err = handOver(tmp, to)
	tmp.Close()
	if err == nil {
		err = writeFile(src, name, sum)
	}
	if err == nil {
		// Link, not rename: a file made at to meanwhile is not replaced.
		err = os.Link(name, to)
	}
	os.Remove(name)
	if err != nil {
		return err
	}
	syncDir(filepath.Dir(to))
	return nil
}

func writeFile(src kv.Tx, path string, sum *[sha256.Size]byte) error {
	b, err := bolt.Open(path, fileMode, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	err = b.Update(func(tx *bolt.Tx) error {
		if err := copyAll(src, boltkv.Tx(tx)); err != nil {
			return err
		}
		*sum = digest(src)
		return nil
	})
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyPiece bounds the writes of one transaction of a copy into a
// cluster: under etcd's default --max-txn-ops, and a request far under
// its default --max-request-bytes.
const (
	copyPieceWrites = 100
	copyPieceBytes  = 512 << 10
)

// copyIntoCluster writes src's content under the empty prefix at to, in
// pieces.
func copyIntoCluster(src kv.Tx, to string, opts Options, sum *[sha256.Size]byte) error {
	if opts.Remote == nil {
		return ErrNoRemote
	}
	dst, err := opts.Remote(to, false, max(opts.Wait, DefaultWait))
	if err != nil {
		return err
	}
	defer dst.Close()
	err = dst.View(func(tx kv.Tx) error {
		if k, _ := tx.Cursor().First(); k != nil {
			return ErrCopyOverStore
		}
		return nil
	})
	if err != nil {
		return err
	}
	var pending []copyWrite
	size := 0
	flush := func() error {
		err := dst.Update(func(tx kv.Tx) error {
			for _, w := range pending {
				if err := w.apply(tx); err != nil {
					return err
				}
			}
			return nil
		})
		pending, size = pending[:0], 0
		return err
	}
	add := func(w copyWrite) error {
		pending = append(pending, w)
		if size += len(w.key) + len(w.value); len(pending) >= copyPieceWrites || size >= copyPieceBytes {
			return flush()
		}
		return nil
	}
	// The meta bucket last: until it is in, the prefix opens as missing.
	var names [][]byte
	c := src.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if !bytes.Equal(k, bucketMeta) {
			names = append(names, k)
		}
	}
	if src.Bucket(bucketMeta) != nil {
		names = append(names, bucketMeta)
	}
	for _, name := range names {
		if err := walk(src.Bucket(name), [][]byte{name}, add); err != nil {
			return fmt.Errorf("bucket %q: %w", name, err)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	*sum = digest(src)
	return nil
}

// copyWrite is one write of a copy: a bucket made at path (value nil),
// or key set to value in the bucket at path.
type copyWrite struct {
	path       [][]byte
	key, value []byte
}

func (w copyWrite) apply(tx kv.Tx) error {
	b, err := tx.CreateBucketIfNotExists(w.path[0])
	for _, p := range w.path[1:] {
		if err != nil {
			return err
		}
		b, err = b.CreateBucketIfNotExists(p)
	}
	if err != nil || w.value == nil {
		return err
	}
	return b.Put(w.key, w.value)
}

// walk hands add a write for the bucket b at path and for all it holds.
func walk(b kv.Bucket, path [][]byte, add func(copyWrite) error) error {
	if err := add(copyWrite{path: path}); err != nil {
		return err
	}
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			return walk(b.Bucket(k), append(path[:len(path):len(path)], bytes.Clone(k)), add)
		}
		return add(copyWrite{path: path, key: bytes.Clone(k), value: bytes.Clone(v)})
	})
}

// digest sums every bucket, key and value tx holds, in order: two stores
// with the same digest hold the same content.
func digest(tx kv.Tx) [sha256.Size]byte {
	h := sha256.New()
	var sum func(b kv.Bucket)
	field := func(tag byte, p []byte) {
		h.Write([]byte{tag})
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		h.Write(p)
	}
	sum = func(b kv.Bucket) {
		b.ForEach(func(k, v []byte) error {
			if v == nil {
				field('b', k)
				sum(b.Bucket(k))
				field('e', nil)
				return nil
			}
			field('k', k)
			field('v', v)
			return nil
		})
	}
	c := tx.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		field('b', k)
		sum(tx.Bucket(k))
		field('e', nil)
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// sizeOf is the bytes a store takes: a file's, up to its last page in
// use; a cluster's, what its member's file holds in use (the whole
// cluster's, other prefixes' keys and kept revisions with them), as
// the engine says (kv's optional Size).
func sizeOf(tx kv.Tx) int64 {
	if b, ok := boltkv.Unwrap(tx); ok {
		return b.Size()
	}
	if s, ok := tx.(interface{ Size() int64 }); ok {
		return s.Size()
	}
	return 0
}

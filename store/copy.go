package store

import (
	"fmt"

	"hitcounter/store/kv"
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

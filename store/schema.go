package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
)

// schemaVersion is the version of the layout described in doc.go.
const schemaVersion = 1

var (
	bucketMeta      = []byte("meta")
	keyVersion      = []byte("version")
	keySessionKey   = []byte("session-key")
	bucketCounters  = []byte("counters")
	keyTotal        = []byte("total")
	keyCreated      = []byte("created")
	keyPassword     = []byte("password")
	bucketDays      = []byte("days")
	bucketReferrers = []byte("referrers")
)

// sessionKeyLen is the length of the key that signs session cookies.
const sessionKeyLen = 32

// dayKey is the key of a UTC day in a days bucket.
func dayKey(t time.Time) []byte { return t.UTC().AppendFormat(nil, time.DateOnly) }

func encodeUint64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// decodeUint64 reads a count; a missing value is zero.
func decodeUint64(b []byte) (uint64, error) {
	switch len(b) {
	case 0:
		return 0, nil
	case 8:
		return binary.BigEndian.Uint64(b), nil
	}
	return 0, fmt.Errorf("%w: count of %d bytes", ErrCorrupt, len(b))
}

func encodeTime(t time.Time) []byte { return encodeUint64(uint64(t.Unix())) }

func decodeTime(b []byte) (time.Time, error) {
	n, err := decodeUint64(b)
	if err != nil || n == 0 {
		return time.Time{}, err
	}
	return time.Unix(int64(n), 0).UTC(), nil
}

// ErrCorrupt reports data that does not follow the schema.
var ErrCorrupt = errors.New("database does not follow the schema")

// ErrNewerSchema reports a file written by a newer version of the program.
var ErrNewerSchema = errors.New("database was written by a newer version of the counter")

// checkSchema fails unless tx holds a schema this code can read. A file
// without a meta bucket is new and empty; init makes it current.
func checkSchema(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return nil
	}
	v := meta.Get(keyVersion)
	if len(v) != 4 {
		return fmt.Errorf("%w: schema version of %d bytes", ErrCorrupt, len(v))
	}
	if n := binary.BigEndian.Uint32(v); n > schemaVersion {
		return fmt.Errorf("%w (schema %d, this program reads %d)", ErrNewerSchema, n, schemaVersion)
	}
	return nil
}

// initSchema creates the top-level buckets of an empty file.
func initSchema(tx *bolt.Tx) error {
	if err := checkSchema(tx); err != nil {
		return err
	}
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if meta.Get(keyVersion) == nil {
		if err := meta.Put(keyVersion, binary.BigEndian.AppendUint32(nil, schemaVersion)); err != nil {
			return err
		}
	}
	_, err = tx.CreateBucketIfNotExists(bucketCounters)
	return err
}

// counterBucket returns the bucket of counter name, or counter.ErrNotFound.
func counterBucket(tx *bolt.Tx, name string) (*bolt.Bucket, error) {
	if err := checkSchema(tx); err != nil {
		return nil, err
	}
	all := tx.Bucket(bucketCounters)
	if all == nil {
		return nil, counter.ErrNotFound
	}
	b := all.Bucket([]byte(name))
	if b == nil {
		return nil, counter.ErrNotFound
	}
	return b, nil
}

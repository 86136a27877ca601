package store

import (
	"bytes"
	"slices"
	"testing"

	"hitcounter/store/kv"
)

// TestRenewSessionKey: renewing puts a new key of the same length where
// the old one was, and nothing else changes in the file's layout.
func TestRenewSessionKey(t *testing.T) {
	path := newDB(t, "a")
	var before, after []byte
	var keysBefore, keysAfter []string
	metaKeys := func(db *DB) []string {
		var keys []string
		db.view(func(tx kv.Tx) error {
			return tx.Bucket(bucketMeta).ForEach(func(k, _ []byte) error {
				keys = append(keys, string(k))
				return nil
			})
		})
		return keys
	}
	with(t, path, Options{}, func(db *DB) {
		if err := db.SetPasswordHash("a", []byte("$2a$10$hash")); err != nil {
			t.Fatal(err)
		}
		before, _ = db.SessionKey()
		keysBefore = metaKeys(db)
		if err := db.RenewSessionKey(); err != nil {
			t.Fatal(err)
		}
		after, _ = db.SessionKey()
		keysAfter = metaKeys(db)
	})
	if len(after) != 32 || bytes.Equal(before, after) {
		t.Errorf("got a key of %d bytes, equal to the old one %v; want a new one of 32", len(after), bytes.Equal(before, after))
	}
	if !slices.Equal(keysBefore, keysAfter) {
		t.Errorf("got meta keys %q after renewing, want %q as before", keysAfter, keysBefore)
	}
}

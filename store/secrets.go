package store

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"

	"hitcounter/store/kv"
)

// ErrNoSessionKey reports a counter (or an owner's login) whose password
// was never set, so no session of it can be valid.
var ErrNoSessionKey = errors.New("no session key: no password was ever set")

// SetPasswordHash stores the hash that guards the statistics of counter
// name, or makes them public again when hash is nil. Changing or clearing
// it ends every session of the counter, which is bound to the hash. The
// first hash set also makes the key that signs the counter's sessions.
func (db *DB) SetPasswordHash(name string, hash []byte) error {
	err := db.write(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		if hash == nil {
			return b.Delete(keyPassword)
		}
		if len(b.Get(keySessionKey)) != sessionKeyLen {
			if err := putSessionKey(b, keySessionKey); err != nil {
				return err
			}
		}
		return b.Put(keyPassword, hash)
	})
	if err != nil {
		return fmt.Errorf("store: set password of %q: %w", name, err)
	}
	return nil
}

// ReplacePasswordHash swaps old for new only if old is still the stored
// hash, so that a login that upgrades a hash cannot undo a password change
// made meanwhile. It reports whether it swapped.
func (db *DB) ReplacePasswordHash(name string, old, new []byte) (bool, error) {
	swapped := false
	err := db.write(func(tx kv.Tx) error {
		swapped = false // an engine may run it again (kv.DB.Update)
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		if !bytes.Equal(b.Get(keyPassword), old) {
			return nil
		}
		swapped = true
		return b.Put(keyPassword, new)
	})
	if err != nil {
		return false, fmt.Errorf("store: replace password of %q: %w", name, err)
	}
	return swapped, nil
}

// SessionKey returns the key that signs the session cookies of counter
// name: its own, or, for a counter of a version 7 file that has none yet,
// the one key of meta that version 7 signed every counter's with, so that
// a login made before the upgrade lasts its day.
func (db *DB) SessionKey(name string) ([]byte, error) {
	var key []byte
	err := db.view(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		k := b.Get(keySessionKey)
		if k == nil {
			k = tx.Bucket(bucketMeta).Get(keySessionKey)
		}
		key, err = readSessionKey(k)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: session key of %q: %w", name, err)
	}
	return key, nil
}

// readSessionKey copies a stored session key: ErrNoSessionKey when there
// is none.
func readSessionKey(k []byte) ([]byte, error) {
	switch len(k) {
	case 0:
		return nil, ErrNoSessionKey
	case sessionKeyLen:
		return bytes.Clone(k), nil
	}
	return nil, fmt.Errorf("%w: session key of %d bytes", ErrCorrupt, len(k))
}

// RenewSessionKey gives counter name a new key for its session cookies,
// which ends every session of that counter, and of no other: a logout does
// this, so that a copy of the cookie is refused as well.
func (db *DB) RenewSessionKey(name string) error {
	err := db.write(func(tx kv.Tx) error {
		b, err := counterBucket(tx, name)
		if err != nil {
			return err
		}
		return putSessionKey(b, keySessionKey)
	})
	if err != nil {
		return fmt.Errorf("store: renew session key of %q: %w", name, err)
	}
	return nil
}

// putSessionKey stores a new random session key in b under key k.
func putSessionKey(b kv.Bucket, k []byte) error {
	key := make([]byte, sessionKeyLen)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("session key: %w", err)
	}
	return b.Put(k, key)
}

// OwnerKey returns the key that signs the cookies by which owners ask not
// to be counted, making it on first use. It is no session key, which a
// logout renews: an owner's browser stays uncounted across logouts.
func (db *DB) OwnerKey() ([]byte, error) {
	var key []byte
	err := db.write(func(tx kv.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		switch k := meta.Get(keyOwnerKey); len(k) {
		case ownerKeyLen:
			key = bytes.Clone(k)
			return nil
		case 0:
		default:
			return fmt.Errorf("%w: owner key of %d bytes", ErrCorrupt, len(k))
		}
		key = make([]byte, ownerKeyLen)
		if _, err := rand.Read(key); err != nil {
			return fmt.Errorf("owner key: %w", err)
		}
		return meta.Put(keyOwnerKey, key)
	})
	if err != nil {
		return nil, fmt.Errorf("store: owner key: %w", err)
	}
	return key, nil
}

// OwnerKeyIfMade returns the key that signs owner cookies, or nil when
// none was made yet, in a read-only transaction: a page that only checks
// a cookie must not write the file.
func (db *DB) OwnerKeyIfMade() ([]byte, error) {
	var key []byte
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		if meta := tx.Bucket(bucketMeta); meta != nil {
			switch k := meta.Get(keyOwnerKey); len(k) {
			case 0:
			case ownerKeyLen:
				key = bytes.Clone(k)
			default:
				return fmt.Errorf("%w: owner key of %d bytes", ErrCorrupt, len(k))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: owner key: %w", err)
	}
	return key, nil
}

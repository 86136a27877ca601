package store

import (
	"bytes"
	"errors"
	"fmt"

	"hitcounter/store/kv"
)

// OwnerLogin is what guards the owner's login, which opens every
// counter's statistics: the bcrypt hash of the owner's password (nil when
// none is set) and the key that signs the owner's sessions (nil before
// the first password).
type OwnerLogin struct {
	PasswordHash []byte
	SessionKey   []byte
}

// IsSet reports whether the owner has a password.
func (o OwnerLogin) IsSet() bool { return len(o.PasswordHash) > 0 }

// OwnerLogin reads the owner's login in one read-only transaction; a file
// without one (of version 7, or with none set) reads as the zero value.
func (db *DB) OwnerLogin() (OwnerLogin, error) {
	var o OwnerLogin
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return nil
		}
		var err error
		o, err = readOwnerLogin(meta)
		return err
	})
	if err != nil {
		return OwnerLogin{}, fmt.Errorf("store: owner login: %w", err)
	}
	return o, nil
}

// readOwnerLogin reads the owner's login from meta.
func readOwnerLogin(meta kv.Bucket) (OwnerLogin, error) {
	var o OwnerLogin
	if h := meta.Get(keyOwnerPassword); len(h) > 0 {
		o.PasswordHash = bytes.Clone(h)
	}
	key, err := readSessionKey(meta.Get(keyOwnerSessionKey))
	if errors.Is(err, ErrNoSessionKey) {
		return o, nil
	}
	o.SessionKey = key
	if err != nil {
		return OwnerLogin{}, fmt.Errorf("owner's %w", err)
	}
	return o, nil
}

// SetOwnerPasswordHash stores the hash of the owner's password, or
// removes the owner's login when hash is nil. Either ends every session of
// the owner, which is bound to the hash, and none of a counter's. The
// first hash set also makes the key that signs the owner's sessions.
func (db *DB) SetOwnerPasswordHash(hash []byte) error {
	err := db.write(func(tx kv.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if hash == nil {
			return meta.Delete(keyOwnerPassword)
		}
		if len(meta.Get(keyOwnerSessionKey)) != sessionKeyLen {
			if err := putSessionKey(meta, keyOwnerSessionKey); err != nil {
				return err
			}
		}
		return meta.Put(keyOwnerPassword, hash)
	})
	if err != nil {
		return fmt.Errorf("store: set the owner's password: %w", err)
	}
	return nil
}

// ReplaceOwnerPasswordHash swaps old for new only if old is still the
// owner's stored hash (ReplacePasswordHash, for the owner's login). It
// reports whether it swapped.
func (db *DB) ReplaceOwnerPasswordHash(old, new []byte) (bool, error) {
	swapped := false
	err := db.write(func(tx kv.Tx) error {
		swapped = false // an engine may run it again (kv.DB.Update)
		if err := initSchema(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if !bytes.Equal(meta.Get(keyOwnerPassword), old) {
			return nil
		}
		swapped = true
		return meta.Put(keyOwnerPassword, new)
	})
	if err != nil {
		return false, fmt.Errorf("store: replace the owner's password: %w", err)
	}
	return swapped, nil
}

// RenewOwnerSessionKey gives the owner's sessions a new key, which ends
// every one of them and no counter's: the owner's logout does this.
func (db *DB) RenewOwnerSessionKey() error {
	err := db.write(func(tx kv.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		return putSessionKey(tx.Bucket(bucketMeta), keyOwnerSessionKey)
	})
	if err != nil {
		return fmt.Errorf("store: renew the owner's session key: %w", err)
	}
	return nil
}

package store

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// keysOf is the session keys of counters a and b and the owner's, read
// straight from the file, so that a test sees where each one is kept.
type keysOf struct{ a, b, owner, meta []byte }

func readKeys(t *testing.T, db *DB) keysOf {
	t.Helper()
	var k keysOf
	err := db.view(func(tx kv.Tx) error {
		all, meta := tx.Bucket(bucketCounters), tx.Bucket(bucketMeta)
		k.a = bytes.Clone(all.Bucket([]byte("a")).Get([]byte("session-key")))
		k.b = bytes.Clone(all.Bucket([]byte("b")).Get([]byte("session-key")))
		k.owner = bytes.Clone(meta.Get([]byte("owner-session-key")))
		k.meta = bytes.Clone(meta.Get([]byte("session-key")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSessionKeysApart: each counter's sessions and the owner's are signed
// with a key of their own, under the literal keys of the schema, and a
// logout (a renewal) changes its own key and no other.
func TestSessionKeysApart(t *testing.T) {
	path := newDB(t, "a", "b")
	with(t, path, Options{}, func(db *DB) {
		for _, name := range []string{"a", "b"} {
			if err := db.SetPasswordHash(name, []byte("$2a$10$hash of "+name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.SetOwnerPasswordHash([]byte("$2a$10$the owner's")); err != nil {
			t.Fatal(err)
		}
		start := readKeys(t, db)
		if len(start.a) != 32 || len(start.b) != 32 || len(start.owner) != 32 || bytes.Equal(start.a, start.b) || bytes.Equal(start.a, start.owner) {
			t.Fatalf("keys of a %x, b %x, the owner %x: want three of 32 bytes, apart", start.a, start.b, start.owner)
		}
		if start.meta != nil {
			t.Errorf("version 7's one session key %x made in a new file", start.meta)
		}
		if got, err := db.SessionKey("a"); err != nil || !bytes.Equal(got, start.a) {
			t.Errorf("SessionKey(a) = %x, %v; want a's own %x", got, err, start.a)
		}
		for _, tc := range []struct {
			name  string
			renew func() error
			which func(keysOf) []byte
		}{
			{"a's logout", func() error { return db.RenewSessionKey("a") }, func(k keysOf) []byte { return k.a }},
			{"b's logout", func() error { return db.RenewSessionKey("b") }, func(k keysOf) []byte { return k.b }},
			{"the owner's logout", db.RenewOwnerSessionKey, func(k keysOf) []byte { return k.owner }},
		} {
			before := readKeys(t, db)
			if err := tc.renew(); err != nil {
				t.Fatal(err)
			}
			after := readKeys(t, db)
			if got := tc.which(after); len(got) != 32 || bytes.Equal(got, tc.which(before)) {
				t.Errorf("%s: its key %x, was %x; want a new one", tc.name, got, tc.which(before))
			}
			changed := 0
			for _, pair := range [][2][]byte{{before.a, after.a}, {before.b, after.b}, {before.owner, after.owner}} {
				if !bytes.Equal(pair[0], pair[1]) {
					changed++
				}
			}
			if changed != 1 {
				t.Errorf("%s changed %d keys, want its own alone", tc.name, changed)
			}
		}
		if err := db.RenewSessionKey("nope"); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("renewing an unknown counter's key: %v, want ErrNotFound", err)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

// TestOwnerLogin: the owner's password is set, swapped only from the hash
// still stored, and cleared, in meta under its literal keys; a file
// without one reads as none set.
func TestOwnerLogin(t *testing.T) {
	path := newDB(t, "a")
	with(t, path, Options{}, func(db *DB) {
		o, err := db.OwnerLogin()
		if err != nil || o.IsSet() || o.PasswordHash != nil || o.SessionKey != nil {
			t.Fatalf("a new file's owner login %+v, %v; want none", o, err)
		}
		first, second := []byte("$2a$10$first"), []byte("$2a$10$second")
		if err := db.SetOwnerPasswordHash(first); err != nil {
			t.Fatal(err)
		}
		o, err = db.OwnerLogin()
		if err != nil || !o.IsSet() || !bytes.Equal(o.PasswordHash, first) || len(o.SessionKey) != 32 {
			t.Fatalf("after set: %+v, %v", o, err)
		}
		var stored []byte
		db.view(func(tx kv.Tx) error {
			stored = bytes.Clone(tx.Bucket([]byte("meta")).Get([]byte("owner-password")))
			return nil
		})
		if !bytes.Equal(stored, first) {
			t.Errorf("meta/owner-password holds %q, want %q", stored, first)
		}
		if ok, err := db.ReplaceOwnerPasswordHash(second, []byte("$2a$10$third")); ok || err != nil {
			t.Errorf("replace from a hash not stored: %v, %v; want no swap", ok, err)
		}
		if ok, err := db.ReplaceOwnerPasswordHash(first, second); !ok || err != nil {
			t.Errorf("replace from the stored hash: %v, %v; want a swap", ok, err)
		}
		key := o.SessionKey
		if o, err = db.OwnerLogin(); err != nil || !bytes.Equal(o.PasswordHash, second) || !bytes.Equal(o.SessionKey, key) {
			t.Errorf("after the swap: %+v, %v; want the second hash and the same key", o, err)
		}
		if err := db.SetOwnerPasswordHash(nil); err != nil {
			t.Fatal(err)
		}
		if o, err = db.OwnerLogin(); err != nil || o.IsSet() {
			t.Errorf("after clear: %+v, %v; want none set", o, err)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

// TestCheckFindsBadSessionKeys: a session key of the wrong length, a
// counter's or the owner's, is damage that check reports.
func TestCheckFindsBadSessionKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		put  func(tx kv.Tx) error
	}{
		{"a counter's", func(tx kv.Tx) error {
			return tx.Bucket(bucketCounters).Bucket([]byte("a")).Put(keySessionKey, []byte("short"))
		}},
		{"the owner's", func(tx kv.Tx) error { return tx.Bucket(bucketMeta).Put(keyOwnerSessionKey, []byte("short")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newDB(t, "a")
			with(t, path, Options{}, func(db *DB) {
				if err := db.write(tc.put); err != nil {
					t.Fatal(err)
				}
			})
			if _, err := testCheck(path, time.Second); !errors.Is(err, ErrCorrupt) {
				t.Errorf("check: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestMigrateV7 takes the committed version 7 file with passwords to
// version 8 in its first write, which rewrites nothing: its counters'
// sessions are still signed with version 7's one key (a login made before
// the upgrade lasts its day) until a counter's logout or new password
// gives it a key of its own, which ends its sessions and no other's. The
// file has no owner's login until passwd -owner.
func TestMigrateV7(t *testing.T) {
	path := copyOf(t, formatFileV7Login)
	with(t, path, Options{}, func(db *DB) {
		if v := versionOf(t, db); v != 7 {
			t.Fatalf("version %d before the first write, want 7", v)
		}
		blog7, err := db.SessionKey("blog")
		if err != nil || len(blog7) != 32 {
			t.Fatalf("blog's key in the v7 file: %x, %v", blog7, err)
		}
		if _, err := db.Visit(Visit{Name: "open", Now: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC), Outcome: counter.Outcome{Kind: counter.View}}); err != nil {
			t.Fatal(err)
		}
		if v := versionOf(t, db); v != schemaVersion {
			t.Errorf("version %d after the first write, want %d", v, schemaVersion)
		}
		for _, name := range []string{"blog", "friend"} {
			if k, err := db.SessionKey(name); err != nil || !bytes.Equal(k, blog7) {
				t.Errorf("%s's key after the upgrade %x, %v; want version 7's %x", name, k, err, blog7)
			}
		}
		if o, err := db.OwnerLogin(); err != nil || o.IsSet() {
			t.Errorf("the owner's login after the upgrade: %+v, %v; want none", o, err)
		}
		if err := db.RenewSessionKey("blog"); err != nil {
			t.Fatal(err)
		}
		blog, _ := db.SessionKey("blog")
		friend, _ := db.SessionKey("friend")
		if len(blog) != 32 || bytes.Equal(blog, blog7) || !bytes.Equal(friend, blog7) {
			t.Errorf("after blog's logout: blog's key new %v, friend's version 7's %v", !bytes.Equal(blog, blog7), bytes.Equal(friend, blog7))
		}
		hash, _ := db.Counter("friend")
		if err := db.SetPasswordHash("friend", hash.PasswordHash); err != nil {
			t.Fatal(err)
		}
		if friend, _ = db.SessionKey("friend"); len(friend) != 32 || bytes.Equal(friend, blog7) || bytes.Equal(friend, blog) {
			t.Errorf("friend's key after passwd: %x; want one of its own", friend)
		}
	})
	if _, err := testCheck(path, time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
}

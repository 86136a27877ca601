package store

import (
	"bytes"
	"os"
	"testing"
	"time"

	"hitcounter/counter"
)

// formatFileV8 is a database written by the code of schema version 8: a
// protected counter (blog) whose logout gave it a session key of its own,
// a public one (open), and the owner's login, whose password is
// formatOwnerPasswordV8. formatDumpFileV8 is its listing (dumpFile),
// written with it.
const (
	formatFileV8          = "../testdata/format/counter-v8.db"
	formatDumpFileV8      = "../testdata/format/counter-v8.dump"
	formatOwnerPasswordV8 = "the owner's v8 password"
	formatBlogPasswordV8  = "blog's v8 password"
)

// writeV8 writes formatFileV8 through the store, as passwd and a logout
// do, when TestFormat is run with -write-format under schema version 8. It
// was run once; the files are committed and must never be written again.
func writeV8(t *testing.T) {
	if schemaVersion != 8 {
		t.Fatalf("schema version %d: the v8 file is the version 8 release's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV8)
	defer os.Remove(LockPath(formatFileV8))
	first := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
	with(t, formatFileV8, Options{Create: true}, func(db *DB) {
		for _, name := range []string{"blog", "open"} {
			if err := db.Create(name, 0, first); err != nil {
				t.Fatal(err)
			}
		}
		hash, err := counter.HashPassword([]byte(formatBlogPasswordV8))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetPasswordHash("blog", hash); err != nil {
			t.Fatal(err)
		}
		if err := db.RenewSessionKey("blog"); err != nil {
			t.Fatal(err)
		}
		if hash, err = counter.HashPassword([]byte(formatOwnerPasswordV8)); err != nil {
			t.Fatal(err)
		}
		if err := db.SetOwnerPasswordHash(hash); err != nil {
			t.Fatal(err)
		}
	})
	writeDump(t, formatFileV8, formatDumpFileV8)
}

// checkFormatV8 reads the committed version 8 file through the store: the
// counter's own session key and the owner's login.
func checkFormatV8(t *testing.T, db *DB) {
	key, err := db.SessionKey("blog")
	if err != nil || len(key) != 32 {
		t.Errorf("blog's session key %x, %v; want its own 32 bytes", key, err)
	}
	o, err := db.OwnerLogin()
	if err != nil || len(o.SessionKey) != 32 || bytes.Equal(o.SessionKey, key) {
		t.Fatalf("the owner's login %+v, %v; want a key of its own", o, err)
	}
	if ok, _, err := counter.VerifyPassword(o.PasswordHash, []byte(formatOwnerPasswordV8)); !ok || err != nil {
		t.Errorf("the owner's hash does not take the v8 password: %v", err)
	}
}

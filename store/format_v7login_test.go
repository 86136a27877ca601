package store

import (
	"flag"
	"os"
	"testing"
	"time"

	"hitcounter/counter"
)

// formatFileV7Login is a database written by the code of schema version 7
// with passwords: two protected counters (blog and friend, whose passwords
// are formatPasswordsV7), a public one (open), and the one session key of
// version 7 in meta, which signed every counter's sessions. The upgrade
// tests log in to it, and sign a session as version 7 did, to see what the
// sessions of a version 7 file become. formatDumpFileV7Login is its
// listing (dumpFile), written with it.
const (
	formatFileV7Login     = "../testdata/format/counter-v7-login.db"
	formatDumpFileV7Login = "../testdata/format/counter-v7-login.dump"
)

// formatPasswordsV7 are the passwords of the v7 login file's counters.
var formatPasswordsV7 = map[string]string{"blog": "blog's v7 password", "friend": "friend's v7 password"}

var writeFormatV7Login = flag.Bool("write-format-v7-login", false, "write the committed v7 file with passwords (only ever once, by the version 7 code)")

// TestWriteFormatV7Login writes formatFileV7Login through the store, as
// the counter's passwd command does, when run with -write-format-v7-login
// under schema version 7. It was run once (on main at 124904c, before the
// owner's login); the files are committed and must never be written again.
func TestWriteFormatV7Login(t *testing.T) {
	if !*writeFormatV7Login {
		t.Skip("the committed file is written once, with -write-format-v7-login")
	}
	if schemaVersion != 7 {
		t.Fatalf("schema version %d: the v7 login file is the version 7 code's and stays as it is", schemaVersion)
	}
	os.Remove(formatFileV7Login)
	defer os.Remove(LockPath(formatFileV7Login))
	first := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	with(t, formatFileV7Login, Options{Create: true}, func(db *DB) {
		for _, name := range []string{"blog", "friend", "open"} {
			if err := db.Create(name, 0, first); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Visit(Visit{Name: name, Now: first.Add(time.Hour), RefHost: "example.org",
				Outcome: counter.Outcome{Kind: counter.View, NewVisitor: true}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"blog", "friend"} {
			hash, err := counter.HashPassword([]byte(formatPasswordsV7[name]))
			if err != nil {
				t.Fatal(err)
			}
			if err := db.SetPasswordHash(name, hash); err != nil {
				t.Fatal(err)
			}
		}
	})
	writeDump(t, formatFileV7Login, formatDumpFileV7Login)
}

package store

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"hitcounter/counter"
)

// TestPanicInATransactionIsABug: a panic in code of ours run inside a
// transaction (Configure's edit here; a judge of hits once) goes on up as
// it was, never as ErrDamaged; bbolt rolls the transaction back, the
// file is untouched, and its locks are let go.
func TestPanicInATransactionIsABug(t *testing.T) {
	needFile(t)
	path := newDB(t, "a")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nilMap map[string]int
	tests := []struct {
		name string
		edit func(*counter.Settings) error
	}{
		{"value", func(s *counter.Settings) error { s.Reload = 0; panic("a bug") }},
		{"runtime error", func(s *counter.Settings) error { s.Reload = 0; nilMap["x"]++; return nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got any
			var err error
			func() {
				defer func() { got = recover() }()
				with(t, path, Options{}, func(db *DB) {
					_, err = db.Configure("a", tc.edit)
				})
			}()
			if got == nil || err != nil {
				t.Fatalf("got error %v and panic %v, want the panic alone", err, got)
			}
			if e, ok := got.(error); ok && (errors.Is(e, ErrDamaged) || strings.Contains(e.Error(), "damaged")) {
				t.Errorf("panic %v, want the bug's own", got)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("the file changed")
			}
			// Its locks were let go: a writer opens it at once.
			with(t, path, Options{Wait: 1}, func(db *DB) {
				if _, err := db.Hit("a", day1, ""); err != nil {
					t.Errorf("hit after the panic: %v", err)
				}
			})
			before, _ = os.ReadFile(path)
		})
	}
}

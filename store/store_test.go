package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"hitcounter/counter"
)

var day1 = time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)

// newDB creates a database file with the given counters and returns its path.
func newDB(tb testing.TB, names ...string) string {
	tb.Helper()
	path := newPath(tb, "counter.db")
	db, err := testOpen(path, Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	for _, n := range names {
		if err := db.Create(n, 0, day1); err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// with opens path, runs fn and closes it again.
func with(tb testing.TB, path string, opts Options, fn func(*DB)) {
	tb.Helper()
	db, err := testOpen(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	fn(db)
}

func TestHitCountsTotalDayAndReferrer(t *testing.T) {
	path := newDB(t, "a", "b")
	day2 := day1.Add(2 * time.Minute) // the next UTC day
	hits := []struct {
		name string
		at   time.Time
		ref  string
		want uint64
	}{
		{"a", day1, "example.org", 1},
		{"a", day1, "", 2},
		{"a", day2, "example.org", 3},
		{"b", day2, "other.example", 1},
	}
	for _, h := range hits {
		with(t, path, Options{}, func(db *DB) {
			got, err := db.Hit(h.name, h.at, h.ref)
			if err != nil || got != h.want {
				t.Fatalf("Hit(%s) = %d, %v; want %d", h.name, got, err, h.want)
			}
		})
	}
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		info, err := db.Counter("a")
		if err != nil || info.Count != 3 || !info.Created.Equal(day1.Truncate(time.Second)) {
			t.Errorf("Counter(a) = %+v, %v; want count 3 created %v", info, err, day1)
		}
		days, err := db.Days("a", day1.Add(-48*time.Hour))
		want := []counter.Day{views("2026-03-01", 2), views("2026-03-02", 1)}
		if err != nil || fmt.Sprint(days) != fmt.Sprint(want) {
			t.Errorf("Days(a) = %v, %v; want %v", days, err, want)
		}
		days, _ = db.Days("a", day2)
		if len(days) != 1 {
			t.Errorf("Days(a, since day 2) = %v, want one day", days)
		}
		refs, err := db.Referrers("a")
		if err != nil || fmt.Sprint(refs) != fmt.Sprint([]counter.Referrer{{Host: "example.org", Hits: 2}}) {
			t.Errorf("Referrers(a) = %v, %v", refs, err)
		}
		list, err := db.List()
		if err != nil || len(list) != 2 || list[0].Name != "a" || list[1].Count != 1 {
			t.Errorf("List() = %+v, %v", list, err)
		}
	})
}

func TestUnknownCounterWritesNothing(t *testing.T) {
	needFile(t)
	path := newDB(t, "a")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.Hit("nope", day1, "example.org"); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("Hit(nope) = %v, want ErrNotFound", err)
		}
		if err := db.Set("nope", 3); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("Set(nope) = %v, want ErrNotFound", err)
		}
		if err := db.Delete("nope"); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("Delete(nope) = %v, want ErrNotFound", err)
		}
	})
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Errorf("the file changed after hits on an unknown counter")
	}
}

// TestReferrersAreBounded: the README promises 100 referring sites per
// counter, the rest added up as one; the number is written here, not
// taken from the code, so that changing the bound fails this test.
func TestReferrersAreBounded(t *testing.T) {
	path := newDB(t, "a")
	const promised, extra = 100, 50
	with(t, path, Options{}, func(db *DB) {
		for i := 0; i < promised+extra; i++ {
			if _, err := db.Hit("a", day1, fmt.Sprintf("spam%d.example", i)); err != nil {
				t.Fatal(err)
			}
		}
		// A host already known keeps counting under its own name.
		if _, err := db.Hit("a", day1, "spam0.example"); err != nil {
			t.Fatal(err)
		}
		refs, err := db.Referrers("a")
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) != promised+1 {
			t.Errorf("got %d referrers kept, want %d", len(refs), promised+1)
		}
		got := map[string]uint64{}
		for _, r := range refs {
			got[r.Host] = r.Hits
		}
		if got[counter.OtherReferrers] != uint64(extra) || got["spam0.example"] != 2 {
			t.Errorf("other = %d, spam0 = %d; want %d and 2", got[counter.OtherReferrers], got["spam0.example"], extra)
		}
	})
}

func TestCreateSetDelete(t *testing.T) {
	path := newDB(t)
	with(t, path, Options{}, func(db *DB) {
		if err := db.Create("a", 41, day1); err != nil {
			t.Fatal(err)
		}
		if err := db.Create("a", 0, day1); !errors.Is(err, counter.ErrExists) {
			t.Errorf("second Create = %v, want ErrExists", err)
		}
		if err := db.Create("../x", 0, day1); !errors.Is(err, counter.ErrInvalidName) {
			t.Errorf("Create(../x) = %v, want ErrInvalidName", err)
		}
		if n, _ := db.Hit("a", day1, ""); n != 42 {
			t.Errorf("first hit after -start 41 = %d, want 42", n)
		}
		if err := db.Set("a", ^uint64(0)); err != nil {
			t.Fatal(err)
		}
		if n, err := db.Hit("a", day1, ""); n != ^uint64(0) || err != nil {
			t.Errorf("hit at the largest count = %d, %v; want it to stay", n, err)
		}
		if err := db.Delete("a"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Counter("a"); !errors.Is(err, counter.ErrNotFound) {
			t.Errorf("Counter after Delete = %v, want ErrNotFound", err)
		}
	})
}

func TestOpenNeverCreatesBehindTheOwnersBack(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	if _, err := testOpen(missing, Options{}); !errors.Is(err, ErrMissing) {
		t.Errorf("testOpen(missing) = %v, want ErrMissing", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open made %s", missing)
	}
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o600)
	if _, err := testOpen(empty, Options{}); !errors.Is(err, ErrMissing) {
		t.Errorf("testOpen(empty) = %v, want ErrMissing", err)
	}
	if fi, _ := os.Stat(empty); fi.Size() != 0 {
		t.Errorf("Open initialised an empty file")
	}
	if _, err := testOpen(filepath.Join(dir, "no-dir", "x.db"), Options{Create: true}); err == nil {
		t.Errorf("Open in a missing directory succeeded")
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	needFile(t)
	path := newDB(t, "a")
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyVersion, binary.BigEndian.AppendUint32(nil, schemaVersion+1))
	})
	b.Close()
	with(t, path, Options{}, func(db *DB) {
		if _, err := db.Hit("a", day1, ""); !errors.Is(err, ErrNewerSchema) {
			t.Errorf("Hit on a newer schema = %v, want ErrNewerSchema", err)
		}
	})
}

func TestOpenWaitsAtMostWait(t *testing.T) {
	needFile(t)
	path := newDB(t, "a")
	holder, err := testOpen(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	for _, readOnly := range []bool{false, true} {
		start := time.Now()
		_, err := testOpen(path, Options{ReadOnly: readOnly, Wait: 100 * time.Millisecond})
		took := time.Since(start)
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("read-only %v: Open while locked = %v, want ErrTimeout", readOnly, err)
		}
		if took < 100*time.Millisecond || took > 2*time.Second {
			t.Errorf("read-only %v: gave up after %v, want about 100ms", readOnly, took)
		}
	}
}

// TestOpenSaysTheLockIsTheDatabase makes counter.db.lock a link to the
// database, as a mistaken ln or cp -l would: a writer would lock the file
// against itself and time out as "busy". Open says what is wrong instead,
// at once, and reading still works.
func TestOpenSaysTheLockIsTheDatabase(t *testing.T) {
	needFile(t)
	tests := []struct {
		name string
		link func(oldname, newname string) error
	}{
		{"symbolic link", os.Symlink},
		{"hard link", os.Link},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := newDB(t, "a")
			os.Remove(LockPath(path))
			if err := tc.link(path, LockPath(path)); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			db, err := testOpen(path, Options{Wait: time.Second})
			if err == nil {
				db.Close()
			}
			if !errors.Is(err, ErrLockIsDatabase) || !strings.Contains(err.Error(), LockPath(path)) {
				t.Errorf("Open = %v, want ErrLockIsDatabase naming %s", err, LockPath(path))
			}
			if took := time.Since(start); took > 500*time.Millisecond {
				t.Errorf("gave up after %v, want at once", took)
			}
			with(t, path, Options{ReadOnly: true}, func(db *DB) {})
		})
	}
}

// TestConcurrentHitsAreAllCounted opens, hits and closes from 16
// goroutines at once, as 16 CGI processes would.
func TestConcurrentHitsAreAllCounted(t *testing.T) {
	path := newDB(t, "a")
	const workers, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				db, err := testOpen(path, Options{Wait: 10 * time.Second})
				if err != nil {
					errs <- err
					continue
				}
				if _, err := db.Hit("a", day1, ""); err != nil {
					errs <- err
				}
				db.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	with(t, path, Options{ReadOnly: true}, func(db *DB) {
		info, _ := db.Counter("a")
		days, _ := db.Days("a", day1)
		if info.Count != workers*each || len(days) != 1 || days[0].Views != workers*each {
			t.Errorf("total %d, days %v; want %d each", info.Count, days, workers*each)
		}
	})
}

// TestSchemaInOnePlace fails if a file of this package other than
// schema.go spells out a bucket name or key as a []byte literal.
func TestSchemaInOnePlace(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if f == "schema.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if at, ok := call.Fun.(*ast.ArrayType); ok && at.Len == nil {
				if id, ok := at.Elt.(*ast.Ident); ok && id.Name == "byte" {
					if _, ok := call.Args[0].(*ast.BasicLit); ok {
						t.Errorf("%s: []byte literal %s outside schema.go", f, call.Args[0].(*ast.BasicLit).Value)
					}
				}
			}
			return true
		})
	}
}

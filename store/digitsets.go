package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/store/kv"
)

// DigitSetRecords are an owner's digit set as the file keeps it: package
// digitset's header record and one record a piece (digitset.Set.Marshal),
// so that a hit reads the header and the pieces it draws, no more.
type DigitSetRecords struct {
	Head   []byte
	Digits [digitset.NumPieces][]byte // the digits, then the other pieces; nil for one not read or not there
}

// Size is the bytes of the records read.
func (r DigitSetRecords) Size() int {
	n := len(r.Head)
	for _, d := range r.Digits {
		n += len(d)
	}
	return n
}

// DigitSetInfo is one stored digit set, as digitset list shows it.
type DigitSetInfo struct {
	Name  string
	Added time.Time
	// Records holds the header only; Size is every record's bytes.
	Records DigitSetRecords
	Size    int
	// UsedBy are the counters that show it by default (theme=).
	UsedBy []string
}

// ErrDigitSetExists reports a digitset add of a name already taken.
var ErrDigitSetExists = errors.New("a digit set of that name exists")

// ErrDigitSetInUse reports the removal of a set that a counter shows by
// default.
var ErrDigitSetInUse = errors.New("digit set is a counter's default")

// digitSetBucket returns the bucket of set name, or nil.
func digitSetBucket(tx kv.Tx, name string) kv.Bucket {
	all := tx.Bucket(bucketDigitSets)
	if all == nil {
		return nil
	}
	return all.Bucket([]byte(name))
}

// AddDigitSet stores set name, made at now, replacing one of that name only
// when replace is set (a counter that shows it then shows the new one).
func (db *DB) AddDigitSet(name string, r DigitSetRecords, now time.Time, replace bool) error {
	if err := counter.CheckDigitSetName(name); err != nil {
		return err
	}
	if len(r.Head) == 0 || slices.ContainsFunc(r.Digits[:10], func(d []byte) bool { return len(d) == 0 }) {
		return fmt.Errorf("store: add digit set %q: a header and ten digit records wanted", name)
	}
	err := db.update(func(tx kv.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		all, err := tx.CreateBucketIfNotExists(bucketDigitSets)
		if err != nil {
			return err
		}
		if all.Bucket([]byte(name)) != nil {
			if !replace {
				return ErrDigitSetExists
			}
			if err := all.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		b, err := all.CreateBucket([]byte(name))
		if err != nil {
			return err
		}
		if err := b.Put(keyDigitSetHead, r.Head); err != nil {
			return err
		}
		for i, d := range r.Digits {
			if len(d) == 0 {
				continue // a piece the set lacks
			}
			if err := b.Put(digitSetDigitKey(i), d); err != nil {
				return err
			}
		}
		return b.Put(keyDigitSetAdded, encodeTime(now))
	})
	if err != nil {
		return fmt.Errorf("store: add digit set %q: %w", name, err)
	}
	return nil
}

// DigitSetRecords reads set name's header and the records of the pieces
// that text draws (a count's digits, ',' and '-', and the set's start and
// end; "0123456789,-" for all), copied out of the file; a set not there
// is counter.ErrNoDigitSet.
func (db *DB) DigitSetRecords(name, text string) (DigitSetRecords, error) {
	var r DigitSetRecords
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		b := digitSetBucket(tx, name)
		if b == nil {
			return counter.ErrNoDigitSet
		}
		var err error
		r, err = readDigitSetRecords(b, text)
		return err
	})
	if err != nil {
		return r, fmt.Errorf("store: digit set %q: %w", name, err)
	}
	return r, nil
}

// readDigitSetRecords copies the header and the digits of text out of b.
func readDigitSetRecords(b kv.Bucket, text string) (DigitSetRecords, error) {
	return digitSetRecordsIn(b, text, bytes.Clone)
}

// digitSetRecordsIn returns the header and the pieces text draws in b,
// each through keep: a copy, for records used after the transaction, or
// the records as the file maps them, for use within it. A digit is
// always there; another piece only when the set has it, which the
// header, parsed later, says.
func digitSetRecordsIn(b kv.Bucket, text string, keep func([]byte) []byte) (DigitSetRecords, error) {
	var r DigitSetRecords
	r.Head = keep(b.Get(keyDigitSetHead))
	if len(r.Head) == 0 {
		return r, fmt.Errorf("%w: digit set without a header", ErrCorrupt)
	}
	var want [digitset.NumPieces]bool
	for i := 0; i < len(text); i++ {
		if k, ok := digitset.PieceOf(text[i]); ok {
			want[k] = true
		}
	}
	want[digitset.Start], want[digitset.End] = true, true
	for i, w := range want {
		if !w {
			continue
		}
		d := b.Get(digitSetDigitKey(i))
		if len(d) == 0 && i < 10 {
			return r, fmt.Errorf("%w: digit set without digit %d", ErrCorrupt, i)
		}
		if len(d) > 0 {
			r.Digits[i] = keep(d)
		}
	}
	return r, nil
}

// DigitSets returns every stored set, sorted by name, with the counters that
// show each by default.
func (db *DB) DigitSets() ([]DigitSetInfo, error) {
	var list []DigitSetInfo
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		all := tx.Bucket(bucketDigitSets)
		if all == nil {
			return nil
		}
		users, err := digitSetUsers(tx)
		if err != nil {
			return err
		}
		return all.ForEachBucket(func(k []byte) error {
			t, err := readDigitSetInfo(string(k), all.Bucket(k))
			if err != nil {
				return fmt.Errorf("digit set %q: %w", k, err)
			}
			t.UsedBy = users[t.Name]
			list = append(list, t)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: digit sets: %w", err)
	}
	return list, nil
}

func readDigitSetInfo(name string, b kv.Bucket) (DigitSetInfo, error) {
	t := DigitSetInfo{Name: name}
	var err error
	if t.Added, err = decodeTime(b.Get(keyDigitSetAdded)); err != nil {
		return t, err
	}
	if t.Records, err = readDigitSetRecords(b, ""); err != nil {
		return t, err
	}
	t.Size = len(t.Records.Head)
	for i := range digitset.NumPieces {
		t.Size += len(b.Get(digitSetDigitKey(i)))
	}
	return t, nil
}

// digitSetUsers maps each digit set to the counters that show it by
// default.
func digitSetUsers(tx kv.Tx) (map[string][]string, error) {
	users := map[string][]string{}
	all := tx.Bucket(bucketCounters)
	if all == nil {
		return users, nil
	}
	err := all.ForEachBucket(func(k []byte) error {
		if v := all.Bucket(k).Get(keyTheme); len(v) > 0 {
			users[string(v)] = append(users[string(v)], string(k))
		}
		return nil
	})
	return users, err
}

// RemoveDigitSet removes set name. A set that a counter shows by default is
// kept, and the error (ErrDigitSetInUse) names the counters: a hit on them
// would otherwise draw the font without a word to the owner.
func (db *DB) RemoveDigitSet(name string) error {
	err := db.update(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		if digitSetBucket(tx, name) == nil {
			return counter.ErrNoDigitSet
		}
		users, err := digitSetUsers(tx)
		if err != nil {
			return err
		}
		if u := users[name]; len(u) > 0 {
			return fmt.Errorf("%w of %s: change their theme= first (config NAME theme=)", ErrDigitSetInUse, strings.Join(u, ", "))
		}
		return tx.Bucket(bucketDigitSets).DeleteBucket([]byte(name))
	})
	if err != nil {
		return fmt.Errorf("store: remove digit set %q: %w", name, err)
	}
	return nil
}

// checkDigitSetRecords fails unless r is a whole set as digitset reads it.
func checkDigitSetRecords(r DigitSetRecords) error {
	_, err := r.Parse()
	return err
}

// RecordsOf returns set s as the file keeps it.
func RecordsOf(s *digitset.Set) DigitSetRecords {
	r := DigitSetRecords{Head: s.MarshalHeader()}
	for i := range r.Digits {
		r.Digits[i] = s.MarshalDigit(i) // nil for a piece it lacks
	}
	return r
}

// Parse reads the records into a set that holds the digits read (its
// pixels alias the records); damaged records are ErrCorrupt.
func (r DigitSetRecords) Parse() (*digitset.Set, error) {
	s, err := digitset.ParseHeader(r.Head)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	for i, d := range r.Digits {
		if d == nil {
			continue
		}
		if err := s.ParseDigit(i, d); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
	}
	return s, nil
}

// DigitSet reads set name with, of each digit that text holds, its first
// frames frames and, with pieces, its file (draw.SetParts), copied out of
// the file: the transaction lasts as long as a bounded copy, the set's
// own bounds, and the set is drawn after it, so that no stranger's
// image in a digit set holds the file's lock while it is drawn. A set not there
// is counter.ErrNoDigitSet.
func (db *DB) DigitSet(name, text string, frames int, pieces bool) (*digitset.Set, error) {
	var s *digitset.Set
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		b := digitSetBucket(tx, name)
		if b == nil {
			return counter.ErrNoDigitSet
		}
		// Parsed where the file maps it, then only what is drawn copied.
		r, err := digitSetRecordsIn(b, text, func(v []byte) []byte { return v })
		if err != nil {
			return err
		}
		mapped, err := r.Parse()
		if err != nil {
			return err
		}
		s = mapped.Detach(text, frames, pieces)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: digit set %q: %w", name, err)
	}
	return s, nil
}

// DigitSetNames returns the names of the stored sets, sorted, reading no
// set: for the pages that show every digit set.
func (db *DB) DigitSetNames() ([]string, error) {
	var names []string
	err := db.view(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		if all := tx.Bucket(bucketDigitSets); all != nil {
			return all.ForEachBucket(func(k []byte) error {
				names = append(names, string(k))
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: digit set names: %w", err)
	}
	return names, nil
}

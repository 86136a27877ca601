package store

import (
	"encoding/binary"
	"fmt"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// notCounted is the hits not counted, a column per kind, in the order of
// counter.NotCountedKinds.
type notCounted [len(counter.NotCountedKinds)]uint64

// addTally adds a day's hits not counted to n.
func (n *notCounted) addTally(t counter.Tally) {
	for i, k := range counter.NotCountedKinds {
		n[i] = counter.AddCount(n[i], t.NotCounted[k])
	}
}

// The not-counted record (schema.go, doc.go): 8-byte big-endian columns.
func encodeNotCounted(n notCounted) []byte {
	b := make([]byte, 0, 8*len(n))
	for _, v := range n {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

func decodeNotCounted(rec []byte) (n notCounted, err error) {
	if len(rec) != 8*len(n) {
		return n, fmt.Errorf("%w: not-counted record of %d bytes", ErrCorrupt, len(rec))
	}
	for i := range n {
		n[i] = binary.BigEndian.Uint64(rec[8*i:])
	}
	return n, nil
}

// sumTally is the hits not counted of every tally row of counter b.
func sumTally(b kv.Bucket) (notCounted, error) {
	var n notCounted
	d := b.Bucket(bucketTally)
	if d == nil {
		return n, nil
	}
	err := d.ForEach(func(_, v []byte) error {
		var t counter.Tally
		if err := decodeTally(v, &t); err != nil {
			return err
		}
		n.addTally(t)
		return nil
	})
	return n, err
}

// tallyNotCounted is the hits not counted of every tally row of counter
// b: its record, which keeps their sums, or else the rows added up.
func tallyNotCounted(b kv.Bucket) (notCounted, error) {
	if rec := b.Get(keyNotCounted); rec != nil {
		return decodeNotCounted(rec)
	}
	return sumTally(b)
}

// addNotCounted keeps counter b's record true after its tally rows gained
// t's hits not counted: the record gains them too, or, with no record,
// the rows' sums make one. A write of the tally that cannot say what it
// added (an import) removes the record instead (dropNotCounted).
func addNotCounted(b kv.Bucket, t counter.Tally) error {
	var n notCounted
	var err error
	if rec := b.Get(keyNotCounted); rec != nil {
		if n, err = decodeNotCounted(rec); err != nil {
			return err
		}
		n.addTally(t)
	} else if n, err = sumTally(b); err != nil {
		return err
	}
	return b.Put(keyNotCounted, encodeNotCounted(n))
}

// dropNotCounted removes counter b's record, after a write of its tally
// rows that cannot say what it added or took: the next fold makes it
// anew, and until then a reader adds the rows up.
func dropNotCounted(b kv.Bucket) error {
	if b.Get(keyNotCounted) == nil {
		return nil
	}
	return b.Delete(keyNotCounted)
}

// SettleNotCounted makes the record of every counter that has none, so
// that the metrics read one key of each, not its history (token metrics
// runs it: a counter with no hit since has no fold to make it).
func (db *DB) SettleNotCounted() error {
	err := db.write(func(tx kv.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		all := tx.Bucket(bucketCounters)
		if all == nil {
			return nil
		}
		return all.ForEachBucket(func(k []byte) error {
			b := all.Bucket(k)
			if b.Get(keyNotCounted) != nil {
				return nil
			}
			if err := addNotCounted(b, counter.Tally{}); err != nil {
				return fmt.Errorf("%q: %w", k, err)
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("store: settle not-counted: %w", err)
	}
	return nil
}

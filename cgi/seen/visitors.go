package seen

import (
	"hash"
	"time"
)

// Visitors judges visits. A Table does so on the runtime directory's
// files, for the processes of one host; a store in an etcd cluster has a
// table the hosts share (package etcdseen, in the full tool built with
// -tags etcd), so that a visitor seen by two hosts is one visitor and his
// reload on the second is a reload.
type Visitors interface {
	// See judges v and records its counted view, as Table.See does.
	See(v Visit) (Verdict, error)
	// Unsee takes back what See wrote for v, as Table.Unsee does.
	Unsee(v Visit, verdict Verdict) error
	// Close releases what the table keeps open.
	Close() error
}

var _ Visitors = (*Table)(nil)

// KeySize is the size of a visitor's hash.
const KeySize = keySize

// Hash is visitor v's hash under mac, a HMAC-SHA256 keyed with the day's
// salt, as every table hashes a visitor: no address or User-Agent is kept,
// only this. buf is scratch space, returned for reuse.
func Hash(mac hash.Hash, buf []byte, v *Visit) ([KeySize]byte, []byte) {
	k, buf := visitorKey(mac, buf, v)
	return k, buf
}

// NewSalt makes a day's salt, from crypto/rand.
func NewSalt() [32]byte { return newSalt() }

// Joins reports whether v is the other request of the view that a mark
// asked for by via recorded (see Verdict.Joined).
func (v *Visit) Joins(via Via) bool { return joins(v, via) }

// Quiet reports whether v, a reload of the view a mark asked for by via
// recorded, is a script's on a page whose image asks too (Verdict.Quiet).
func (v *Visit) Quiet(via Via) bool { return quiet(v, via) }

// JoinsWithin is how long after a view the other request of it joins.
func (v *Visit) JoinsWithin() time.Duration { return v.joinsWithin() }

// Seconds is t as a mark's time, to the second: never 0, which means no
// mark.
func Seconds(t time.Time) uint32 { return unixSeconds(t) }

// Undo says what See wrote for the verdict, for another table's Unsee:
// the time of the counted view (0 if it wrote none), and the visitor's
// last one before it (0 when he was new today) and what asked for it.
func (v Verdict) Undo() (marked, prev uint32, prevVia Via) { return v.marked, v.prev, v.prevVia }

// WithUndo is v recording what another table's See wrote (see Undo).
func (v Verdict) WithUndo(marked, prev uint32, prevVia Via) Verdict {
	v.marked, v.prev, v.prevVia = marked, prev, prevVia
	return v
}

package seen

import (
	"crypto/rand"
	"encoding/binary"
	"hash"
	"math"
	"time"
)

// The table file's layout, described in doc.go. A change to it needs a
// new version (an old table is then simply made anew).
const (
	magic      = "counter-seen"
	version    = 3
	headerSize = 64
	// flagsAt is where the shares' flags start, one byte a share: 1 once
	// that share has forgotten a visitor today (Verdict.Crowded said so).
	flagsAt = headerSize
	// dirAt is the directory of shares: a counter name a share, in the
	// order the counters were first seen that day.
	dirAt    = 4096
	nameSize = 64 // counter.MaxNameLen
	// shares is how many counters a day get a share of their own.
	shares  = 64
	dirSize = shares * nameSize
	// dataAt is where the shares' slots start, on a page of their own.
	dataAt      = dirAt + dirSize
	saltSize    = 32
	keySize     = 11
	viaAt       = keySize // the slot's Via byte
	timeAt      = keySize + 1
	slotSize    = timeAt + 4
	bucketSlots = 64
	bucketSize  = bucketSlots * slotSize
	// defaultShareSlots is a share's size in visitors a day: 64 KiB, and
	// 4 MiB for all 64 shares.
	defaultShareSlots = 1 << 12
	filePrefix        = "seen-"
	dayLayout         = "2006-01-02"
)

// key is a visitor's hash.
type key [keySize]byte

// fileSize is the size of a table file whose shares have so many slots
// each.
func fileSize(shareSlots int) int64 { return dataAt + shares*int64(shareSlots)*slotSize }

// newSalt makes a day's salt.
func newSalt() (s [saltSize]byte) {
	rand.Read(s[:]) // never fails, or crashes the program
	return s
}

func encodeHeader(shareSlots int, salt [saltSize]byte) []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.BigEndian.PutUint32(b[12:], version)
	binary.BigEndian.PutUint32(b[16:], shares)
	binary.BigEndian.PutUint32(b[20:], uint32(shareSlots))
	copy(b[32:], salt[:])
	return b
}

// decodeHeader returns the salt of a header made for shares of so many
// slots.
func decodeHeader(b []byte, shareSlots int) (salt [saltSize]byte, ok bool) {
	if len(b) < headerSize || string(b[:len(magic)]) != magic ||
		binary.BigEndian.Uint32(b[12:]) != version || binary.BigEndian.Uint32(b[16:]) != shares ||
		binary.BigEndian.Uint32(b[20:]) != uint32(shareSlots) {
		return salt, false
	}
	return [saltSize]byte(b[32:headerSize]), true
}

// visitorKey hashes a visitor with mac, which is keyed with the day's
// salt. buf is scratch space, returned for reuse.
func visitorKey(mac hash.Hash, buf []byte, v *Visit) (key, []byte) {
	buf = buf[:0]
	for _, s := range [...]string{v.Counter, v.Page, v.Addr, v.UserAgent} {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	mac.Reset()
	mac.Write(buf)
	var sum [32]byte
	return key(mac.Sum(sum[:0])[:keySize]), buf
}

// hashedShare is the share of a counter that has none of its own (the
// directory was full when it came): picked by a keyed hash of its name,
// so that nobody can tell, or choose, which counters share.
func hashedShare(mac hash.Hash, buf []byte, name string) (int, []byte) {
	buf = binary.AppendUvarint(buf[:0], uint64(len(name)))
	buf = append(buf, name...)
	mac.Reset()
	mac.Write(buf)
	var sum [32]byte
	return int(binary.BigEndian.Uint32(mac.Sum(sum[:0])) % shares), buf
}

// dirEntry is how a counter name is stored in the directory: its bytes,
// then zeros. A name that cannot be (empty, too long, or holding a zero
// byte) has no entry: ok is false.
func dirEntry(name string) (e [nameSize]byte, ok bool) {
	if name == "" || len(name) > nameSize {
		return e, false
	}
	for i := range len(name) {
		if name[i] == 0 {
			return e, false
		}
	}
	copy(e[:], name)
	return e, true
}

// bucketAt is the offset of the bucket that a visitor of key k lives in,
// in share s of shares of so many slots.
func bucketAt(k key, s, shareSlots int) int64 {
	b := binary.BigEndian.Uint32(k[:4]) % uint32(shareSlots/bucketSlots)
	return dataAt + int64(s)*int64(shareSlots)*slotSize + int64(b)*bucketSize
}

// unixSeconds is t as a slot's time: never 0, which marks an empty slot.
func unixSeconds(t time.Time) uint32 {
	return uint32(min(max(t.Unix(), 1), math.MaxUint32))
}

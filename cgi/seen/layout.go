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
	version    = 1
	headerSize = 64
	// fullFlag is the header's byte that says the table was found full
	// (ErrFull) today; zero when made.
	fullFlag    = 20
	saltSize    = 32
	keySize     = 12
	slotSize    = keySize + 4
	bucketSlots = 16
	bucketSize  = bucketSlots * slotSize
	// probes is how many buckets a visitor may live in: its own and the
	// next ones.
	probes = 4
	// defaultSlots is the table's size in visitors a day: 1 MiB.
	defaultSlots = 1 << 16
	filePrefix   = "seen-"
	dayLayout    = "2006-01-02"
)

// key is a visitor's hash.
type key [keySize]byte

// fileSize is the size of a table file of so many slots.
func fileSize(slots int) int64 { return headerSize + int64(slots)*slotSize }

// newSalt makes a day's salt.
func newSalt() (s [saltSize]byte) {
	rand.Read(s[:]) // never fails, or crashes the program
	return s
}

func encodeHeader(slots int, salt [saltSize]byte) []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.BigEndian.PutUint32(b[12:], version)
	binary.BigEndian.PutUint32(b[16:], uint32(slots))
	copy(b[32:], salt[:])
	return b
}

// decodeHeader returns the salt of a header made for so many slots.
func decodeHeader(b []byte, slots int) (salt [saltSize]byte, ok bool) {
	if len(b) < headerSize || string(b[:len(magic)]) != magic ||
		binary.BigEndian.Uint32(b[12:]) != version || binary.BigEndian.Uint32(b[16:]) != uint32(slots) {
		return salt, false
	}
	return [saltSize]byte(b[32:headerSize]), true
}

// visitorKey hashes a visitor with mac, which is keyed with the day's
// salt. buf is scratch space, returned for reuse.
func visitorKey(mac hash.Hash, buf []byte, v *Visit) (key, []byte) {
	buf = buf[:0]
	for _, s := range [...]string{v.Counter, v.Addr, v.UserAgent} {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	mac.Reset()
	mac.Write(buf)
	var sum [32]byte
	return key(mac.Sum(sum[:0])), buf
}

// bucketOf is the first bucket a visitor may live in.
func bucketOf(k key, slots int) int {
	return int(binary.BigEndian.Uint32(k[:4]) % uint32(slots/bucketSlots))
}

// encodeSlot writes a visitor and the time of its counted view.
func encodeSlot(b []byte, k key, last uint32) []byte {
	b = append(b[:0], k[:]...)
	return binary.BigEndian.AppendUint32(b, last)
}

// unixSeconds is t as a slot's time: never 0, which marks an empty slot.
func unixSeconds(t time.Time) uint32 {
	return uint32(min(max(t.Unix(), 1), math.MaxUint32))
}

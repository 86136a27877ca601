package store

import (
	"strconv"

	berrors "go.etcd.io/bbolt/errors"
)

// bbolt maps the whole file into memory. It doubles the map up to 1 GiB and
// grows it in 1 GiB steps after that, and on 32-bit platforms it refuses a
// map over 2 GB. So on a Pi with a 32-bit OS, a file just past 1 GiB needs
// a 2 GB map, in an address space of 2 or 3 GB that already holds the
// program and its heap, and bbolt cannot open a file over 2 GB at all. The
// file therefore never grows past a maximum, 1 GiB unless told otherwise,
// and the map never past 1 GiB with it. (qemu-user on a 64-bit machine
// gives a 32-bit program nearly 4 GB, so the tests cannot show the failure
// itself; they show that the file stops at its maximum.)

// DefaultMaxSize is the size past which the file does not grow, unless
// Options.MaxSize says otherwise. A hit counter's file stays far below it:
// a counter adds about 40 bytes for each day it is hit.
const DefaultMaxSize = 1 << 30

// SmallestMaxSize is the smallest maximum Options.MaxSize may set: room for
// bbolt's first map (32 KiB) and some 70 counters, for tests of a full file.
const SmallestMaxSize = 64 << 10

// LargestMaxSize is the largest maximum Options.MaxSize may set: 1 GiB on
// 32-bit platforms (see above), 1 TiB on 64-bit ones.
const LargestMaxSize = 1 << (30 + 10*(strconv.IntSize/64))

// ErrFull reports a write that would have grown the file past its maximum
// size. Nothing of that transaction is kept, the file stays consistent,
// and reads, as well as writes that fit in pages already free, still work.
// It is bbolt's own error, so errors.Is finds it in any write's error.
var ErrFull = berrors.ErrMaxSizeReached

// maxSize is the maximum to give bbolt for n, a value of Options.MaxSize.
func maxSize(n int) int {
	if n <= 0 {
		return DefaultMaxSize
	}
	return min(max(n, SmallestMaxSize), LargestMaxSize)
}

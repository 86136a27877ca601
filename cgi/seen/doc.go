// Package seen remembers which visitors a counter saw today, so that the
// counter can count unique visitors per UTC day and tell a reload from a
// view, without a client address or User-Agent ever reaching the
// database or the disk.
//
// A visitor is a keyed hash: the first 12 bytes of HMAC-SHA256, under a
// random salt of the day, of the counter name, the client address and
// the User-Agent, each prefixed by its length so that fields cannot run
// into each other. Only that hash and the time of the visitor's last
// counted view are kept.
//
// # Files
//
// One table file a UTC day in the runtime directory (COUNTER_RUN_DIR, on
// tmpfs), named seen-YYYY-MM-DD, mode 0600, shared by the CGI processes
// and a FastCGI process:
//
//	offset  size  field
//	0       12    magic "counter-seen"
//	12      4     format version, 1 (big-endian, as every number here)
//	16      4     number of slots, 65,536
//	20      1     1 once See has said ErrFull today, else 0
//	21      11    zero
//	32      32    salt of the day, from crypto/rand
//	64      ...   buckets of 16 slots (256 bytes) each
//
// A slot is 16 bytes: the 12-byte visitor hash, then the Unix time in
// seconds (uint32) of the visitor's last counted view; a time of 0 marks
// an empty slot. A visitor lives in the bucket its hash picks, or in one
// of the next three; slots fill in order and are never emptied during a
// day, so a lookup stops at the first empty slot.
//
// # Guarantees
//
//   - Bounded: a table is 64 + 65,536 × 16 bytes (1 MiB) whatever the
//     traffic; when a visitor's buckets are full, See returns ErrFull, the
//     first time that day, and ErrStillFull after. On
//     tmpfs only the pages written take memory.
//   - No fsync, ever: the table is on tmpfs, and a hit must not wait for a
//     disk. A reboot forgets who was seen, which costs at most a day's
//     uniqueness, never a count.
//   - Each See reads and writes single buckets (pread, pwrite) under an
//     exclusive flock of the day's file, so every process agrees.
//   - Salt lifetime: a day's salt is made with its table on the day's
//     first hit, is kept through the next day (a reload just after
//     midnight is still known as one), and is deleted with its table when
//     a later table is made; it never outlives a reboot, since the
//     directory is tmpfs. No salt, hash, address or User-Agent leaves
//     these files, in errors or otherwise.
//   - A table file of the wrong size or with a bad header is made anew.
package seen

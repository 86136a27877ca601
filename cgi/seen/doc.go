// Package seen remembers which visitors a counter saw today, so that the
// counter can count unique visitors per UTC day and tell a reload from a
// view, without a client address or User-Agent ever reaching the
// database or the disk.
//
// A visitor is a keyed hash: the first 11 bytes of HMAC-SHA256, under a
// random salt of the day, of the counter name, the page of a site (empty
// for a counter, or the site itself), the client address and the
// User-Agent, each prefixed by its length (a uvarint) so that fields
// cannot run into each other. Only that hash and the time of the
// visitor's last counted view are kept.
//
// On a store in an etcd cluster, the hosts share one table instead
// (package etcdseen, through the interface Visitors): the same hashes,
// the salt and the marks kept in the cluster under leases.
//
// # Files
//
// One table file a UTC day in the runtime directory (COUNTER_RUN_DIR, on
// tmpfs), named seen-YYYY-MM-DD, mode 0600, shared by the CGI processes
// and a FastCGI process. It is cut into 64 shares, one a counter, so that
// a flood of made-up visitors on one counter cannot crowd out the
// visitors of another:
//
//	offset  size       field
//	0       12         magic "counter-seen"
//	12      4          format version, 3 (big-endian, as every number here)
//	16      4          number of shares, 64
//	20      4          slots in a share, 4,096
//	24      8          zero
//	32      32         salt of the day, from crypto/rand
//	64      64         flags, a byte a share: 1 once it has forgotten a
//	                   visitor today (see below), else 0
//	128     3,968      zero
//	4096    64 × 64    directory: the name of the counter of each share,
//	                   then zeros; all zeros for a share not yet taken
//	8192    64 × 64 KiB  the shares, each of 64 buckets of 64 slots (1 KiB)
//
// A counter takes the next free share on its first view of the day
// (entries fill in order and are kept all day), and a site's pages live
// in the site's share. Counters are made by the owner alone, so visitors
// cannot take shares; should more than 64 counters be viewed in one day,
// the later ones each use one of the 64 shares, picked by a keyed hash of
// the name (HMAC-SHA256 under the day's salt), and share it with the
// counter that took it.
//
// A slot is 16 bytes: the 11-byte visitor hash, a byte that says what
// asked for the visitor's last counted view (bit 0 the page's image, bit
// 1 its script, both once the other joined it; 0 for neither), then the
// Unix time in seconds (uint32) of that view; a time of 0 marks an empty
// slot. A page that carries both the image and the script sends two
// requests for one view, in either order: the second, within the reload
// window (a minute when the counter has none), is joined to the first
// (Verdict.Joined), counted neither as a view nor as a reload, and a
// third is a reload; the script's reload of a view its image asked for
// too is quiet (Verdict.Quiet), so that one reload of the page is one
// reload. A visitor lives in the bucket of his counter's share
// that his hash picks (its first 4 bytes, modulo 64). Slots fill in order
// and are never emptied during a day, so a lookup stops at the first
// empty slot; and a bucket's slots are kept in the order their views
// were counted: a visitor whose view is counted again moves to the end
// of the taken slots (the slots after his move up one).
//
// When a new visitor's bucket is full, its first slot, the visitor whose
// view was counted longest ago, is forgotten: the others move up one and
// the new visitor takes the last slot. (The order, not the times, which
// are to the second, says who is oldest: a flood writes a bucket's 64 in
// a second or two.) So a full share never turns reloads into views: what
// a flood of made-up visitors on a counter costs is the uniqueness of
// that counter's visitors seen longest ago (one who comes back after
// being forgotten is counted as a new visitor again), and nothing on any
// other counter. A counter's share holds its last 4,096 or so visitors
// (and visitors of its pages): at the default reload window of 30
// minutes, reloads stay known up to about 200,000 new visitors a day on
// one counter; under a flood, for as long as the flood takes to write
// 4,096 others (a few seconds of one FastCGI process's hits). The first
// hit that forgets a visitor in a share says so once a day (the share's
// flag), for the owner's log.
//
// A long-lived process answers some hits from its memory of the views it
// counted itself, without the file (Table.known); those do not move the
// visitor's slot, which costs nothing but, in a full bucket, the order
// of a visitor seen again with no reload window.
//
// # Guarantees
//
//   - Bounded: a table is 8,192 + 64 × 4,096 × 16 bytes (4 MiB and 8 KiB)
//     whatever the traffic, and two exist at most (today's and
//     yesterday's). On tmpfs only the pages written take memory: 8 KiB,
//     and 64 KiB at most for each counter viewed that day, so 4 MiB a
//     day only if 64 counters are each flooded or viewed by thousands.
//   - No fsync, ever: the table is on tmpfs, and a hit must not wait for a
//     disk. A reboot forgets who was seen, which costs at most a day's
//     uniqueness, never a count.
//   - Each See reads the header, the directory (a long-lived process
//     keeps the shares it looked up) and one bucket, and writes the slots
//     that change, one for a new visitor in a bucket with room, the
//     bucket's 1 KiB at most (pread, pwrite), under an exclusive flock of
//     the day's file, so every process agrees.
//   - Salt lifetime: a day's salt is made with its table on the day's
//     first hit, is kept through the next day (a reload just after
//     midnight is still known as one), and is deleted with its table when
//     a later table is made; it never outlives a reboot, since the
//     directory is tmpfs. No salt, hash, address or User-Agent leaves
//     these files, in errors or otherwise; the directory holds counter
//     names, which are public anyway (they are in the counters' URLs).
//   - A table file of the wrong size or with a bad header (one of an
//     older version among them) is made anew.
package seen

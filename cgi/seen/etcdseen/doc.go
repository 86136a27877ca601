// Package etcdseen is the visitor table that the hosts of a store in an
// etcd cluster share: a visitor seen by host A and then by host B is one
// visitor, and his reload on B within the window is a reload. It judges
// as package seen's Table does, with the same keyed hashes; only where
// the marks are kept differs.
//
// # Keys
//
// Beside the store, under B = etcdkv.BesidePrefix(PREFIX) + "seen/":
//
//	B DAY "/salt"                      the day's salt, 32 bytes from crypto/rand
//	B DAY "/m/" share bucket visitor   a mark: the Unix second (4 bytes,
//	                                   big-endian) of the visitor's last
//	                                   counted view, and the seen.Via byte
//	B DAY "/c/" share                  set once the share forgot a visitor
//	                                   that day (seen.Verdict.Crowded)
//	B "lease/" END                     the ID (8 bytes) of the lease that
//	                                   ends at END, a Unix second in decimal
//
// DAY is the UTC day, 2006-01-02. share is 8 bytes of HMAC-SHA256, under
// the day's salt, of the counter's name; bucket one byte, the visitor's
// hash (its first 4 bytes) modulo 64; visitor the 11-byte hash of
// seen.Hash. No address, User-Agent or counter name is stored, only
// those hashes and times.
//
// # Leases
//
// Every key is attached to an etcd lease that ends when it is no longer
// needed: a mark at the end of its day, or of its reload window when
// that runs past midnight (rounded up to a quarter of an hour, so that
// the few marks written then share a few leases); the salt a day after
// its own day (counter.MaxReload), for the reloads just after midnight.
// A lease is granted once for its end, named under B "lease/" (under
// itself), and reused by every key that ends then, whichever host or
// process writes it: a cluster holds about two leases a day, not one a
// mark or a process. The first
// host to make a day's salt also deletes whatever is left of the days
// before yesterday, so that a lease that a leader change extended (etcd
// without lease checkpoints restarts a lease's time on a new leader)
// does not keep a key past then.
//
// # Bound
//
// A counter's share holds at most 64 buckets of 64 marks, 4,096 visitors
// a day, as a share of the file table does: when a new visitor makes a
// bucket hold more, the marks in it whose last change is the oldest (by
// etcd's mod revision) are deleted. So a flood of made-up visitors on a
// counter costs that counter the uniqueness of the visitors it saw
// longest ago, and nothing on any other counter; a day's marks are at
// most 4,096 a counter viewed that day, and visitors cannot make
// counters. A bucket, not a share, is the unit so that the count and the
// oldest are one small sorted range read inside the same transaction.
//
// # Cost and atomicity
//
// A hit costs one transaction when the visitor is new (added on
// condition that he is not there, which reads the bucket's count too) or
// a reload (the same transaction, whose other branch reads his mark); a
// counted view of a known visitor, a join and a take back (Unsee) write
// on condition that the mark's revision is what was read, one round trip
// more. Two hosts that see one visitor at the same instant so count him
// once: one adds the mark, the other finds it. A full bucket costs one
// more for the eviction, and the first hour after midnight (within the
// reload window) one more to look for yesterday's mark. A long-lived
// process keeps the day's salt and leases, and answers a reload of a view
// it counted itself from its memory; the adds of its concurrent hits go
// as one transaction of nested ones. A process that serves one hit (CGI)
// reads the salt and the lease first, two reads more.
package etcdseen

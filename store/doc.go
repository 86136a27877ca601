// Package store keeps the counts in one bbolt file, shared by every CGI
// process, FastCGI worker and admin command. It is the only package that
// imports bbolt.
//
// # Schema (version 1)
//
// Every bucket name and key encoding is declared in schema.go; no other file
// spells one out.
//
//	meta/                      bucket
//	  version   -> uint32      schema version, big-endian
//	  session-key -> [32]byte  signs session cookies; made by crypto/rand
//	                           when the first password is set, made anew
//	                           at each logout (which ends every session)
//	counters/                  bucket, one nested bucket per counter
//	  NAME/                    bucket, NAME as in counter.CheckName
//	    total   -> uint64      hits so far, big-endian
//	    created -> int64       creation time, Unix seconds, big-endian
//	    password -> bytes      bcrypt hash of the statistics password;
//	                           absent when the statistics are public
//	    days/                  bucket
//	      2006-01-02 -> uint64 hits on that UTC day; keys sort as dates
//	    referrers/             bucket, at most counter.MaxReferrers+1 keys
//	      HOST      -> uint64  hits from pages on HOST; hosts past the
//	                           bound add up under counter.OtherReferrers
//
// # Open and close discipline
//
// The file is opened for one transaction and closed again, never held while
// an image is drawn. Before bbolt takes its own lock (which polls every 50 ms
// and lets late comers overtake), Open takes a blocking flock on a side file,
// NAME.lock, exclusive for writers and shared for readers, so that waiting
// processes are woken by the kernel as soon as the holder is done. Every
// open waits at most Options.Wait and then fails with ErrTimeout. A flock
// that was given up on goes on blocking in the background, so a process
// that serves many requests passes Options.Waits to bound them: its
// readers and writers share a fixed number of blocked flocks.
//
// # Size
//
// The file never grows past Options.MaxSize, 1 GiB unless told otherwise and
// at most on 32-bit platforms, where bbolt's memory map cannot grow further
// (size.go). A write that would grow it fails with ErrFull and is not kept.
package store

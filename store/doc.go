// Package store keeps the counts in one bbolt file, shared by every CGI
// process, FastCGI worker and admin command, or in an etcd cluster that
// several hosts share. It reaches the bytes through package kv, whose
// engines (kv/boltkv, kv/etcdkv) are the only packages below it that know
// bbolt or etcd; store itself opens, checks and copies the file, which
// only a file has.
//
// # Schema (version 8)
//
// Every bucket name and key encoding is declared in schema.go; no other file
// spells one out. Keys marked v2 are new in version 2, v3 in version 3,
// v4 in version 4, v5 in version 5, v6 in version 6, v7 in version 7,
// v8 in version 8. A key of meta marked with a version, absent, is not
// set: a file of an earlier version reads as having none, so that such a
// key needs no step in migrate.go (owner-password, and the later ones).
//
// A counter's keys below hold its history: every hit up to the day of its
// today bucket's rows, whose hits are in that bucket (see "Today"); what a
// reader sees is the two added up.
//
//	meta/                      bucket
//	  version   -> uint32      schema version, big-endian
//	  session-key -> [32]byte  up to v7: signed every counter's session
//	                           cookies, made anew at each logout (which
//	                           ended every session). v8 makes it no more:
//	                           a file migrated from v7 keeps it, to check
//	                           the sessions of a counter without a
//	                           session-key of its own
//	  owner-password -> bytes  v8: bcrypt hash of the owner's password
//	                           (passwd -owner), whose login opens every
//	                           counter's statistics; absent, none
//	  owner-session-key -> [32]byte  v8: signs the owner's session
//	                           cookies; made by crypto/rand with the first
//	                           owner-password, made anew at the owner's
//	                           logout, which ends the owner's sessions
//	                           and no counter's
//	  owner-key -> [32]byte    v2: signs the cookies of browsers whose
//	                           owner asked not to be counted; made on the
//	                           first such request
//	  tallied-since -> int64   v2: when visitors and the hits not counted
//	                           began to be kept (the file's creation, or
//	                           its migration from version 1), Unix seconds
//	  last-backup -> int64     v8: when the backup command last wrote a
//	                           checked copy, Unix seconds; absent: never
//	  metrics-token -> [32]byte  v8: the SHA-256 of the token that opens
//	                           the metrics (token metrics, made by
//	                           crypto/rand, 32 bytes, printed once);
//	                           absent, the metrics open to nobody
//	counters/                  bucket, one nested bucket per counter
//	  NAME/                    bucket, NAME as in counter.CheckName
//	    total   -> uint64      views so far (hits counted), big-endian
//	    visitors -> uint64     v2: unique visitors, each day's added up
//	    created -> int64       creation time, Unix seconds, big-endian
//	    not-counted -> record  v8: the hits not counted of all the tally's
//	                           rows added up, 8-byte big-endian columns in
//	                           the order of counter.NotCountedKinds
//	                           (reloads, bots, prefetches, owner, foreign,
//	                           ignored), so that the metrics' totals of
//	                           all time read one key, not the history.
//	                           A write of a tally row (the fold of today's
//	                           rows, a hit dated in the past) adds to it,
//	                           or makes it from the rows when absent; an
//	                           import removes it; token metrics makes it
//	                           for every counter without one. Absent, a
//	                           reader adds the rows up
//	    password -> bytes      bcrypt hash of the statistics password;
//	                           absent when the statistics are public
//	    session-key -> [32]byte  v8: signs the counter's session cookies;
//	                           made by crypto/rand with its first password
//	                           (or its first logout, in a file migrated
//	                           from v7), made anew at each of its logouts,
//	                           which ends its sessions and no other's
//	    show    -> "views" | "visitors"   v2: what the image shows
//	    reload  -> uint64      v2: reload window in seconds, 0 for none
//	    ignore  -> text        v2: networks not counted, one CIDR per line
//	    allow-referrers -> text  v2: hosts whose pages count, one per
//	                           line, "*.example.org" for every host under
//	                           it; empty for every host
//	    theme   -> text        v6: the image's look when the tag names no
//	                           theme: a built-in look's name or a set's
//	                           under themes/; empty or absent, the font
//	    days/                  bucket
//	      2006-01-02 -> uint64 views on that UTC day; keys sort as dates
//	    tally/                 v2: bucket, days with anything but plain views
//	      2006-01-02 -> record 8-byte big-endian columns: visitors, views
//	                           via GitHub, reloads, bots, prefetches, owner,
//	                           foreign, ignored; a shorter record reads its
//	                           missing columns as zero, a longer one's
//	                           extra columns are a later version's
//	    referrers/             bucket, at most counter.MaxReferrers+1 keys
//	      HOST      -> uint64  views from pages on HOST; hosts past the
//	                           bound add up under counter.OtherReferrers
//	    sources/               v7: bucket, at most counter.MaxSources+1 keys
//	      SOURCE    -> uint64  views whose readers came from a page on
//	                           SOURCE (the page's own document.referrer,
//	                           which the script sends; never its path or
//	                           query): a host, or a group's name
//	                           (counter.SourceKey: "Google", "Reddit"),
//	                           never one of the counter's own hosts; past
//	                           the bound, under counter.OtherSources
//	    hosts   -> text        v3: makes the counter a site: the hosts whose
//	                           pages it counts, one per line, "*.example.org"
//	                           for every host under it; never empty
//	    max-pages -> uint64    v3, sites: most pages hits may make
//	    keep-query -> text     v3, sites: query keys that tell pages apart,
//	                           one per line
//	    image   -> "page" | "site"  v3, sites: what the image counts
//	    public-pages -> "on"   sites: any page may read the site's most
//	                           viewed pages (NAME.json?top=N); absent, off
//	                           (a file that never had the key reads as
//	                           before, so it needs no new version)
//	    page-count -> uint64   v3, sites: the keys of pages/ but OtherPages
//	    pages-folded -> "2006-01-02"  v3, sites: the last day whose
//	                           page-days are added into the pages' records
//	    pages-trimmed -> "2006-01-02"  v5, sites: the last day whose
//	                           page-days keep only its KeptPagesADay most
//	                           viewed pages; absent, none (a file of
//	                           version 4); never after pages-folded
//	    pages/                 v3, sites: bucket
//	      PAGE    -> record    8-byte big-endian columns: views, visitors
//	                           (each day's added up) of the days up to
//	                           pages-folded and of any hit dated on or
//	                           before it; first seen (Unix seconds); PAGE as
//	                           counter.PageKey makes it ("/posts/hello"), or
//	                           counter.OtherPages for the hits on new pages
//	                           past max-pages
//	    titles/                v7, sites: bucket, at most counter.MaxTitles
//	      PAGE    -> text      the page's title, as the owner's titles
//	                           command read it from the site's own feed
//	                           (counter.CleanTitle: one line, at most
//	                           counter.MaxTitleLen bytes); replaced whole
//	                           by each command, never written by a hit
//	    page-days/             v3, sites: bucket
//	      2006-01-02PAGE -> record  the date, then PAGE as in pages/: the
//	                           page's views and visitors that day, 8-byte
//	                           big-endian columns; a day's pages sort
//	                           together. v5: on a day up to pages-trimmed,
//	                           the OtherPages row also holds the views and
//	                           visitors of the day's pages past its
//	                           KeptPagesADay most viewed, whose own rows
//	                           are gone (their records keep them), and it
//	                           may be there when pages/ has no OtherPages
//	costs/                     v4: bucket, what the counter costs on this
//	                           machine (package cgi/meter); made by
//	                           the first day folded
//	  days/                    bucket, a key a UTC day, kept a year
//	    2006-01-02 -> record   meter.Day.Encode: a version byte, the build
//	                           (a length byte, then text), then per kind
//	                           (hit, json, stats, login, refused, commit)
//	                           the count and the wall and CPU p50, p90, p99
//	                           in microseconds, big-endian uint32 each; a
//	                           longer record's extra kinds are a later
//	                           version's
//	  build     -> record      the running build's first requests: a
//	                           meter.Day record whose build is the build's
//	                           and whose figures are over the first
//	                           meter.BuildRequests of each kind
//	  build-before -> record   the same of the build before it
//	  warnings  -> text        meter.KeepWarnings: the warnings of the
//	                           last 30 days (meter.WarningDays), a line
//	                           each, each beginning with its date
//	themes/                    v6: bucket, owners' digit sets (digitset add);
//	                           made by the first set added
//	  NAME/                    bucket, NAME as in counter.CheckDigitSetName
//	    added   -> int64       when it was added, Unix seconds
//	    head    -> record      digitset's header record (height, palette,
//	                           loop, layout, each piece's size, frames
//	                           and delays)
//	    0 .. 9  -> record      digitset's record of that digit: its frames'
//	                           palette indices and its file for SVG; a hit
//	                           reads the header and the digits it draws
//	    start, end, comma, dash -> record
//	                           the same of a piece besides the digits, when
//	                           the set has it (digitset's format 2: the
//	                           header says which; format 1's sets, added
//	                           before, have none and read as ever)
//	importing/                 while an import runs (import_steps.go): its
//	                           work, read by nothing else; left by an
//	                           interrupted import, it is removed by the next
//	  id        -> 8 bytes     the import's, so that one that finds its
//	                           work gone stops
//	  staged/NAME/             the counter as the import makes it
//	  base/NAME/               the counter as the import found it (its
//	                           days, tally and page-days from two days
//	                           before the import's on only)
//	  trash/NAME/              buckets of the counter the import replaced
//	today-0/ ... today-f/      v6: buckets, the hits of one UTC day of the
//	                           counters whose names hash to each (FNV-1a
//	                           of the name, modulo 16, in hex), not yet in
//	                           their history; each made by its first hit
//	                           of a day, removed when folded
//	  "\x00day" -> "2006-01-02"  the day of every row below; sorts first
//	  "\x00pin"/               an empty bucket, so that bbolt gives the
//	                           bucket a page of its own rather than keep it
//	                           inline in the root (16 of them would outgrow
//	                           the root's page)
//	  NAME "\x00" -> record    the counter's views that day, then the
//	                           columns of a tally record (visitors, views
//	                           via GitHub, reloads, ...); 8-byte big-endian
//	                           columns, the zero ones at the end left out
//	                           (a record of views alone is 8 bytes); the
//	                           day's visitors are also what the hits add
//	                           to visitors
//	  NAME "\x00r" HOST -> uint64  views from pages on HOST that day, as
//	                           in referrers/ (counter.OtherReferrers past
//	                           the bound, counting the history's hosts)
//	  NAME "\x00s" SOURCE -> uint64  v7: views whose readers came from
//	                           SOURCE that day, as in sources/
//	  NAME "\x00p" PAGE -> record  sites: the page's views and visitors
//	                           that day, as a page-days record; the page
//	                           has its record in pages/ (made by the hit
//	                           that made the page)
//
// A setting key that is absent has its default (counter.DefaultSettings).
// No client address, User-Agent or anything derived from them is stored:
// visitors are told apart on tmpfs (package cgi/seen), and only their
// number reaches the file.
//
// # Sites
//
// A site's own keys (total, visitors, days, tally, referrers) are its
// totals, kept as a plain counter's. A counted view also adds to the row of
// its page, which the hit makes only when its Referer's host is one of the
// site's hosts and page-count is below max-pages; past it, the view counts
// under counter.OtherPages. A view with no page, or one it may not make,
// counts on the site alone. Nothing a visitor sends makes a counter.
//
// A hit writes its page's day (v6: its row in today, folded into
// page-days with the day), not its page's record: a page's figures are its
// record plus its days after pages-folded plus its row in today. A site's
// first hit of a UTC day (and the fold of today's rows) adds the days
// before it into the records and moves pages-folded to yesterday, within
// its own transaction, so that a hit has one leaf fewer to write and a
// reader adds a day or two.
//
// The same fold then trims the days it folded (pagetrim.go): a day keeps
// the rows of its KeptPagesADay most viewed pages (ties to more visitors,
// then to the page seen first), and the other pages' views and visitors of
// that day go into its OtherPages row. A page's record, and so its figures
// of all time, keep every view; a trimmed page's days, and a period's
// table of pages, show them under OtherPages. The rows a day keeps are
// bounded, whatever pages visitors make up.
//
// A top list (DB.TopPages, NAME.json?top=N&days=D) adds up the page-days
// of the last D days and today's rows, a day's KeptPagesADay most viewed
// pages each, ranked as the trim ranks them: a trimmed day holds no more,
// and a day not trimmed yet (today, yesterday, an import's) is cut the same
// way as it is read. A page that was never among a day's most viewed is
// left out of the list, though its views over the days may add up to more
// than a listed page's (its views those days are in OtherPages, which is no
// page and never listed): it takes a site of more than 200 pages a day of
// even views. The read holds a day's KeptPagesADay rows and a sum per page
// kept, at most D×KeptPagesADay of them, whatever the site holds; it reads
// every row of a day not trimmed, at most max-pages+1.
//
// # Growth
//
// What a visitor can make a site's file hold for good, each day it is
// hit, is bounded: the day's site row (34 bytes with bbolt's 16-byte
// element header), its tally (90 bytes), and at most KeptPagesADay+1 = 201
// page-day rows of at most 10+256+16+16 = 298 bytes (date, longest page
// key, two counts, header). Worst case: bbolt leaves at least two rows on
// a leaf page that a transaction touched, so a row takes at most half a
// 4 KiB page, and with its share of the branch pages (an entry of at most
// 282 bytes a leaf page) at most 2.5 KiB: 201 × 2,560 + 124 = 514,684
// bytes a day: the 1 GiB maximum, less the 27 MB below, in 2,033 days,
// 5.6 years of 10,000 made-up pages every day. Measured (TestSiteYearOfMadeUpPages, the same 10,000 made-up
// pages of the longest key every day, with 50 real pages): some 124,600
// bytes a day in use, 620 bytes a kept row (pages half full); a file of
// 71 MiB after a year, and the 1 GiB maximum some 22 years after that.
//
// Besides, and not growing: the pages' records, at most max-pages and
// OtherPages, 10,001 of up to 256+24+16 bytes (about 3 MB, 6 MB in
// half-full pages), and the rows of the day and the day before, before
// they are trimmed (up to 10,001 each, some 6 MB each in half-full pages;
// the pages a trim frees are used again by the next day's rows): some
// 27 MB in all, measured after 30 days. Before version 5, every page kept
// its row every day: 10,000 made-up pages a day took some 6.6 MB a day,
// and the file's maximum in 140 days.
//
// Nor do a counter's sources (v7), at most counter.MaxSources+1 keys of at
// most 100 bytes, whatever visitors send, like its referrers; nor a site's
// titles, which only the owner's command writes, at most counter.MaxTitles
// of up to 256+200 bytes (some 5 MB, 10 MB in half-full pages).
//
// The work of trimming is bounded too: a day's fold reads the rows of the
// days it folds (a day's, up to max-pages+1) twice, holds KeptPagesADay
// rows and a batch of keys in memory, and deletes the rest; a version 4
// file's untrimmed days are trimmed twice a day's most rows at a time.
//
// # Today
//
// A counted view used to add to its counter's total, day, tally and
// referrer, and a site's page-day: keys two or three levels down in a
// counter's bucket, under a counters bucket that 200 counters make a
// branch, so that bbolt rewrote every page on the way (a view of a year-old
// file wrote 8 to 13 pages, a fresh one 5). Version 6 puts the day's hits
// in small buckets at the top, today-0 to today-f, a counter's in the one
// its name hashes to, with its rows next to each other (its name, then a
// zero byte): a view dirties that bucket's leaf, the root, the freelist and
// the meta page, 16 KiB. A hit never rebalances the history's pages; only
// the first view of a page on a site (its record, page-count) and a site's
// first hit of a day (the fold of its page-days into the records, as in
// version 5) write there.
//
// The first write of a later day on a today bucket folds its rows into the
// history (total, visitors, days, tally, referrers, page-days, as the hits
// one by one used to add them), folds and trims its sites' page-days before
// the new day (pagetrim.go), and removes the bucket, in the transaction of
// that write: a crash before its commit leaves the rows and the history as
// they were, and nothing is added twice. Each bucket folds on its own
// first hit of the day, so that a fold rewrites the history of a
// sixteenth of the day's counters, and the pages it frees (which every
// later commit writes in the freelist until they are used again) stay few.
// A hit dated before its bucket's day (one that waited past midnight, a
// clock set back) goes into the history itself. So does every write that
// changes or replaces the history (settings, set, delete, import, page
// merges), after it has folded every bucket: it finds the history whole.
// Hits, the costs and the keys fold nothing.
//
// Every reader (the counter's figures, its days and referrers, a site's
// pages, page history and page-days, the statistics page, the exports,
// check) adds its counter's today rows to the history, so that it reads
// what version 5 would have. Days without hits leave nothing to fold; the
// next write folds the last day's rows whatever their date.
//
// A bucket is one leaf while its day's rows fit in a page (some 40
// counters with a referrer each, so some 600 in all; or some 80 pages of
// one site): past that, bbolt splits it, and a view writes a branch
// besides.
//
// # Version 7
//
// Version 8 added the owner's login (owner-password, owner-session-key)
// and a session key per counter. A version 7 file is migrated by the first
// write of a version 8 program, which sets the version and rewrites
// nothing else: it has no owner's login until passwd -owner sets one, and
// its counters' sessions are checked with meta's session-key, as version
// 7 checked them, until a counter's logout or new password gives it a key
// of its own; so a login made before the upgrade lasts its day, and a
// logout ends its own counter's sessions alone. A program of version 7
// would sign sessions with meta's key, which a counter with its own key
// no longer checks: it refuses the file (ErrNewerSchema).
//
// # Version 6
//
// Version 7 added a counter's sources (sources/ and its "\x00s" rows in
// today) and a site's titles/. A version 6 file is migrated by the first
// write of a version 7 program, which sets the version and rewrites
// nothing else: it has neither, and the first view from a source (or the
// first titles command) makes them. A program of version 6 would take a
// today bucket's source rows for damage: it refuses the file
// (ErrNewerSchema).
//
// # Version 5
//
// Version 6 added themes/ and a counter's theme, and the today buckets. A
// version 5 file is migrated by the first write of a version 6 program,
// which sets the version and rewrites nothing else (migrateTo6): it has no
// sets, and its counters draw the font, as before; it has no today bucket,
// and its history holds every hit, as a version 6 file's does when its
// rows are folded, and a counter's first hit of a day makes its bucket. A
// counter's theme names a set that the file holds (or a look): theme
// remove refuses a set in use. A program of version 5 would not see the
// hits in the today buckets: it refuses the file (ErrNewerSchema).
//
// # Version 4
//
// Version 5 added pages-trimmed and gave the OtherPages row of a trimmed
// day the views of the day's pages past its most viewed. A version 4 file
// is migrated by the first write of a version 5 program, which sets the
// version and rewrites nothing else: its sites have no pages-trimmed, and
// the daily fold trims their days, oldest first, at most 2×(max-pages+1)
// rows a fold (finishing the day in hand), which outruns the one day a
// fold adds, so that the file stops growing on the first fold. A program
// of version 4 would read a trimmed day's OtherPages row without a record
// as damage: it refuses the file (ErrNewerSchema).
//
// # Version 2 and 3
//
// Version 3 added the keys marked v3, which only a site has. A version 2
// file is migrated by the first write of a version 3 program, which sets
// the version and rewrites nothing else: its counters are plain counters as
// they stand.
//
// # Version 1, and the migration
//
// Version 1 had no key marked v2, and its total and days counted every
// hit, each of which was a view then: version 2 reads them as views as
// they stand. The first write transaction of a version 2 program on a
// version 1 file migrates it within that transaction (migrate.go): it
// records tallied-since and sets the current version, rewriting nothing else, so the
// migration is atomic with that write, under its lock, and takes the same
// time on any file. Reads need no migration. A program refuses a file of a
// later version with ErrNewerSchema and does not touch it.
//
// # Open and close discipline
//
// The file is opened for one transaction and closed again, never held while
// an image is drawn. Before bbolt takes its own lock (which polls every 50 ms
// and lets late comers overtake), Open takes a blocking flock on a side file,
// NAME.lock, exclusive for writers and shared for readers, so that waiting
// processes are woken by the kernel as soon as the holder is done. flock
// lets a reader in whenever readers hold it, so on Linux whoever has to
// wait for it waits at a gate, a lock of its open file's own on the side
// file's first byte (sidegate_linux.go), a writer alone and readers
// together, and a reader comes in only while no writer holds the gate: a
// writer waiting lets in the readers already in and no others, and a
// stream of readers, each short, cannot keep it out. What anyone may ask
// for reads a bounded few records: a digit set's, the largest its bounds
// allow, is copied out (DB.DigitSet) and drawn after the file is closed.
// Every open waits at most Options.Wait and then fails with ErrTimeout. A flock
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

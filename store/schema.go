package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/store/kv"
)

// schemaVersion is the version of the layout described in doc.go.
// Version 2 added visitors, the tally of hits not counted, and the
// per-counter settings; version 3 added sites, counters with a row per
// page; version 4 added the history of what the counter costs on its
// machine; version 5 keeps a site's past days to their most viewed pages
// (pages-trimmed), the others' under the day's OtherPages row; version 6
// keeps owners' digit sets (bucket themes/) and a counter's theme=, and
// the current day's hits of every counter in small buckets, today-0 to
// today-f, folded into the counters' history when the day changes;
// version 7 keeps where readers came from (sources) and a site's pages'
// titles; version 8 keeps the owner's login (a password for every
// counter's statistics) and a session key per counter, so that logouts end
// only their own sessions. migrate.go brings an older file up to it.
//
// A key of meta that is new in a version and reads as "not set" when
// absent (as owner-password does) needs no step in migrate.go: a file of
// the version before has none, which is what it means. Mark it with the
// version that adds it in both lists (here and doc.go); more keys of
// version 8 (the metrics token, the last backup) go in as they are.
const schemaVersion = 8

var (
	bucketMeta      = []byte("meta")
	keyVersion      = []byte("version")
	keySessionKey   = []byte("session-key")   // in meta: version 7's, read for a counter without its own; v8: in a counter
	keyOwnerKey     = []byte("owner-key")     // v2
	keyTalliedSince = []byte("tallied-since") // v2
	// The owner's login, which opens every counter's statistics.
	keyOwnerPassword   = []byte("owner-password")    // v8, in meta
	keyOwnerSessionKey = []byte("owner-session-key") // v8, in meta
	keyLastBackup      = []byte("last-backup")       // v8, in meta: absent, never
	keyMetricsToken    = []byte("metrics-token")     // v8, in meta: the SHA-256 of the metrics token
	bucketCounters     = []byte("counters")
	keyTotal           = []byte("total")
	keyVisitors        = []byte("visitors")    // v2
	keyNotCounted      = []byte("not-counted") // v8, in a counter: its tally rows' hits not counted added up (notcounted.go)
	keyCreated         = []byte("created")
	keyPassword        = []byte("password")
	keyShow            = []byte("show")            // v2
	keyReload          = []byte("reload")          // v2
	keyIgnore          = []byte("ignore")          // v2
	keyAllowReferrer   = []byte("allow-referrers") // v2
	bucketDays         = []byte("days")
	bucketTally        = []byte("tally") // v2
	bucketReferrers    = []byte("referrers")
	keyHosts           = []byte("hosts")         // v3, sites only
	keyMaxPages        = []byte("max-pages")     // v3, sites only
	keyKeepQuery       = []byte("keep-query")    // v3, sites only
	keyImage           = []byte("image")         // v3, sites only
	keyPublicPages     = []byte("public-pages")  // sites only, absent for off
	keyPageCount       = []byte("page-count")    // v3, sites only
	keyPagesFolded     = []byte("pages-folded")  // v3, sites only
	keyPagesTrimmed    = []byte("pages-trimmed") // v5, sites only
	bucketPages        = []byte("pages")         // v3, sites only
	bucketPageDays     = []byte("page-days")     // v3, sites only
	bucketCosts        = []byte("costs")         // v4
	bucketCostDays     = []byte("days")          // v4, in costs
	keyBuild           = []byte("build")         // v4, in costs
	keyBuildBefore     = []byte("build-before")  // v4, in costs
	keyCostWarnings    = []byte("warnings")      // v4, in costs
	// An import in steps stages its work here; nothing reads it but the
	// import, which removes it (and any an interrupted one left).
	bucketImporting  = []byte("importing") // v5, at the top
	keyImportID      = []byte("id")        // in importing
	bucketStaged     = []byte("staged")    // in importing: counters as the import makes them
	bucketBase       = []byte("base")      // in importing: counters as the import found them
	bucketTrash      = []byte("trash")     // in importing: the file's buckets the import replaced
	keyTheme         = []byte("theme")     // v6, in a counter: its default theme
	bucketDigitSets  = []byte("themes")    // v6, at the top: owners' digit sets
	keyDigitSetHead  = []byte("head")      // v6, in themes/NAME: digitset's header record
	keyDigitSetAdded = []byte("added")     // v6, in themes/NAME: when digitset add made it
	// The hits of the current day, of every counter, kept apart from the
	// counters' history so that a hit writes one small bucket (today.go):
	// one of todayShards, at the top, chosen by the counter's name.
	bucketTodayPrefix = "today-"          // v6, at the top: then the shard's number, 0 to f
	keyTodayDay       = []byte("\x00day") // v6, in a today shard: the UTC day of its rows; sorts before every counter's
	keyTodayPinned    = []byte("\x00pin") // v6, in a today shard: an empty bucket, so that bbolt never keeps the shard inline in the root
	bucketSources     = []byte("sources") // v7, in a counter: views by the host (or group) readers came from
	bucketTitles      = []byte("titles")  // v7, in a site: its pages' titles, as the owner's feed gives them
)

// todayShards is the number of today buckets. A counter's rows are in the
// one its name hashes to (todayBucket), so that each stays a leaf of its
// own while up to some 40 counters of its own have hits in a day, and each
// is folded into the history on its own, a sixteenth of the day's
// counters at a time.
const todayShards = 16

// todayBucket is the name of the today bucket of counter name: "today-"
// and the FNV-1a hash of the name, modulo todayShards, in hex.
func todayBucket(name string) []byte {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return todayShard(int(h % todayShards))
}

// todayShard is the name of today bucket i.
func todayShard(i int) []byte {
	return append([]byte(bucketTodayPrefix), "0123456789abcdef"[i])
}

// The keys of a counter's rows in the today bucket: its name, a zero byte
// (no name holds one, so that a counter's rows sort together, apart from
// any other's), then a kind and the rest of the key. The counts row has no
// kind.
const (
	todayPage     = 'p' // then PAGE as in pages/: the page's views and visitors that day
	todayReferrer = 'r' // then HOST as in referrers/: views from HOST that day
	todaySource   = 's' // v7: then SOURCE as in sources/: views whose readers came from SOURCE that day
)

// todayPrefix is the key of counter name's counts row in the today bucket,
// and the start of its other rows' keys.
func todayPrefix(name string) []byte {
	return append([]byte(name), 0)
}

// todayKey is the key of counter prefix's row of kind for rest (a page or
// a host) in the today bucket.
func todayKey(prefix []byte, kind byte, rest string) []byte {
	k := make([]byte, 0, len(prefix)+1+len(rest))
	return append(append(append(k, prefix...), kind), rest...)
}

// encodeToday writes a counter's counts row: its views, then the columns
// of a tally record (encodeTally), without the zero columns at the end, so
// that a row of views and visitors alone takes 16 bytes.
func encodeToday(t counter.Tally) []byte {
	b := append(encodeUint64(t.Views), encodeTally(t)...)
	for len(b) > 8 && binary.BigEndian.Uint64(b[len(b)-8:]) == 0 {
		b = b[:len(b)-8]
	}
	return b
}

// decodeToday reads a counts row into t; missing columns read as zero.
func decodeToday(b []byte, t *counter.Tally) error {
	if len(b) < 8 || len(b)%8 != 0 {
		return fmt.Errorf("%w: today's counts of %d bytes", ErrCorrupt, len(b))
	}
	t.Views = binary.BigEndian.Uint64(b)
	if len(b) == 8 {
		return nil
	}
	return decodeTally(b[8:], t)
}

// digitSetDigitKey is the key of piece i's record in a themes/NAME bucket:
// "0" to "9" for the digits, so that a hit reads only the digits it draws,
// then "start", "end", "comma" and "dash" for the pieces a set has
// (digitset.Start..Dash, kept since digit-set format 2).
func digitSetDigitKey(i int) []byte {
	switch i {
	case digitset.Start:
		return []byte("start")
	case digitset.End:
		return []byte("end")
	case digitset.Comma:
		return []byte("comma")
	case digitset.Dash:
		return []byte("dash")
	}
	return []byte{'0' + byte(i)}
}

// pageColumns is the number of 8-byte columns of a page record: views and
// visitors of the days folded into it (up to pages-folded), the first
// seen (Unix seconds). A page-day record holds views and visitors. A
// record may hold more columns, a later version's.
const pageColumns = 3

// encodePage writes a page record.
func encodePage(p counter.Page) []byte {
	b := make([]byte, 0, 8*pageColumns)
	b = binary.BigEndian.AppendUint64(b, p.Views)
	b = binary.BigEndian.AppendUint64(b, p.Visitors)
	return binary.BigEndian.AppendUint64(b, uint64(p.FirstSeen.Unix()))
}

// decodePage reads a page record of page.
func decodePage(page string, b []byte) (counter.Page, error) {
	p := counter.Page{Page: page}
	if len(b) < 8*pageColumns || len(b)%8 != 0 {
		return p, fmt.Errorf("%w: page record of %d bytes", ErrCorrupt, len(b))
	}
	p.Views = binary.BigEndian.Uint64(b)
	p.Visitors = binary.BigEndian.Uint64(b[8:])
	p.FirstSeen = time.Unix(int64(binary.BigEndian.Uint64(b[16:])), 0).UTC()
	return p, nil
}

// pageDayKey is the key of page on day in a page-days bucket: the date
// then the page, so that a day's pages are together and days sort in
// order.
func pageDayKey(day []byte, page string) []byte {
	return append(append(make([]byte, 0, len(day)+len(page)), day...), page...)
}

// splitPageDayKey is the date and the page of a page-days key.
func splitPageDayKey(k []byte) (date, page string, err error) {
	if len(k) <= len(time.DateOnly) {
		return "", "", fmt.Errorf("%w: page-day key %q", ErrCorrupt, k)
	}
	return string(k[:len(time.DateOnly)]), string(k[len(time.DateOnly):]), nil
}

// readPageDay reads the page-days entry of key k and record v.
func readPageDay(k, v []byte) (counter.PageDay, error) {
	date, page, err := splitPageDayKey(k)
	if err != nil {
		return counter.PageDay{}, err
	}
	views, visitors, err := decodePageDay(v)
	return counter.PageDay{Date: date, Page: page, Views: views, Visitors: visitors}, err
}

// encodePageDay and decodePageDay write and read a page-day record.
func encodePageDay(views, visitors uint64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(make([]byte, 0, 16), views), visitors)
}

func decodePageDay(b []byte) (views, visitors uint64, err error) {
	if len(b) < 16 || len(b)%8 != 0 {
		return 0, 0, fmt.Errorf("%w: page-day record of %d bytes", ErrCorrupt, len(b))
	}
	return binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:]), nil
}

// image values, as stored.
var (
	imagePage = []byte("page")
	imageSite = []byte("site")
)

// switchOn is a switch's stored value (public-pages); off is no key.
var switchOn = []byte("on")

// ownerKeyLen is the length of the key that signs owner cookies.
const ownerKeyLen = 32

// tallyColumns are the columns of a tally record, in stored order; a
// record may hold fewer (a later version may add columns at the end), the
// missing ones reading as zero.
var tallyColumns = [...]counter.Kind{
	counter.View, // the column holds the day's visitors, not its views (those are in days)
	counter.GitHub,
	counter.Reload, counter.Bot, counter.Prefetch, counter.Owner, counter.Foreign, counter.Ignored,
}

// encodeTally writes the columns of t that days does not hold.
func encodeTally(t counter.Tally) []byte {
	b := make([]byte, 0, 8*len(tallyColumns))
	for _, k := range tallyColumns {
		var n uint64
		switch k {
		case counter.View:
			n = t.Visitors
		case counter.GitHub:
			n = t.GitHub
		default:
			n = t.NotCounted[k]
		}
		b = binary.BigEndian.AppendUint64(b, n)
	}
	return b
}

// decodeTally reads a tally record into t, whose Views come from days.
func decodeTally(b []byte, t *counter.Tally) error {
	if len(b)%8 != 0 || len(b) == 0 {
		return fmt.Errorf("%w: tally of %d bytes", ErrCorrupt, len(b))
	}
	for i := 0; i < len(b)/8 && i < len(tallyColumns); i++ {
		n := binary.BigEndian.Uint64(b[8*i:])
		switch k := tallyColumns[i]; k {
		case counter.View:
			t.Visitors = n
		case counter.GitHub:
			t.GitHub = n
		default:
			t.NotCounted[k] = n
		}
	}
	return nil
}

// show values, as stored.
var (
	showViews    = []byte("views")
	showVisitors = []byte("visitors")
)

// sessionKeyLen is the length of the key that signs session cookies.
const sessionKeyLen = 32

// dayKey is the key of a UTC day in a days bucket.
func dayKey(t time.Time) []byte { return t.UTC().AppendFormat(nil, time.DateOnly) }

func encodeUint64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// decodeUint64 reads a count; a missing value is zero.
func decodeUint64(b []byte) (uint64, error) {
	switch len(b) {
	case 0:
		return 0, nil
	case 8:
		return binary.BigEndian.Uint64(b), nil
	}
	return 0, fmt.Errorf("%w: count of %d bytes", ErrCorrupt, len(b))
}

func encodeTime(t time.Time) []byte { return encodeUint64(uint64(t.Unix())) }

func decodeTime(b []byte) (time.Time, error) {
	n, err := decodeUint64(b)
	if err != nil || n == 0 {
		return time.Time{}, err
	}
	return time.Unix(int64(n), 0).UTC(), nil
}

// ErrCorrupt reports data that does not follow the schema.
var ErrCorrupt = errors.New("database does not follow the schema")

// ErrNewerSchema reports a file written by a newer version of the program.
var ErrNewerSchema = errors.New("database was written by a newer version of the counter")

// checkSchema fails unless tx holds a schema this code can read. A file
// without a meta bucket is new and empty; init makes it current.
func checkSchema(tx kv.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return nil
	}
	v := meta.Get(keyVersion)
	if len(v) != 4 {
		return fmt.Errorf("%w: schema version of %d bytes", ErrCorrupt, len(v))
	}
	n := binary.BigEndian.Uint32(v)
	if n > schemaVersion {
		return fmt.Errorf("%w (schema %d, this program reads %d)", ErrNewerSchema, n, schemaVersion)
	}
	if n < schemaVersion && tx.Writable() {
		return migrate(tx, n)
	}
	return nil
}

// fileVersion is the schema version of the file tx reads, 0 for a file
// before its first counter; checkSchema has passed.
func fileVersion(tx kv.Tx) uint32 {
	if meta := tx.Bucket(bucketMeta); meta != nil {
		return binary.BigEndian.Uint32(meta.Get(keyVersion))
	}
	return 0
}

// initSchema creates the top-level buckets of an empty file.
func initSchema(tx kv.Tx) error {
	if err := checkSchema(tx); err != nil {
		return err
	}
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if meta.Get(keyVersion) == nil {
		if err := meta.Put(keyVersion, binary.BigEndian.AppendUint32(nil, schemaVersion)); err != nil {
			return err
		}
		if err := meta.Put(keyTalliedSince, encodeTime(time.Now())); err != nil {
			return err
		}
	}
	_, err = tx.CreateBucketIfNotExists(bucketCounters)
	return err
}

// counterBucket returns the bucket of counter name, or counter.ErrNotFound.
func counterBucket(tx kv.Tx, name string) (kv.Bucket, error) {
	if err := checkSchema(tx); err != nil {
		return nil, err
	}
	all := tx.Bucket(bucketCounters)
	if all == nil {
		return nil, counter.ErrNotFound
	}
	b := all.Bucket([]byte(name))
	if b == nil {
		return nil, counter.ErrNotFound
	}
	return b, nil
}

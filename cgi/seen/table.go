package seen

import (
	"errors"
	"sync"
	"time"

	"hitcounter/cgi/rundir"
)

// Table is the visitor tables in one runtime directory. It is safe for
// concurrent use by goroutines, and any number of processes may use the
// same directory at once. A long-lived process keeps one Table, which
// keeps today's file open between hits.
type Table struct {
	dir        *rundir.Dir
	shareSlots int

	mu        sync.Mutex
	today     dayFile
	yesterday dayFile
	buf       []byte // the text of a visitor, or of a counter, to hash
	// bucket is today's bucket of the visitor being seen, as read and
	// to be written; ybucket is yesterday's.
	bucket, ybucket [bucketSize]byte
	// mine holds the counted views this Table itself wrote today, by
	// visitor key: see known.
	mine map[key]mine
}

// mine is a counted view this Table wrote: its time, and what asked.
type mine struct {
	sec uint32
	via Via
}

// maxMine bounds mine; past it, it starts again empty.
const maxMine = 1 << 14

// Open returns the Table of the runtime directory dir. It does no I/O:
// the files are opened, and made, by the first See.
func Open(dir *rundir.Dir) *Table { return open(dir, defaultShareSlots) }

// open is Open with shares of so many slots, a multiple of a bucket's.
func open(dir *rundir.Dir, shareSlots int) *Table {
	return &Table{dir: dir, shareSlots: shareSlots, buf: make([]byte, 0, 256)}
}

// Close closes the files that t keeps open. A See after Close opens them
// again.
func (t *Table) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return errors.Join(t.today.close(), t.yesterday.close())
}

// Visit is one hit to judge.
type Visit struct {
	Counter string
	// Page is a page of a site, or "" for the counter (the site) itself:
	// a visitor of a page is another visitor than of the site, kept in
	// the site's share of the table.
	Page      string
	Addr      string // the client's address
	UserAgent string
	Now       time.Time
	// Window is how long after a counted view the same visitor's next
	// hit is a reload; 0 for no reloads at all.
	Window time.Duration
	// Via is what asks: a page's image or its script, which join into
	// one view (see Verdict.Joined); ViaNone joins nothing.
	Via Via
}

// Via is what asked for a view. A page that carries both the counter's
// image and its script sends two requests for one view, in either order;
// the slot of the view remembers which of them came.
type Via uint8

// The Vias, bits of a slot's Via byte.
const (
	ViaNone   Via = 0
	ViaImage  Via = 1
	ViaScript Via = 2
)

// joinWindow is how long after a view the other of its image and script
// joins it when the counter has no reload window: the two requests of one
// page load come within moments of each other.
const joinWindow = time.Minute

// joins reports whether v is the other request of the view that a slot's
// via says was asked for.
func joins(v *Visit, via Via) bool {
	return v.Via != ViaNone && via != ViaNone && via&v.Via == 0
}

// quiet reports whether v, a reload of the view whose slot's via is via,
// is a script's on a page whose image asks too (Verdict.Quiet).
func quiet(v *Visit, via Via) bool {
	return v.Via == ViaScript && via&ViaImage != 0
}

// joinsWithin is how long after a view the other request of it joins.
func (v *Visit) joinsWithin() time.Duration {
	if v.Window > 0 {
		return v.Window
	}
	return joinWindow
}

// Verdict is what See made of a Visit.
type Verdict struct {
	// Reload is a hit within the window of the visitor's last counted
	// view: not a view. Nothing was written.
	Reload bool
	// Joined is the other request of a view counted within the window,
	// the image of a page whose script was counted, or the script of one
	// whose image was: not a view, and not a reload either. It was
	// written into the view's slot: a third request is a reload.
	Joined bool
	// Quiet is set on a Reload of a page's script whose view the page's
	// image asked for too: the image's reload is the one the statistics
	// show, so that a reload of a page that carries both is one reload.
	Quiet bool
	// NewToday is a counted view by a visitor not seen on this counter
	// today (UTC), or forgotten since (see Crowded).
	NewToday bool
	// Crowded is set on the first counted view of the day that found
	// its place in the counter's share of the table full, in any
	// process: the visitor of that place whose last counted view is
	// the oldest was forgotten to make room, and is a new visitor if he
	// comes back. It is for the owner's log, once a day a share.
	Crowded bool

	// marked and prev say what See wrote, for Unsee: the time of this
	// counted view, and the visitor's last one before it (0 when he was
	// new today).
	marked, prev uint32
	prevVia      Via
}

// See judges a visit and, unless it is a reload, records it as the
// visitor's last counted view. The window runs from the last counted
// view, to the second, so reloads do not extend it; a visitor counted
// late yesterday is still known within the window after midnight. A
// last view less than the window in the future is a reload too: another
// process took its clock before this one and its lock after (a FastCGI
// hit waits for its batch); one further ahead means the clock was set
// back, and the hit counts. When there is no room for a new visitor in
// its place in the counter's share, the one there whose last counted
// view is the oldest is forgotten (see Verdict.Crowded).
func (t *Table) See(v Visit) (Verdict, error) {
	now := v.Now.UTC()
	y, m, d := now.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	sec := unixSeconds(now)
	within := func(last uint32, w time.Duration) bool {
		d := time.Duration(sec) - time.Duration(last)
		return d.Abs()*time.Second < w
	}
	reload := func(last uint32) bool { return within(last, v.Window) }

	t.mu.Lock()
	defer t.mu.Unlock()
	t.turn(day)
	today := &t.today
	if v, ok := t.known(&v, reload, within); ok {
		return v, nil
	}
	_, made, err := today.lock(t.shareSlots, true)
	if err != nil {
		return Verdict{}, err
	}
	defer today.unlock()
	if made {
		if err := prune(t.dir, day); err != nil {
			return Verdict{}, err
		}
	}
	var k key
	k, t.buf = visitorKey(today.mac, t.buf, &v)
	var share int
	share, t.buf, _, err = today.share(v.Counter, true, t.buf)
	if err != nil {
		return Verdict{}, err
	}
	here, err := today.find(k, bucketAt(k, share, t.shareSlots), t.bucket[:])
	if err != nil {
		return Verdict{}, err
	}
	if here.found() && joins(&v, here.via) && within(here.last, v.joinsWithin()) {
		if err := today.join(here, v.Via, t.bucket[:]); err != nil {
			return Verdict{}, err
		}
		if m, ok := t.mine[k]; ok && m.sec == here.last {
			t.mine[k] = mine{m.sec, m.via | v.Via}
		}
		return Verdict{Joined: true}, nil
	}
	if here.found() && reload(here.last) {
		return Verdict{Reload: true, Quiet: quiet(&v, here.via)}, nil
	}
	if !here.found() && now.Sub(day) < v.Window {
		last, err := t.lookYesterday(&v)
		if err != nil {
			return Verdict{}, err
		}
		if last != 0 && reload(last) {
			return Verdict{Reload: true}, nil
		}
	}
	var crowded bool
	if here.evict() {
		if crowded, err = today.crowded(share); err != nil {
			return Verdict{}, err
		}
	}
	if err := today.write(here, k, sec, v.Via, t.bucket[:]); err != nil {
		return Verdict{}, err
	}
	if len(t.mine) >= maxMine {
		clear(t.mine)
	}
	t.mine[k] = mine{sec, v.Via}
	return Verdict{NewToday: !here.found(), Crowded: crowded, marked: sec, prev: here.last, prevVia: here.via}, nil
}

// Unsee takes back the mark that See wrote for v when it gave verdict,
// for a hit whose count was then not committed: the visitor's next hit is
// judged as if this one had never come, a view and not a reload, and a new
// visitor again if he was new. A mark that a later view of the same
// visitor has overwritten, one of another day, or a verdict that wrote
// nothing (a reload, one from the visitor this Table remembered) is left
// alone. A visitor forgotten to make room for the mark stays forgotten.
func (t *Table) Unsee(v Visit, verdict Verdict) error {
	if verdict.marked == 0 {
		return nil
	}
	now := v.Now.UTC()
	y, m, d := now.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.today.day.Equal(day) || t.today.mac == nil {
		return nil
	}
	today := &t.today
	// Locked to write; a file made anew holds no mark to take back.
	ok, made, err := today.lock(t.shareSlots, true)
	if !ok || err != nil {
		return err
	}
	defer today.unlock()
	if made {
		return nil
	}
	var k key
	k, t.buf = visitorKey(today.mac, t.buf, &v)
	share, buf, ok, err := today.share(v.Counter, false, t.buf)
	t.buf = buf
	if !ok || err != nil {
		return err
	}
	here, err := today.find(k, bucketAt(k, share, t.shareSlots), t.bucket[:])
	if err != nil || !here.found() || here.last != verdict.marked {
		return err
	}
	if m, ok := t.mine[k]; ok && m.sec == verdict.marked {
		delete(t.mine, k)
	}
	return today.unwrite(here, verdict.prev, verdict.prevVia, t.bucket[:])
}

// known answers, without touching the file, a visit by a visitor whose
// last counted view this Table wrote itself today, when that alone
// decides: within the window it is a reload whatever other processes
// wrote since (any view they counted within it would have been a reload
// of this one), and with no window it is a view by a visitor already
// known today, whose time nobody needs. Otherwise the file decides. A
// FastCGI process so spares most hits the lock and the reads. The other
// request of a view (Verdict.Joined) is left to the file, which knows
// whether another process joined it already, and so is a script's reload
// of a view whose image this Table did not see (Verdict.Quiet).
func (t *Table) known(v *Visit, reload func(last uint32) bool, within func(last uint32, w time.Duration) bool) (Verdict, bool) {
	if t.today.mac == nil || len(t.mine) == 0 {
		return Verdict{}, false
	}
	var k key
	k, t.buf = visitorKey(t.today.mac, t.buf, v)
	m, ok := t.mine[k]
	last := m.sec
	switch {
	case !ok:
		return Verdict{}, false
	case joins(v, m.via) && within(last, v.joinsWithin()):
		return Verdict{}, false
	case v.Via == ViaScript && m.via&ViaImage == 0 && reload(last):
		// Whether the page's image joined this view in another
		// process, and so whether this reload is quiet, is the file's.
		return Verdict{}, false
	case reload(last):
		return Verdict{Reload: true, Quiet: quiet(v, m.via)}, true
	case v.Window <= 0 && v.Via == ViaNone:
		// A view by an image or a script writes what asked for it, for
		// the other to join.
		return Verdict{}, true
	}
	return Verdict{}, false
}

// lookYesterday returns the time of v's last counted view yesterday, or
// 0 if it had none or there is no table of yesterday.
func (t *Table) lookYesterday(v *Visit) (uint32, error) {
	yd := &t.yesterday
	ok, _, err := yd.lock(t.shareSlots, false)
	if !ok || err != nil {
		return 0, err
	}
	defer yd.unlock()
	share, buf, ok, err := yd.share(v.Counter, false, t.buf)
	t.buf = buf
	if !ok || err != nil {
		return 0, err
	}
	var k key
	k, t.buf = visitorKey(yd.mac, t.buf, v)
	s, err := yd.find(k, bucketAt(k, share, t.shareSlots), t.ybucket[:])
	if !s.found() || err != nil {
		return 0, err
	}
	return s.last, nil
}

// turn makes day t's today, keeping the file of the day before open as
// yesterday's when it already is.
func (t *Table) turn(day time.Time) {
	if t.today.day.Equal(day) {
		return
	}
	prev := day.AddDate(0, 0, -1)
	if t.today.day.Equal(prev) {
		t.yesterday.close()
		t.yesterday = t.today
	} else {
		t.today.close()
	}
	t.today = newDayFile(t.dir, day)
	t.mine = make(map[key]mine)
	if !t.yesterday.day.Equal(prev) {
		t.yesterday.close()
		t.yesterday = newDayFile(t.dir, prev)
	}
}

package seen

import (
	"bytes"
	"fmt"
	"hitcounter/cgi/rundir"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// at is a time on 3 December 2026, UTC.
func at(hour, minute int) time.Time {
	return time.Date(2026, 12, 3, hour, minute, 0, 0, time.UTC)
}

func newTable(tb testing.TB, slots int) (*Table, string) {
	tb.Helper()
	dir := tb.TempDir()
	tab := open(rundir.New(dir, "", nil), slots)
	tb.Cleanup(func() { tab.Close() })
	return tab, dir
}

func see(tb testing.TB, tab *Table, v Visit) Verdict {
	tb.Helper()
	got, err := tab.See(v)
	if err != nil {
		tb.Fatalf("See(%s at %s): %v", v.Counter, v.Now.Format(time.DateTime), err)
	}
	got.marked, got.prev, got.prevVia = 0, 0, 0 // for Unsee alone: see TestUnsee
	return got
}

// TestUnsee: a mark taken back leaves the visitor's next hit as if the
// hit never came, in this Table and in another process's.
func TestUnsee(t *testing.T) {
	alice := Visit{Counter: "blog", Addr: "192.0.2.1", UserAgent: "Firefox", Window: 30 * time.Minute}
	bob := alice
	bob.Addr = "192.0.2.2"
	at1200, at1201, at1240, at1241 := alice, alice, alice, alice
	at1200.Now, at1201.Now, at1240.Now, at1241.Now = at(12, 0), at(12, 1), at(12, 40), at(12, 41)
	bob.Now = at(12, 0)
	tests := []struct {
		name  string
		first []Visit // seen, and kept
		undo  Visit   // seen, then taken back
		next  Visit
		want  Verdict // of next, in this Table and in another
	}{
		{"a new visitor is new again", []Visit{bob}, at1200, at1201, newToday},
		{"a known visitor's view is a view again", []Visit{at1200}, at1240, at1241, counted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, other := range []bool{false, true} {
				tab, dir := newTable(t, defaultShareSlots)
				for _, v := range tc.first {
					see(t, tab, v)
				}
				verdict, err := tab.See(tc.undo)
				if err != nil {
					t.Fatal(err)
				}
				if err := tab.Unsee(tc.undo, verdict); err != nil {
					t.Fatalf("Unsee: %v", err)
				}
				next := tab
				if other {
					next = open(rundir.New(dir, "", nil), defaultShareSlots)
					defer next.Close()
				}
				if got := see(t, next, tc.next); got != tc.want {
					t.Errorf("other process %v: next hit got %+v, want %+v", other, got, tc.want)
				}
				if got := see(t, next, tc.next); got != reload {
					t.Errorf("other process %v: the hit after got %+v, want %+v", other, got, reload)
				}
			}
		})
	}
	// A reload wrote nothing: Unsee leaves the view it was a reload of.
	tab, _ := newTable(t, defaultShareSlots)
	see(t, tab, at1200)
	verdict, _ := tab.See(at1201)
	if err := tab.Unsee(at1201, verdict); err != nil {
		t.Fatal(err)
	}
	if got := see(t, tab, at1201); got != reload {
		t.Errorf("after a reload taken back: got %+v, want %+v", got, reload)
	}
}

var (
	counted  = Verdict{}
	newToday = Verdict{NewToday: true}
	reload   = Verdict{Reload: true}
)

func TestSee(t *testing.T) {
	alice := Visit{Counter: "blog", Addr: "192.0.2.1", UserAgent: "Firefox", Window: 30 * time.Minute}
	with := func(v Visit, change func(*Visit)) Visit { change(&v); return v }
	type hit struct {
		v    Visit
		now  time.Time
		want Verdict
	}
	tests := []struct {
		name string
		hits []hit
	}{
		{"first visit, then a reload", []hit{
			{alice, at(12, 0), newToday},
			{alice, at(12, 1), reload},
			{alice, at(12, 29), reload},
		}},
		{"at exactly the window, a view by a known visitor", []hit{
			{alice, at(12, 0), newToday},
			{alice, at(12, 30), counted},
			{alice, at(12, 31), reload},
		}},
		{"a reload does not extend the window", []hit{
			{alice, at(12, 0), newToday},
			{alice, at(12, 20), reload},
			{alice, at(12, 30), counted},
			{alice, at(12, 35), reload},
			{alice, at(13, 0), counted},
		}},
		{"another User-Agent, address or counter is another visitor", []hit{
			{alice, at(12, 0), newToday},
			{with(alice, func(v *Visit) { v.UserAgent = "Chrome" }), at(12, 1), newToday},
			{with(alice, func(v *Visit) { v.Addr = "192.0.2.2" }), at(12, 1), newToday},
			{with(alice, func(v *Visit) { v.Counter = "home" }), at(12, 1), newToday},
			{alice, at(12, 2), reload},
		}},
		{"fields do not run into each other", []hit{
			{Visit{Counter: "ab", Addr: "c", UserAgent: "d", Window: time.Hour}, at(12, 0), newToday},
			{Visit{Counter: "a", Addr: "bc", UserAgent: "d", Window: time.Hour}, at(12, 0), newToday},
			{Visit{Counter: "a", Addr: "b", UserAgent: "cd", Window: time.Hour}, at(12, 0), newToday},
		}},
		{"window 0: no reloads, still new visitors", []hit{
			{with(alice, func(v *Visit) { v.Window = 0 }), at(12, 0), newToday},
			{with(alice, func(v *Visit) { v.Window = 0 }), at(12, 0), counted},
			{with(alice, func(v *Visit) { v.Window = 0 }), at(12, 0), counted},
		}},
		{"the clock set back past the window: counted, and the window runs from then", []hit{
			{alice, at(12, 0), newToday},
			{alice, at(11, 0), counted},
			{alice, at(11, 10), reload},
			{alice, at(12, 0), counted},
		}},
		// Another process may take its clock before this one and its lock
		// after: a last view a little in the future is that process's,
		// and this hit a reload of it.
		{"a last view in the future, within the window: a reload", []hit{
			{alice, at(12, 0), newToday},
			{alice, at(11, 59), reload},
		}},
		{"across midnight, within the window a reload", []hit{
			{alice, at(23, 50).AddDate(0, 0, -1), newToday},
			{alice, at(0, 10), reload},
			{alice, at(0, 50), newToday},
			{alice, at(0, 55), reload},
		}},
		{"across midnight, a view within the window after it", []hit{
			{alice, at(23, 10).AddDate(0, 0, -1), newToday},
			{alice, at(0, 10), newToday},
		}},
		{"not across two midnights", []hit{
			{with(alice, func(v *Visit) { v.Window = 48 * time.Hour }), at(23, 50).AddDate(0, 0, -2), newToday},
			{with(alice, func(v *Visit) { v.Window = 48 * time.Hour }), at(0, 10), newToday},
		}},
		{"a time in another zone is taken as UTC", []hit{
			{alice, at(23, 50).AddDate(0, 0, -1), newToday},
			{alice, at(0, 10).In(time.FixedZone("UTC-5", -5*3600)), reload},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab, _ := newTable(t, defaultShareSlots)
			for i, h := range tc.hits {
				h.v.Now = h.now
				if got := see(t, tab, h.v); got != h.want {
					t.Errorf("hit %d at %s: got %+v, want %+v", i, h.now.UTC().Format(time.DateTime), got, h.want)
				}
			}
		})
	}
}

// A fresh Table, as each CGI process has, sees what the last one wrote.
// TestJoin: a page's image and its script are one view, in either order,
// in one process or two; a third request within the window is a reload,
// and a later view starts again.
func TestJoin(t *testing.T) {
	joined := Verdict{Joined: true}
	// A script's reload of a view its page's image asked for too.
	quietReload := Verdict{Reload: true, Quiet: true}
	type hit struct {
		via  Via
		min  int // minutes after noon
		want Verdict
	}
	for _, tc := range []struct {
		name   string
		window time.Duration
		hits   []hit
	}{
		{"image then script", 30 * time.Minute, []hit{{ViaImage, 0, newToday}, {ViaScript, 0, joined}, {ViaImage, 1, reload}, {ViaScript, 1, quietReload}}},
		{"script then image", 30 * time.Minute, []hit{{ViaScript, 0, newToday}, {ViaImage, 0, joined}, {ViaScript, 1, quietReload}, {ViaImage, 1, reload}}},
		{"script alone", 30 * time.Minute, []hit{{ViaScript, 0, newToday}, {ViaScript, 1, reload}, {ViaScript, 2, reload}}},
		{"two images", 30 * time.Minute, []hit{{ViaImage, 0, newToday}, {ViaImage, 0, reload}, {ViaScript, 1, joined}}},
		{"after the window", 30 * time.Minute, []hit{{ViaImage, 0, newToday}, {ViaScript, 0, joined}, {ViaScript, 31, counted}, {ViaImage, 31, joined}}},
		{"no window", 0, []hit{{ViaImage, 0, newToday}, {ViaScript, 0, joined}, {ViaImage, 0, counted}, {ViaScript, 0, joined}, {ViaScript, 0, counted}, {ViaScript, 2, counted}, {ViaImage, 4, counted}}},
		{"neither joins", 30 * time.Minute, []hit{{ViaNone, 0, newToday}, {ViaScript, 0, reload}}},
	} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%d processes", tc.name, procs), func(t *testing.T) {
				dir := t.TempDir()
				tabs := make([]*Table, procs)
				for i := range tabs {
					tabs[i] = Open(rundir.New(dir, "", nil))
					defer tabs[i].Close()
				}
				for i, h := range tc.hits {
					v := Visit{Counter: "blog", Addr: "192.0.2.1", UserAgent: "Firefox", Window: tc.window, Via: h.via, Now: at(12, h.min)}
					if got := see(t, tabs[i%procs], v); got != h.want {
						t.Errorf("hit %d (via %d at 12:%02d): got %+v, want %+v", i, h.via, h.min, got, h.want)
					}
				}
			})
		}
	}
}

func TestSeeAcrossTables(t *testing.T) {
	dir := t.TempDir()
	alice := Visit{Counter: "blog", Addr: "192.0.2.1", UserAgent: "Firefox", Window: 30 * time.Minute}
	for i, want := range []Verdict{newToday, reload, counted} {
		tab := Open(rundir.New(dir, "", nil))
		alice.Now = at(12, 0).Add(time.Duration(i) * 15 * time.Minute)
		if got := see(t, tab, alice); got != want {
			t.Errorf("hit %d: got %+v, want %+v", i, got, want)
		}
		if err := tab.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func names(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestOldTablesRemoved(t *testing.T) {
	tab, dir := newTable(t, defaultShareSlots)
	for _, name := range []string{"seen-2026-11-28", "seen-2026-12-01", "seen-2026-12-02", "seen-2026-12-04", "seen-2026-12-10", "seen-notes", "throttle", "bcrypt-0.lock"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	see(t, tab, Visit{Counter: "blog", Addr: "192.0.2.1", Now: at(12, 0)})
	want := []string{"bcrypt-0.lock", "seen-2026-12-02", "seen-2026-12-03", "seen-2026-12-04", "seen-notes", "throttle"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("after the first hit of 3 December: files %q, want %q", got, want)
	}

	// A long-lived process moves on to the next day.
	see(t, tab, Visit{Counter: "blog", Addr: "192.0.2.1", Now: at(12, 0).AddDate(0, 0, 2)})
	want = []string{"bcrypt-0.lock", "seen-2026-12-04", "seen-2026-12-05", "seen-notes", "throttle"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("after the first hit of 5 December: files %q, want %q", got, want)
	}
}

// A share full of visitors forgets, for a new one, the visitor in its
// bucket whose last counted view is the oldest: recent visitors' reloads
// are still known, and the one forgotten is new again if he comes back.
// The first to forget says so, once a day, in any process.
func TestCrowded(t *testing.T) {
	const slots = bucketSlots // a share of one bucket
	tab, _ := newTable(t, slots)
	visitor := func(i int) Visit {
		return Visit{Counter: "blog", Addr: "192.0.2." + strconv.Itoa(i), Now: at(12, 0).Add(time.Duration(i) * time.Second), Window: time.Hour}
	}
	for i := range slots {
		if got := see(t, tab, visitor(i)); got != newToday {
			t.Fatalf("visitor %d of %d: got %+v, want %+v", i, slots, got, newToday)
		}
	}
	crowded := Verdict{NewToday: true, Crowded: true}
	if got := see(t, tab, visitor(slots)); got != crowded {
		t.Errorf("one visitor too many: got %+v, want %+v", got, crowded)
	}
	// Said once a day, in any process (another Table stands for one).
	other := open(tab.dir, slots)
	defer other.Close()
	for i, tb := range []*Table{tab, other} {
		if got := see(t, tb, visitor(slots+1+i)); got != newToday {
			t.Errorf("the share full again, table %d: got %+v, want %+v", i, got, newToday)
		}
	}
	// The three oldest were forgotten for the three newest; the others'
	// reloads, and the newest's, are still known to a process that did
	// not count them itself (tab remembers its own).
	third := open(tab.dir, slots)
	defer third.Close()
	// (The forgotten last: each makes room by forgetting another.)
	for n := range slots + 3 {
		i := (n + 3) % (slots + 3)
		v := visitor(i)
		v.Now = at(12, 30)
		want := reload
		if i < 3 {
			want = newToday
		}
		if got := see(t, third, v); got != want {
			t.Errorf("visitor %d again: got %+v, want %+v", i, got, want)
		}
	}
	// A new day says it again.
	for i := range slots + 1 {
		v := visitor(i)
		v.Now = v.Now.AddDate(0, 0, 2)
		want := newToday
		if i == slots {
			want = crowded
		}
		if got := see(t, tab, v); got != want {
			t.Errorf("two days on, visitor %d: got %+v, want %+v", i, got, want)
		}
	}
}

// A full bucket forgets the visitor whose view was counted longest ago,
// by the order the views were written, not by their times, which are to
// the second: a flood writes many in the same second.
func TestForgetsInTheOrderWritten(t *testing.T) {
	tab, dir := newTable(t, bucketSlots)
	visitor := func(i int, now time.Time) Visit {
		return Visit{Counter: "blog", Addr: "192.0.2." + strconv.Itoa(i), Now: now, Window: 10 * time.Minute}
	}
	// 66 visitors in the same second: the first two are forgotten.
	for i := range bucketSlots + 2 {
		if got := see(t, tab, visitor(i, at(12, 0))); !got.NewToday {
			t.Fatalf("visitor %d: got %+v, want a new visitor", i, got)
		}
	}
	// Visitor 2's view counted again puts him after the others: the
	// next to go is visitor 3.
	if got := see(t, tab, visitor(2, at(12, 20))); got != counted {
		t.Fatalf("visitor 2 past the window: got %+v, want %+v", got, counted)
	}
	see(t, tab, visitor(bucketSlots+2, at(12, 20)))

	fresh := open(rundir.New(dir, "", nil), bucketSlots)
	defer fresh.Close()
	want := map[int]Verdict{2: reload, bucketSlots + 2: reload}
	order := []int{2, bucketSlots + 2}
	for i := 4; i < bucketSlots+2; i++ {
		want[i] = counted
		order = append(order, i)
	}
	for _, i := range []int{0, 1, 3} {
		want[i] = newToday
		order = append(order, i)
	}
	for _, i := range order {
		if got := see(t, fresh, visitor(i, at(12, 25))); got != want[i] {
			t.Errorf("visitor %d at 12:25: got %+v, want %+v", i, got, want[i])
		}
	}
}

// A flood of made-up visitors on one counter, ten times its share, does
// not change what another counter's visitors are, nor what a site's
// pages and the site itself are told apart as.
func TestFloodStaysInItsShare(t *testing.T) {
	const slots = 4 * bucketSlots
	tab, _ := newTable(t, slots)
	real := func(counter, page string, i int, now time.Time) Visit {
		return Visit{Counter: counter, Page: page, Addr: "198.51.100." + strconv.Itoa(i), UserAgent: "Firefox", Now: now, Window: 30 * time.Minute}
	}
	for i := range 5 {
		see(t, tab, real("home", "", i, at(11, 0)))
		see(t, tab, real("site", "/a/", i, at(11, 0)))
	}
	crowdedSeen := false
	for i := range 10 * slots {
		v := Visit{Counter: "blog", Addr: "203.0.113.7", UserAgent: "Flood/" + strconv.Itoa(i), Now: at(12, 0), Window: 30 * time.Minute}
		got := see(t, tab, v)
		if !got.NewToday {
			t.Fatalf("flood hit %d: got %+v, want a new visitor", i, got)
		}
		crowdedSeen = crowdedSeen || got.Crowded
	}
	if !crowdedSeen {
		t.Errorf("the flood filled its share, and no hit said so")
	}
	for _, tc := range []struct {
		name, counter, page string
		now                 time.Time
		want                Verdict
	}{
		{"known on another counter, in the window", "home", "", at(11, 20), reload},
		{"known on another counter, past the window", "home", "", at(12, 0), counted},
		{"new on another counter", "home", "", at(12, 0), newToday},
		{"known on a site's page", "site", "/a/", at(11, 20), reload},
		{"new on a site's other page", "site", "/b/", at(12, 0), newToday},
		{"new on the site itself", "site", "", at(12, 0), newToday},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := 0
			if tc.want == newToday {
				i = 50
			}
			for n := range 5 {
				v := real(tc.counter, tc.page, i+n, tc.now)
				if got := see(t, tab, v); got != tc.want {
					t.Errorf("visitor %d: got %+v, want %+v", i+n, got, tc.want)
				}
				v.Now = v.Now.Add(time.Minute)
				if got := see(t, tab, v); got != reload {
					t.Errorf("visitor %d a minute on: got %+v, want %+v", i+n, got, reload)
				}
			}
		})
	}
}

// The first 64 counters of a day get a share each; later ones share one,
// picked by a keyed hash of the name, and are still told apart by their
// visitors' keys.
func TestSharesBeyondTheDirectory(t *testing.T) {
	tab, dir := newTable(t, bucketSlots)
	const counters = shares + 20
	v := func(c int) Visit {
		return Visit{Counter: "c" + strconv.Itoa(c), Addr: "192.0.2.1", UserAgent: "Firefox", Now: at(12, 0), Window: time.Hour}
	}
	for c := range counters {
		if got := see(t, tab, v(c)); got != newToday {
			t.Errorf("counter %d: got %+v, want %+v", c, got, newToday)
		}
	}
	// A fresh Table reads the shares from the file.
	fresh := Open(rundir.New(dir, "", nil))
	fresh.shareSlots = bucketSlots
	defer fresh.Close()
	for c := range counters {
		if got := see(t, fresh, v(c)); got != reload {
			t.Errorf("counter %d again: got %+v, want %+v", c, got, reload)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "seen-2026-12-03"))
	if err != nil {
		t.Fatal(err)
	}
	for c := range shares {
		e := b[dirAt+c*nameSize : dirAt+(c+1)*nameSize]
		if got, want := string(bytes.TrimRight(e, "\x00")), "c"+strconv.Itoa(c); got != want {
			t.Errorf("directory entry %d: %q, want %q", c, got, want)
		}
	}
}

func TestDamagedTableMadeAnew(t *testing.T) {
	full := fileSize(defaultShareSlots)
	badMagic := make([]byte, full)
	copy(badMagic, "counter-seex")
	otherSlots := make([]byte, full)
	copy(otherSlots, encodeHeader(defaultShareSlots/2, newSalt()))
	// The layout before shares: 65,536 slots for every counter.
	version1 := make([]byte, 64+65536*16)
	copy(version1, "counter-seen\x00\x00\x00\x01\x00\x01\x00\x00")
	long := append(encodeHeader(defaultShareSlots, newSalt()), make([]byte, full)...)
	for _, tc := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{"empty", nil, 0o600},
		{"short", []byte("counter-seen"), 0o600},
		{"bad magic", badMagic, 0o600},
		{"another size in the header", otherSlots, 0o600},
		{"version 1", version1, 0o600},
		{"too long", long, 0o644},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, dir := newTable(t, defaultShareSlots)
			path := filepath.Join(dir, "seen-2026-12-03")
			if err := os.WriteFile(path, tc.data, tc.mode); err != nil {
				t.Fatal(err)
			}
			v := Visit{Counter: "blog", Addr: "192.0.2.1", Now: at(12, 0), Window: time.Hour}
			if got := see(t, tab, v); got != newToday {
				t.Errorf("first hit: got %+v, want %+v", got, newToday)
			}
			v.Now = at(12, 1)
			if got := see(t, tab, v); got != reload {
				t.Errorf("second hit: got %+v, want %+v", got, reload)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != full || fi.Mode().Perm() != 0o600 {
				t.Errorf("table: size %d mode %v; want %d, 0600", fi.Size(), fi.Mode().Perm(), full)
			}
		})
	}
}

// A long-lived process whose file was removed, or damaged, under it
// follows what the others use.
func TestTableReplacedUnderAnOpenTable(t *testing.T) {
	dir := t.TempDir()
	long, short := Open(rundir.New(dir, "", nil)), Open(rundir.New(dir, "", nil))
	defer long.Close()
	defer short.Close()
	v := Visit{Counter: "blog", Addr: "192.0.2.1", Now: at(12, 0), Window: time.Hour}
	see(t, long, v)
	path := filepath.Join(dir, "seen-2026-12-03")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	v.Now = at(12, 1)
	if got := see(t, short, v); got != newToday {
		t.Errorf("after the file was removed: got %+v, want %+v", got, newToday)
	}
	v.Now = at(12, 2)
	if got := see(t, long, v); got != reload {
		t.Errorf("the long-lived table: got %+v, want %+v (it should follow the new file)", got, reload)
	}
	if err := os.WriteFile(path, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A visit that a Table counted itself within the window stays a
	// reload in its memory, whatever became of the file.
	v.Now = at(12, 3)
	if got := see(t, short, v); got != reload {
		t.Errorf("after the file was damaged, a visitor this table counted: got %+v, want %+v", got, reload)
	}
	w := Visit{Counter: "blog", Addr: "192.0.2.2", Now: at(12, 3), Window: time.Hour}
	if got := see(t, short, w); got != newToday {
		t.Errorf("after the file was damaged: got %+v, want %+v", got, newToday)
	}
	w.Now = at(12, 4)
	if got := see(t, long, w); got != reload {
		t.Errorf("the long-lived table: got %+v, want %+v (it should read the new salt)", got, reload)
	}
}

// A Table's own counted views answer its reloads, and with no window its
// known visitors, without the file; what another process counted since
// is read from the file.
func TestOwnViewsAnsweredFromMemory(t *testing.T) {
	dir := t.TempDir()
	a, b := Open(rundir.New(dir, "", nil)), Open(rundir.New(dir, "", nil))
	defer a.Close()
	defer b.Close()
	v := Visit{Counter: "blog", Addr: "192.0.2.1", Now: at(12, 0), Window: 10 * time.Minute}
	see(t, a, v)
	// Past a's window, b counts a view: a must not call the next hit
	// within b's window a view.
	v.Now = at(12, 15)
	if got := see(t, b, v); got != counted {
		t.Fatalf("b, past the window: got %+v, want %+v", got, counted)
	}
	v.Now = at(12, 20)
	if got := see(t, a, v); got != reload {
		t.Errorf("a, 5 minutes after b's view: got %+v, want %+v", got, reload)
	}
	// With no window, a known visitor's hits are views, not new.
	n := Visit{Counter: "notes", Addr: "192.0.2.9", Now: at(13, 0)}
	for i, want := range []Verdict{newToday, counted, counted} {
		if got := see(t, a, n); got != want {
			t.Errorf("no window, hit %d: got %+v, want %+v", i, got, want)
		}
	}
}

func TestFilesArePrivate(t *testing.T) {
	const addr, ua = "203.0.113.77", "Mozilla/5.0 (PrivacyProbe)"
	tab, dir := newTable(t, defaultShareSlots)
	for i := range 50 {
		for _, v := range []Visit{
			{Counter: "blog", Addr: addr, UserAgent: ua},
			{Counter: "c" + strconv.Itoa(i), Addr: "2001:db8::" + strconv.Itoa(i), UserAgent: ua + strconv.Itoa(i)},
		} {
			v.Now = at(23, 50).AddDate(0, 0, -1).Add(time.Duration(i) * time.Minute)
			v.Window = time.Hour
			see(t, tab, v)
		}
	}
	got := names(t, dir)
	if want := []string{"seen-2026-12-02", "seen-2026-12-03"}; !slices.Equal(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	for _, name := range got {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{addr, ua, "2001:db8::", "PrivacyProbe"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds %q", name, secret)
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
}

// Errors name the file, never the visitor.
func TestErrorsHoldNoVisitor(t *testing.T) {
	const addr, ua = "203.0.113.77", "Mozilla/5.0 (PrivacyProbe)"
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	readOnly := t.TempDir()
	if err := os.Chmod(readOnly, 0o500); err != nil {
		t.Fatal(err)
	}
	type failing struct {
		name string
		tab  *Table
	}
	cases := []failing{
		{"missing directory in a missing one", Open(rundir.New(filepath.Join(t.TempDir(), "none", "run"), "", nil))},
		{"not a directory", Open(rundir.New(notDir, "", nil))},
	}
	if os.Getuid() != 0 { // root writes into a read-only directory anyway
		cases = append(cases, failing{"read-only directory", Open(rundir.New(readOnly, "", nil))})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.tab.See(Visit{Counter: "blog", Addr: addr, UserAgent: ua, Now: at(12, 0)})
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); strings.Contains(msg, addr) || strings.Contains(msg, ua) {
				t.Errorf("error %q names the visitor", msg)
			}
		})
	}
}

// Goroutines of one process, through one Table and through two, agree
// on who is new.
func TestConcurrentGoroutines(t *testing.T) {
	dir := t.TempDir()
	tabs := []*Table{Open(rundir.New(dir, "", nil)), Open(rundir.New(dir, "", nil))}
	defer tabs[0].Close()
	defer tabs[1].Close()
	const goroutines, visitors = 8, 200
	var mu sync.Mutex
	var news, reloads int
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range visitors {
				// Each goroutine in its own order.
				n := (i*7 + g*31) % visitors
				v := Visit{Counter: "blog", Addr: "192.0.2." + strconv.Itoa(n), Now: at(12, 0), Window: time.Hour}
				got, err := tabs[g%2].See(v)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if got.NewToday {
					news++
				}
				if got.Reload {
					reloads++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if news != visitors || reloads != goroutines*visitors-visitors {
		t.Errorf("new %d, reloads %d; want %d, %d", news, reloads, visitors, goroutines*visitors-visitors)
	}
}

package meter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"hitcounter/cgi/rundir"
)

// clock is a clock the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func at(s string) time.Time      { t, _ := time.Parse(time.RFC3339, s); return t }

// rd is the runtime directory at dir.
func rd(dir string) *rundir.Dir { return rundir.New(dir, "", nil) }

func files(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRecordIsShared: meters of several processes recording at once
// into one file; mapped (long-lived processes) they lose nothing.
func TestRecordIsShared(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) { testRecordIsShared(t, mapped) })
	}
}

func testRecordIsShared(t *testing.T, mapped bool) {
	dir := t.TempDir()
	c := &clock{t: at("2026-12-04T10:00:00Z")}
	open := New
	if mapped {
		open = NewMapped
	}
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := open(rd(dir), "", c.now, Hooks{})
			defer m.Close()
			for i := range 500 {
				m.Record(Hit, time.Duration(1+i%3)*time.Millisecond, 400*time.Microsecond)
				if p == 0 && i < 20 {
					m.Record(Login, 80*time.Millisecond, 79*time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	days, _, err := Read(rd(dir))
	if err != nil || len(days) != 1 || days[0].Date != "2026-12-04" {
		t.Fatalf("Read: %+v, %v", days, err)
	}
	hit, login := days[0].Kinds[Hit], days[0].Kinds[Login]
	switch {
	case mapped && (hit.Count != 4000 || login.Count != 20):
		t.Errorf("counts: %d hits, %d logins; want 4000 and 20", hit.Count, login.Count)
	case !mapped && (hit.Count < 1000 || hit.Count > 4000 || login.Count != 20):
		// Word by word, two processes' adds at the same instant may
		// be one: eight at once, a tight loop each, lose some.
		t.Errorf("counts: %d hits, %d logins; want most of 4000, and 20", hit.Count, login.Count)
	}
	if p50 := hit.P50(); Bucket(p50) != Bucket(2*time.Millisecond) {
		t.Errorf("hit p50 %v, want about 2ms", p50)
	}
	if cpu := login.CPU[0]; Bucket(cpu) != Bucket(79*time.Millisecond) {
		t.Errorf("login CPU p50 %v, want about 79ms", cpu)
	}
}

// TestNewDayFolds: the first request of a new UTC day folds the days
// before into the database through Hooks.Fold, once, and removes their
// files; a fold that fails keeps them for the next day's.
func TestNewDayFolds(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: at("2026-12-03T23:59:00Z")}
	var folded [][]Day
	var warned []string
	failing := true
	hooks := Hooks{
		Fold: func(days []Day) ([]string, error) {
			if failing {
				return nil, errors.New("database busy")
			}
			folded = append(folded, days)
			return []string{"2026-12-03: hit p99 was 9ms, 3.0 times its median"}, nil
		},
		Warn: func(line string) { warned = append(warned, line) },
	}
	m := New(rd(dir), "", c.now, hooks)
	for range 30 {
		m.Record(Hit, 3*time.Millisecond, time.Millisecond)
	}
	m.Close()
	// A commit just after midnight, from inside a write: it makes the
	// new day's file but does not fold.
	c.set(at("2026-12-04T00:00:01Z"))
	m = New(rd(dir), "", c.now, hooks)
	m.Record(Commit, 5*time.Millisecond, 0)
	if len(folded) != 0 || len(warned) != 0 {
		t.Fatalf("a commit's record folded: %v %v", folded, warned)
	}
	// The next request of that process folds, and the fold fails: the
	// file stays.
	m.Record(Hit, 3*time.Millisecond, time.Millisecond)
	m.Close()
	if len(warned) != 1 || len(files(t, dir)) != 2 {
		t.Fatalf("after a failed fold: warned %q, files %v", warned, files(t, dir))
	}
	// Another process on the same day does not fold again; the next
	// day's first one folds both days before it, in order.
	other := New(rd(dir), "", c.now, hooks)
	other.Record(Hit, time.Millisecond, 0)
	other.Close()
	failing = false
	c.set(at("2026-12-05T00:10:00Z"))
	m = New(rd(dir), "", c.now, hooks)
	m.Record(JSON, time.Millisecond, 0)
	m.Close()
	if len(folded) != 1 || len(folded[0]) != 2 || folded[0][0].Date != "2026-12-03" || folded[0][1].Date != "2026-12-04" {
		t.Fatalf("folded %+v, want 2026-12-03 and 2026-12-04 at once", folded)
	}
	if d := folded[0][0]; d.Kinds[Hit].Count != 30 {
		t.Errorf("2026-12-03 folded with %d hits, want 30", d.Kinds[Hit].Count)
	}
	if d := folded[0][1]; d.Kinds[Hit].Count != 2 || d.Kinds[Commit].Count != 1 {
		t.Errorf("2026-12-04 folded with %+v, want 2 hits and a commit", d.Kinds)
	}
	if got := files(t, dir); len(got) != 1 || got[0] != "costs-2026-12-05" {
		t.Errorf("files after the fold: %v, want today's alone", got)
	}
	if warned[len(warned)-1] != "costs: 2026-12-03: hit p99 was 9ms, 3.0 times its median (counter doctor)" {
		t.Errorf("the fold's warning did not reach the log: %q", warned)
	}
}

// TestBuildFirstRequests: a build's first BuildRequests requests of
// a kind are judged once, when the last of them comes; a new build starts
// its own.
func TestBuildFirstRequests(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: at("2026-12-04T10:00:00Z")}
	type call struct {
		id string
		k  Kind
		f  Figures
	}
	var calls []call
	hooks := Hooks{Build: func(id string, k Kind, f Figures) (string, error) {
		calls = append(calls, call{id, k, f})
		return "", nil
	}}
	for _, build := range []string{"v1", "v2"} {
		for i := range 250 {
			m := New(rd(dir), build, c.now, hooks) // a CGI process a hit
			wall := 2 * time.Millisecond
			if build == "v2" {
				wall = 5 * time.Millisecond
			}
			if i >= BuildRequests {
				wall = time.Second // not among the first: not in the build's figures
			}
			m.Record(Hit, wall, wall/2)
			m.Close()
		}
	}
	if len(calls) != 2 {
		t.Fatalf("build judged %d times, want twice (once a build): %+v", len(calls), calls)
	}
	for i, want := range []struct {
		id  string
		p50 time.Duration
	}{{"v1", 2 * time.Millisecond}, {"v2", 5 * time.Millisecond}} {
		got := calls[i]
		if got.id != want.id || got.k != Hit || got.f.Count != BuildRequests || Bucket(got.f.P50()) != Bucket(want.p50) ||
			Bucket(got.f.P99()) != Bucket(want.p50) {
			t.Errorf("call %d: %+v, want %s with 100 hits at %v", i, got, want.id, want.p50)
		}
	}
	_, b, err := Read(rd(dir))
	if err != nil || b.ID != "v2" || b.Kinds[Hit].Count != BuildRequests {
		t.Errorf("the build file: %+v, %v", b, err)
	}
}

// TestDamagedFileIsMadeAnew: a file of the wrong size or header is made
// anew, and recording goes on.
func TestDamagedFileIsMadeAnew(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: at("2026-12-04T10:00:00Z")}
	for _, junk := range [][]byte{[]byte("junk"), make([]byte, fileSize)} {
		if err := os.WriteFile(filepath.Join(dir, "costs-2026-12-04"), junk, 0o600); err != nil {
			t.Fatal(err)
		}
		m := New(rd(dir), "", c.now, Hooks{})
		m.Record(Stats, 40*time.Millisecond, 0)
		m.Close()
		days, _, _ := Read(rd(dir))
		if len(days) != 1 || days[0].Kinds[Stats].Count != 1 {
			t.Errorf("after a damaged file of %d bytes: %+v", len(junk), days)
		}
	}
}

// TestNoDirectoryFailsNothing: without a runtime directory, Record
// records nothing, in silence (doctor reports the directory).
func TestNoDirectoryFailsNothing(t *testing.T) {
	var warned []string
	m := New(rd(filepath.Join(t.TempDir(), "missing", "run")), "v1", time.Now, Hooks{Warn: func(l string) { warned = append(warned, l) }})
	defer m.Close()
	m.Record(Hit, time.Millisecond, 0)
	m.Record(Hit, time.Millisecond, 0)
	if len(warned) != 0 {
		t.Errorf("log lines for a missing directory: %q", warned)
	}
}

func TestWarnLines(t *testing.T) {
	warnings := []string{"2026-12-03: hit p50 was 9ms", "2026-12-03: commit p99 was 90ms", "2026-12-04: hit p99 was 1s"}
	got := warnLines(warnings, 200)
	want := []string{"costs: 2026-12-03: hit p50 was 9ms; commit p99 was 90ms; 2026-12-04: hit p99 was 1s (counter doctor)"}
	if !slices.Equal(got, want) {
		t.Errorf("warnLines = %q, want %q", got, want)
	}
	// Lines no longer than the log's: a new line says its date again.
	got = warnLines(warnings, 80)
	want = []string{
		"costs: 2026-12-03: hit p50 was 9ms; commit p99 was 90ms (counter doctor)",
		"costs: 2026-12-04: hit p99 was 1s (counter doctor)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnLines, 80 bytes = %q, want %q", got, want)
	}
	got = warnLines(warnings, 50)
	want = []string{
		"costs: 2026-12-03: hit p50 was 9ms (counter doctor)",
		"costs: 2026-12-03: commit p99 was 90ms (counter doctor)",
		"costs: 2026-12-04: hit p99 was 1s (counter doctor)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnLines, 50 bytes = %q, want %q", got, want)
	}
	if got := warnLines(nil, 200); len(got) != 0 {
		t.Errorf("lines for no warning: %q", got)
	}
}

// TestMappedAcrossMidnight: a long-lived process's meter goes on into the
// next day's file when the clock passes midnight.
func TestMappedAcrossMidnight(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: at("2026-12-03T23:59:59Z")}
	m := NewMapped(rd(dir), "v1", c.now, Hooks{})
	defer m.Close()
	m.Record(Hit, time.Millisecond, 0)
	m.Record(Hit, time.Millisecond, 0)
	c.set(at("2026-12-04T00:00:00Z"))
	m.Record(Hit, time.Millisecond, 0)
	days, _, err := Read(rd(dir))
	if err != nil || len(days) != 2 || days[0].Kinds[Hit].Count != 2 || days[1].Kinds[Hit].Count != 1 {
		t.Errorf("days %+v, %v; want 2 hits on the 3rd and 1 on the 4th", days, err)
	}
	if p := m.Pending(); len(p) != 1 || p[0].Date != "2026-12-04" || p[0].Kinds[Hit].Count != 1 {
		t.Errorf("Pending from the mapping: %+v", p)
	}
}

// TestSpanCPUOnlyAlone: a long-lived process's request is given the
// process's CPU time only when no other request ran beside it; its wall
// time always.
func TestSpanCPUOnlyAlone(t *testing.T) {
	c := &clock{t: at("2026-12-03T10:00:00Z")}
	m := NewMapped(rd(t.TempDir()), "", c.now, Hooks{})
	defer m.Close()
	burn := func() {
		for start := ProcessCPU(); ProcessCPU()-start < 5*time.Millisecond; {
		}
	}
	first, second := m.Start(), m.Start() // side by side
	burn()
	m.Stop(second, Hit, true)
	m.Stop(first, Hit, true)
	alone := m.Start()
	burn()
	m.Stop(alone, Hit, true)
	m.Stop(m.Start(), Stats, false) // no kind: not recorded

	var wall, cpu uint32
	base := headerSize + int(Hit)*2*histBytes
	for i := range Buckets {
		wall += m.day.load(base + 4*i)
		cpu += m.day.load(base + histBytes + 4*i)
	}
	if wall != 3 || cpu != 1 {
		t.Errorf("%d wall times and %d CPU times of hits, want 3 and 1", wall, cpu)
	}
	if p := m.Pending(); len(p) != 1 || p[0].Kinds[Stats].Count != 0 {
		t.Errorf("pending %+v, want no stats request", p)
	}
}

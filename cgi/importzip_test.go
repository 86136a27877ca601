package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// Issue 36, item 6: a GoatCounter ZIP of a million paths took 434 MB to
// import, a Plausible ZIP of a million page rows 547 MB and held the
// database for seconds, so that a hit meanwhile got 503. An export's
// pages are now capped as the site's are while they are read, and the
// ZIP's directory is read a file at a time.

// zipImportPeak is the most memory an import of a ZIP export may take, as
// the import of an access log: tens of MB, whatever the file names.
const zipImportPeak = 64 << 20

// zipImportHold is the longest a step of the import may hold the
// database: well under a hit's wait (COUNTER_WAIT, 2 s by default).
const zipImportHold = time.Second

// importBenchZIP writes, with deploy/bench/importbench, an export of kind
// (goatzip or plausiblezip) of pages pages, each viewed on one day.
func importBenchZIP(t *testing.T, dir, kind string, pages int) string {
	t.Helper()
	bin := filepath.Join(dir, "importbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../deploy/bench/importbench").CombinedOutput(); err != nil {
		t.Fatalf("build importbench: %v\n%s", err, out)
	}
	file := filepath.Join(dir, kind+".zip")
	if out, err := exec.Command(bin, kind, "-pages", strconv.Itoa(pages), "-days", "1", file).CombinedOutput(); err != nil {
		t.Fatalf("importbench: %v\n%s", err, out)
	}
	return file
}

// tickHits hits site www every interval until stop is closed, each hit a
// process of the binary as CGI, and returns each hit's status and time.
func tickHits(t *testing.T, db string, every time.Duration, stop <-chan struct{}) func() (map[int]int, []time.Duration) {
	h := newSiteHits(t, db)
	var wg sync.WaitGroup
	hit := func() {
		defer wg.Done()
		h.hit(t)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				wg.Add(1)
				go hit() // on time, whether the last has been answered or not
			}
		}
	}()
	return func() (map[int]int, []time.Duration) {
		<-done
		wg.Wait()
		return h.statuses, h.took
	}
}

var importHeld = regexp.MustCompile(`held the database (\d+) times, at most (\S+) at a time`)

// TestImportZIPBounded imports a GoatCounter ZIP export of a million
// paths and a Plausible one of a million page rows (100,000 with -short)
// through the built binary into a site, with a hit every 100 ms: the
// import's peak RSS stays under zipImportPeak, no step holds the database
// longer than zipImportHold, and every hit is answered 200 and counted
// beside what the import brought.
func TestImportZIPBounded(t *testing.T) {
	pages := 1_000_000
	if testing.Short() {
		pages = 100_000
	}
	for _, kind := range []string{"goatzip", "plausiblezip"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			file := importBenchZIP(t, dir, kind, pages)
			boundedImport(t, dir, []string{"-name", "www", file}, true)
		})
	}
}

// boundedImport imports with the built binary, run with args after
// import, into site www, made in dir, with a hit every 100 ms: the
// import's peak RSS stays under zipImportPeak, no step holds the database
// longer than zipImportHold, and every hit is answered 200 and counted
// beside what the import brought. folded says the file has pages past
// the site's room.
func boundedImport(t *testing.T, dir string, args []string, folded bool) {
	t.Helper()
	db := filepath.Join(dir, "counter.db")
	if out, err := adminRun(t, db, "create", "www", "-site", "-hosts", "blog.example,example.org", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	stop := make(chan struct{})
	wait := tickHits(t, db, 100*time.Millisecond, stop)
	time.Sleep(300 * time.Millisecond)
	// Measured through a helper: a child of the test would count the
	// test's own memory (runMeasured).
	start := time.Now()
	out, peak, err := runMeasuredArgs(t, counterBinary(t), testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db}), append([]string{"import"}, args...))
	took := time.Since(start)
	time.Sleep(300 * time.Millisecond)
	close(stop)
	statuses, times := wait()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	m := importHeld.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no hold in the import's summary:\n%s", out)
	}
	held, err := time.ParseDuration(string(m[2]))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(times)
	t.Logf("import of %s in %v: peak RSS %.1f MB, %s steps, the longest %v; %d hits: %v, longest %v\n%s",
		filepath.Base(args[len(args)-1]), took.Round(time.Millisecond), float64(peak)/(1<<20), m[1], held, len(times), statuses,
		times[len(times)-1].Round(time.Millisecond), out)
	if peak > zipImportPeak {
		t.Errorf("peak RSS of the import %.1f MB, want at most %d MB", float64(peak)/(1<<20), zipImportPeak>>20)
	}
	if held > zipImportHold {
		t.Errorf("a step held the database %v, want at most %v", held, zipImportHold)
	}
	if folded && !bytes.Contains(out, []byte("past max-pages: ")) {
		t.Errorf("the summary does not say how many pages were past max-pages:\n%s", out)
	}
	if statuses[200] != len(times) {
		t.Errorf("%d of %d hits answered 200: %v", statuses[200], len(times), statuses)
	}
	importedBeside(t, db, out, statuses[200], t.Errorf)
	if out, code := adminStdin(t, db, "", "check"); code != 0 {
		t.Errorf("check after the import: exit %d\n%s", code, out)
	}
}

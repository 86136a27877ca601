package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/store"
)

// Issue 25, item 6: a big import held the write lock for seconds, and hits
// that came meanwhile got 503. An import now holds the database a step at
// a time and makes its work visible in one short last step.

// importBenchLog writes, with deploy/bench/importbench, a site's combined
// log of about size bytes over days days of pages pages, each page viewed
// every day besides the site's traffic: days x pages page days.
func importBenchLog(t *testing.T, dir string, size int64, days, pages int) string {
	t.Helper()
	bin := filepath.Join(dir, "importbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../deploy/bench/importbench").CombinedOutput(); err != nil {
		t.Fatalf("build importbench: %v\n%s", err, out)
	}
	log := filepath.Join(dir, "site.log")
	out, err := exec.Command(bin, "log", "-size", strconv.FormatInt(size, 10), "-days", strconv.Itoa(days),
		"-pages", strconv.Itoa(pages), "-sweep", log).CombinedOutput()
	if err != nil {
		t.Fatalf("importbench: %v\n%s", err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
	return log
}

// siteHitEnv is the environment of a hit on site www from a page of its
// host example.org.
func siteHitEnv(t *testing.T, db string) []string {
	return append(hitEnv(t, db), "PATH_INFO=/www.png", "PATH_TRANSLATED=/tmp/counter-cgienv/cgi-bin/www.png",
		"REQUEST_URI=/cgi-bin/counter.cgi/www.png", "QUERY_STRING=")
}

// siteHits runs hits of site www, each a process of the binary as CGI,
// and notes each one's status and time.
type siteHits struct {
	bin      string
	env      []string
	mu       sync.Mutex
	statuses map[int]int
	took     []time.Duration
}

func newSiteHits(t *testing.T, db string) *siteHits {
	return &siteHits{bin: counterBinary(t), env: siteHitEnv(t, db), statuses: map[int]int{}}
}

// hit runs one hit and notes it.
func (h *siteHits) hit(t *testing.T) {
	cmd := exec.Command(h.bin)
	cmd.Env = testenv.OwnRunDir(t, h.env)
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	status := hitStatus(out, err)
	h.mu.Lock()
	h.statuses[status]++
	h.took = append(h.took, d)
	h.mu.Unlock()
}

// hitLoops runs n processes that hit site www one after another until
// stop is closed, and returns each hit's status and time.
func hitLoops(t *testing.T, db string, n int, stop <-chan struct{}) func() (statuses map[int]int, took []time.Duration) {
	h := newSiteHits(t, db)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				h.hit(t)
			}
		}()
	}
	return func() (map[int]int, []time.Duration) {
		wg.Wait()
		return h.statuses, h.took
	}
}

// siteViews is the views of site www in the file.
func siteViews(t *testing.T, db string) uint64 {
	t.Helper()
	d, err := store.Open(db, store.Options{ReadOnly: true, Wait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	info, err := d.Counter("www")
	if err != nil {
		t.Fatal(err)
	}
	return info.Count
}

var importedViews = regexp.MustCompile(`views: (\d+) -> (\d+);`)

// importedBeside returns the views that the import's summary out says it
// brought, and calls fail if site www's in the file are not those and the
// answered hits' that went on beside it.
func importedBeside(t *testing.T, db string, out []byte, answered int, fail func(format string, args ...any)) uint64 {
	t.Helper()
	m := importedViews.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no views in the import's summary:\n%s", out)
	}
	before, _ := strconv.ParseUint(string(m[1]), 10, 64)
	after, _ := strconv.ParseUint(string(m[2]), 10, 64)
	if got, want := siteViews(t, db), after-before+uint64(answered); got != want {
		fail("%d views in the file; want the import's %d and the %d hits answered", got, after-before, answered)
	}
	return after - before
}

// TestImportUnderHits imports a 200 MB access log of a site (400 days of
// 1,000 pages, each viewed every day, and its traffic: 400,000 page days)
// through the built binary while 16 processes hit the same site: every hit
// is answered 200 and counted, beside everything the import brought.
// IMPORT_BINARY=path runs the same with another build (an older one, to
// compare: deploy/bench/bench-importlive.sh), reporting without failing.
func TestImportUnderHits(t *testing.T) {
	size, days := int64(200<<20), 400
	if testing.Short() {
		size, days = 40<<20, 80
	}
	dir := t.TempDir()
	log := importBenchLog(t, dir, size, days, 1000)
	bin, compare := counterBinary(t), os.Getenv("IMPORT_BINARY")
	if compare != "" {
		bin = compare
	}
	db := filepath.Join(dir, "counter.db")
	if out, err := adminRun(t, db, "create", "www", "-site", "-hosts", "blog.example,example.org", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	stop := make(chan struct{})
	wait := hitLoops(t, db, 16, stop)
	time.Sleep(time.Second) // hits before the import, too
	imp := exec.Command(bin, "import", "-log", log, "www")
	imp.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
	start := time.Now()
	out, err := imp.CombinedOutput()
	took := time.Since(start)
	time.Sleep(time.Second) // and after it
	close(stop)
	statuses, times := wait()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	slices.Sort(times)
	report := fmt.Sprintf("import of %d MB in %v under %d hits: statuses %v; hit time p50 %v, p99 %v, longest %v\n%s",
		size>>20, took.Round(time.Millisecond), len(times), statuses, times[len(times)/2].Round(time.Millisecond),
		times[len(times)*99/100].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond), out)
	fail := t.Errorf
	if compare != "" {
		fail = t.Logf
	}
	t.Log(report)
	if statuses[200] != len(times) {
		fail("%d of %d hits answered 200: %v", statuses[200], len(times), statuses)
	}
	if brought := importedBeside(t, db, out, statuses[200], fail); brought < uint64(days)*1000 {
		t.Errorf("the import brought %d views, want at least the %d page days'", brought, days*1000)
	}
	if out, code := adminStdin(t, db, "", "check"); code != 0 {
		t.Errorf("check after the import: exit %d\n%s", code, out)
	}
}

// TestImportStoppedChangesNothing stops an import midway twice, with
// SIGKILL once its work has begun to grow the file and by a file too
// small for it: the site shows what it showed, hits go on, and the import
// run again brings it all.
func TestImportStoppedChangesNothing(t *testing.T) {
	dir := t.TempDir()
	log := importBenchLog(t, dir, 0, 300, 1000)
	db := filepath.Join(dir, "counter.db")
	if out, err := adminRun(t, db, "create", "www", "-site", "-hosts", "blog.example,example.org", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	hit := func() {
		t.Helper()
		if r := hitWith(t, db, []string{"PATH_INFO=/www.png", "REQUEST_URI=/cgi-bin/counter.cgi/www.png", "QUERY_STRING="}); r.status != 200 {
			t.Fatalf("hit: %d %s", r.status, r.stderr)
		}
	}
	hit()
	export := func() string {
		t.Helper()
		d, err := store.Open(db, store.Options{ReadOnly: true, Wait: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		h, err := d.History("www", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		pages, err := d.Pages("www", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		h.Settings.Site = nil // a pointer
		return fmt.Sprintf("%+v\n%+v", h, pages)
	}
	was := export()
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}

	// Killed once the staged copy has begun to grow the file.
	imp := exec.Command(counterBinary(t), "import", "-log", log, "www")
	imp.Env = testenv.OwnRunDir(t, []string{"COUNTER_DB=" + db})
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if now, err := os.Stat(db); err == nil && now.Size() > fi.Size()+4<<20 {
			break
		}
		if time.Now().After(deadline) {
			imp.Process.Kill()
			t.Fatal("the import did not grow the file within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	imp.Process.Signal(syscall.SIGKILL)
	imp.Wait()
	if now := export(); now != was {
		t.Errorf("a killed import changed the export:\n%.300s\nwas\n%.300s", now, was)
	}
	if out, code := adminStdin(t, db, "", "check"); code != 0 {
		t.Errorf("check after a killed import: exit %d\n%s", code, out)
	}
	hit()
	was = export()

	// A file too small for its staged copy: it fails, and says why.
	small := []string{"COUNTER_DB=" + db, "COUNTER_MAX_DB_SIZE=4MiB"}
	out, code := adminStdinEnv(t, small, "", "import", "-log", log, "www")
	if code == 0 {
		t.Fatalf("import into a 4 MiB file: exit 0\n%s", out)
	}
	t.Logf("import into a 4 MiB file: exit %d: %s", code, bytes.TrimSpace([]byte(out)))
	if now := export(); now != was {
		t.Errorf("a failed import changed the export:\n%.300s\nwas\n%.300s", now, was)
	}
	hit()

	// Run again, it does the whole.
	out, code = adminStdin(t, db, "", "import", "-log", log, "www")
	if code != 0 {
		t.Fatalf("import again: exit %d\n%s", code, out)
	}
	m := importedViews.FindStringSubmatch(out)
	if m == nil || m[1] != "3" { // the three hits
		t.Fatalf("import again: %s", out)
	}
	if got, want := siteViews(t, db), func() uint64 { n, _ := strconv.ParseUint(m[2], 10, 64); return n }(); got != want {
		t.Errorf("%d views after the import, want %d", got, want)
	}
}

var statusLine = regexp.MustCompile(`(?m)^Status: (\d+)`)

// hitStatus is the status of a CGI hit's answer out: its Status line, 200
// for an image without one, -1 when the process failed.
func hitStatus(out []byte, err error) int {
	if err != nil {
		return -1
	}
	if m := statusLine.FindSubmatch(out); m != nil {
		status, _ := strconv.Atoi(string(m[1]))
		return status
	}
	if bytes.Contains(out, []byte("Content-Type: image/png")) {
		return 200
	}
	return -1
}

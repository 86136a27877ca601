package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/counter"
	"hitcounter/store"
)

// The exports of a site with a long history, through the built binary
// (issue 24): what one stranger's export costs in memory must not grow
// with the history, so that the FastCGI service stays up under the systemd
// unit's MemoryMax=128M.

// exportBin runs the big-export tests against another build (a base
// commit's, for a before and after) instead of the tree's:
//
//	go test ./cgi -run BigExport -v -args -export-bin /tmp/base/counter.cgi
var exportBin = flag.String("export-bin", "", "run the big-export tests against this `binary` instead of the tree's")

const (
	// bigPages and bigDays make the 110,000 page-days of issue 24. It
	// had them as 11 days of the 10,000 pages that visitors may make on a
	// site; since a past day keeps the rows of its 200 most viewed pages
	// (schema 5), a site's history that long is 550 days of 200 pages.
	bigPages = store.KeptPagesADay
	bigDays  = 550
	// memoryMax is the systemd unit's MemoryMax (deploy/systemd).
	memoryMax = 128 << 20
	// exportPeak is what one export may take at its peak, well under
	// memoryMax whatever the history.
	exportPeak = 48 << 20
)

// bigPage is the key of page i of the big site: near the longest a page
// key may be, as the pages of a site with dated, long slugs are.
func bigPage(i int) string {
	slug := strings.Repeat("a-rather-long-slug-", (counter.MaxPageLen-20)/19)
	return fmt.Sprintf("/posts/%s%05d", slug, i)
}

// bigSite makes, in a new file at path, the public site "big" with
// bigPages pages of bigDays days each, and the plain counter "demo", in
// two transactions.
func bigSite(tb testing.TB, path string) {
	tb.Helper()
	db, err := store.Open(path, store.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC()
	first := now.AddDate(0, 0, -bigDays)
	site, err := counter.NewSite("big.example")
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.CreateWith("big", 0, first, site); err != nil {
		tb.Fatal(err)
	}
	if err := db.CreateWith("demo", 0, now, counter.DefaultSettings()); err != nil {
		tb.Fatal(err)
	}
	days := make([]counter.PageDay, 0, bigPages*bigDays)
	for d := range bigDays {
		date := first.AddDate(0, 0, d).Format(time.DateOnly)
		for p := range bigPages {
			days = append(days, counter.PageDay{Date: date, Page: bigPage(p), Views: uint64(p%97 + 1), Visitors: uint64(p%13 + 1)})
		}
	}
	if _, err := db.Import([]counter.Imported{{Name: "big", PageDays: days}}, store.ImportOptions{Now: now}); err != nil {
		tb.Fatal(err)
	}
}

// bigExportBinary is the binary the big-export tests run.
func bigExportBinary(t *testing.T) string {
	t.Helper()
	if *exportBin != "" {
		return *exportBin
	}
	return counterBinary(t)
}

// checkWholeExport fails t unless body is the whole export of the big
// site in the format of ext: every page-day, and the end.
func checkWholeExport(t *testing.T, ext string, body []byte) {
	t.Helper()
	switch ext {
	case "csv":
		lines := bytes.Count(body, []byte("\r\n"))
		if want := 1 + bigDays + bigPages*bigDays; lines != want || !bytes.HasSuffix(body, []byte("\r\n")) {
			t.Errorf("stats.csv: %d lines (%d bytes), want %d, ending with a line end", lines, len(body), want)
		}
		last := body[bytes.LastIndex(body[:len(body)-2], []byte("\r\n"))+2:]
		if !bytes.Contains(last, []byte(bigPage(bigPages-1))) {
			t.Errorf("stats.csv: last line %.300q, want the last page's", last)
		}
	case "json":
		var v struct {
			Name     string `json:"name"`
			PageDays []struct {
				Page string `json:"page"`
			} `json:"page_days"`
		}
		if err := json.Unmarshal(body, &v); err != nil {
			t.Errorf("stats.json (%d bytes): %v; it ends %.200q", len(body), err, body[max(0, len(body)-200):])
			return
		}
		if v.Name != "big" || len(v.PageDays) != bigPages*bigDays || v.PageDays[len(v.PageDays)-1].Page != bigPage(bigPages-1) {
			t.Errorf("stats.json: %q with %d page days, want big with %d, the last page's last", v.Name, len(v.PageDays), bigPages*bigDays)
		}
	}
}

// TestBigExport makes a site of 110,000 page-days and fetches both of its
// exports from the built binary, as a CGI process (with its statistics
// page) and from the FastCGI service under the systemd unit's memory
// limit.
func TestBigExport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	bigSite(t, db)
	t.Run("CGI", func(t *testing.T) { bigExportCGI(t, db) })
	t.Run("FastCGI under MemoryMax", func(t *testing.T) { bigExportFastCGI(t, db) })
}

// bigExportCGI fetches both exports of the big site in db, and its page
// of statistics over the default 30 days, which adds up all its
// page-days, from the binary run as CGI: each is whole, and the process's
// peak RSS (wait4's ru_maxrss) stays under exportPeak.
func bigExportCGI(t *testing.T, db string) {
	bin := bigExportBinary(t)
	for _, file := range []string{"stats.csv", "stats.json", "stats"} {
		t.Run(file, func(t *testing.T) {
			start := time.Now()
			out, peak, stderr := runMeasured(t, bin, append(hitEnv(t, db), "PATH_INFO=/big/"+file, "REQUEST_METHOD=GET", "QUERY_STRING="))
			took := time.Since(start)
			ans := parseCGI(t, out)
			if ans.status != 200 {
				t.Fatalf("status %d, want 200; stderr %s", ans.status, stderr)
			}
			if _, ext, ok := strings.Cut(file, "."); ok {
				checkWholeExport(t, ext, ans.body)
			} else if want := fmt.Sprintf("and %d more pages", bigPages-100); !bytes.Contains(ans.body, []byte(want)) {
				t.Errorf("the statistics page does not say %q", want)
			}
			t.Logf("CGI %s: %.1f MB in %v, peak RSS %.1f MB", file, float64(len(ans.body))/1e6, took.Round(time.Millisecond), float64(peak)/(1<<20))
			if peak > exportPeak {
				t.Errorf("peak RSS of the CGI %s: %.1f MB, want at most %d MB", file, float64(peak)/(1<<20), exportPeak>>20)
			}
		})
	}
}

// bigExportFastCGI starts the FastCGI service on db, in a memory cgroup
// of its own limited to memoryMax where the machine allows one, fetches
// both exports of the big site, and hits a counter: the exports are
// whole, the service was never killed and still answers, and its peak RSS
// (VmHWM) stays under exportPeak.
func bigExportFastCGI(t *testing.T, db string) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "fastcgi.sock")
	cmd := exec.Command(bigExportBinary(t), "fastcgi", "-listen", "unix:"+sock)
	cg, err := memoryCgroup(t, memoryMax)
	if err != nil {
		t.Logf("no memory cgroup (%v): only the peak RSS is measured against %d MB", err, memoryMax>>20)
	} else {
		// In the cgroup from its first instruction: the shell moves
		// itself in, then becomes the service.
		cmd = exec.Command("/bin/sh", "-c", `echo $$ > "$1" && exec "$2" fastcgi -listen "unix:$3"`,
			"sh", filepath.Join(cg, "cgroup.procs"), cmd.Path, sock)
	}
	cmd.Env = []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no socket after 10s: %s", stderr.String())
		}
	}
	for _, ext := range []string{"csv", "json"} {
		c, err := fcgitest.Dial(sock)
		if err != nil {
			t.Errorf("stats.%s: %v", ext, err)
			break
		}
		defer c.Conn.Close()
		c.Conn.SetDeadline(time.Now().Add(time.Minute))
		start := time.Now()
		out, status, err := c.Request(1, false, fcgitest.Env("GET", "/big/stats."+ext, ""), nil, 0)
		if err != nil || status != fcgitest.RequestComplete {
			t.Errorf("stats.%s: %v, protocol status %d, after %d bytes", ext, err, status, len(out))
			continue
		}
		ans := fcgitest.MustParse(t, out)
		if ans.Status != 200 {
			t.Errorf("stats.%s: status %d, want 200", ext, ans.Status)
			continue
		}
		checkWholeExport(t, ext, ans.Body)
		t.Logf("FastCGI stats.%s: %.1f MB in %v", ext, float64(len(ans.Body))/1e6, time.Since(start).Round(time.Millisecond))
	}
	select {
	case <-exited:
		t.Fatalf("the service died: %v; oom kills %s; its log: %s", cmd.ProcessState, cgroupValue(cg, "memory.oom_control", "oom_kill"), stderr.String())
	default:
	}
	if status, _, err := fcgiGet(sock, "/demo.png"); err != nil || status != 200 {
		t.Errorf("a hit after the exports: %d, %v; want 200", status, err)
	}
	peak := vmHWM(t, cmd.Process.Pid)
	t.Logf("FastCGI service: peak RSS %.1f MB", float64(peak)/(1<<20))
	if cg != "" {
		t.Logf("its cgroup: limit %d MB, peak use %s bytes (page cache included), %s times at the limit, %s OOM kills",
			memoryMax>>20, cgroupValue(cg, "memory.max_usage_in_bytes", ""), cgroupValue(cg, "memory.failcnt", ""),
			cgroupValue(cg, "memory.oom_control", "oom_kill"))
		if n := cgroupValue(cg, "memory.oom_control", "oom_kill"); n != "0" {
			t.Errorf("OOM kills in the service's cgroup: %s, want 0", n)
		}
	}
	if peak > exportPeak {
		t.Errorf("peak RSS of the FastCGI service: %.1f MB, want at most %d MB", float64(peak)/(1<<20), exportPeak>>20)
	}
}

// runMeasured runs bin with env, as a web server runs a CGI, and returns
// its output, its peak RSS in bytes (underGNUTime) and its stderr.
func runMeasured(t *testing.T, bin string, env []string) (out []byte, peak int64, stderr string) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = env
	var stdout, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errOut
	peakOf := underGNUTime(t, cmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("CGI run: %v; stderr %s", err, errOut.String())
	}
	return stdout.Bytes(), peakOf(), errOut.String()
}

// runMeasuredArgs runs bin with env and args, and returns its combined
// output, its peak RSS in bytes and how it ended.
func runMeasuredArgs(t *testing.T, bin string, env, args []string) (out []byte, peak int64, err error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	peakOf := underGNUTime(t, cmd)
	out, err = cmd.CombinedOutput()
	return out, peakOf(), err
}

// memoryCgroup makes a cgroup v1 memory cgroup limited to limit bytes
// under this process's own, removed when t ends, and returns its
// directory; or says why it cannot.
func memoryCgroup(t *testing.T, limit int64) (string, error) {
	t.Helper()
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var own string
	for line := range strings.Lines(string(self)) {
		if _, rest, ok := strings.Cut(line, ":memory:"); ok {
			own = strings.TrimSpace(rest)
		}
	}
	if own == "" {
		return "", errors.New("no cgroup v1 memory controller in /proc/self/cgroup")
	}
	dir, err := os.MkdirTemp(filepath.Join("/sys/fs/cgroup/memory", own), "counter-test-")
	if err != nil {
		return "", err
	}
	t.Cleanup(func() {
		// Empty once the service has been killed and reaped.
		for deadline := time.Now().Add(5 * time.Second); os.Remove(dir) != nil && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	})
	for _, f := range []string{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"} {
		err := os.WriteFile(filepath.Join(dir, f), []byte(strconv.FormatInt(limit, 10)), 0)
		if err != nil && !(f == "memory.memsw.limit_in_bytes" && errors.Is(err, os.ErrNotExist)) {
			return "", err
		}
	}
	return dir, nil
}

// cgroupValue reads a cgroup file, or with key the value on its line
// "key value"; "?" when it cannot.
func cgroupValue(dir, file, key string) string {
	if dir == "" {
		return "?"
	}
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return "?"
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); key == "" || ok && k == key {
			if key == "" {
				return strings.TrimSpace(line)
			}
			return v
		}
	}
	return "?"
}

// vmHWM is the peak RSS of process pid, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// Command bytesbench measures what a counted view writes to the database
// file: the bytes of every pwrite64 to it and its fdatasyncs, seen by
// strace (-y names each descriptor's file, --seccomp-bpf stops the process
// on those calls alone). It runs two builds side by side, on copies of the
// same files: as CGI, one process per view, one visitor at a time; and as
// FastCGI, one process on a listening socket as stdin (as lighttpd starts
// it), loaded by 1 and 16 clients for a while, each request a new
// visitor's. deploy/bench/bench-bytes.sh builds everything and runs it.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// build is one binary, and the files its scenarios run on.
type build struct {
	label, bin string
}

// scenario is a counted view on one file: the counter and the Referer.
type scenario struct {
	label   string
	db      string // the file to copy (made by setup when "")
	name    string // the counter
	referer string
	setup   []string // admin command making a fresh file
	// seen are counters given a view each before the measure: the day's
	// other visitors.
	seen []string
}

func main() {
	newBin := flag.String("new", "", "counter binary")
	oldBin := flag.String("before", "", "counter binary to compare with")
	oldLabel := flag.String("before-label", "before", "label of -before")
	newLabel := flag.String("new-label", "new", "label of -new")
	year := flag.String("year-db", "", "year-old database (deploy/bench/bytesgen) both binaries read")
	dir := flag.String("dir", "", "scratch directory")
	n := flag.Int("n", 20, "CGI views measured per binary and file")
	dur := flag.Duration("duration", 5*time.Second, "FastCGI load per binary, file and number of clients")
	flag.Parse()
	if *newBin == "" || *oldBin == "" || *year == "" || *dir == "" {
		flag.Usage()
		os.Exit(2)
	}
	builds := []build{{*oldLabel, *oldBin}, {*newLabel, *newBin}}
	const ref = "https://www.example.org/posts/001.html"
	scenarios := []scenario{
		{label: "fresh file, plain counter", name: "bench", referer: ref, setup: []string{"create", "bench"}},
		{label: "fresh file, a site's page", name: "bench", referer: ref, setup: []string{"create", "bench", "-site", "-hosts", "www.example.org"}},
		{label: "year-old file, 200 counters", db: *year, name: "c100", referer: ref},
		{label: "year-old file, a site's page", db: *year, name: "site", referer: ref},
		{label: "year-old, all 200 seen today", db: *year, name: "c100", referer: ref, seen: all200()},
	}
	if err := runAll(builds, scenarios, *dir, *n, *dur); err != nil {
		fmt.Fprintln(os.Stderr, "bytesbench:", err)
		os.Exit(1)
	}
}

func runAll(builds []build, scenarios []scenario, dir string, n int, dur time.Duration) error {
	fmt.Printf("CGI: one process per counted view, one visitor at a time; median (max) of %d views\n", n)
	fmt.Printf("%-30s %-12s %18s %12s\n", "file", "binary", "bytes per view", "fdatasyncs")
	type key struct{ s, b int }
	files := map[key]string{}
	for si, s := range scenarios {
		for bi, b := range builds {
			path, err := prepare(b, s, filepath.Join(dir, fmt.Sprintf("s%d-b%d", si, bi)))
			if err != nil {
				return err
			}
			files[key{si, bi}] = path
			var sizes, syncs []int64
			for i := range n {
				w, err := traced(b.bin, nil, cgiEnv(path, s, fmt.Sprintf("10.%d.%d.%d", bi, si, i)), path, "")
				if err != nil {
					return fmt.Errorf("%s, %s: %w", s.label, b.label, err)
				}
				if w.bytes == 0 {
					return fmt.Errorf("%s, %s: a view wrote nothing: not counted", s.label, b.label)
				}
				sizes, syncs = append(sizes, w.bytes), append(syncs, w.syncs)
			}
			fmt.Printf("%-30s %-12s %10d (%5d) %6d (%2d)\n", s.label, b.label, median(sizes), slices.Max(sizes), median(syncs), slices.Max(syncs))
		}
	}
	fmt.Printf("\nFastCGI: one process, each request a new visitor's, %s a run; hits/s with strace attached\n", dur)
	fmt.Printf("%-30s %-12s %8s %10s %15s %15s\n", "file", "binary", "clients", "hits/s", "bytes per hit", "fdatasyncs/hit")
	for si, s := range scenarios {
		for _, clients := range []int{1, 16} {
			for bi, b := range builds {
				r, err := loadFastCGI(b, s, files[key{si, bi}], dir, clients, dur, fmt.Sprintf("%d", 100+10*bi+clients))
				if err != nil {
					return fmt.Errorf("%s, %s, FastCGI: %w", s.label, b.label, err)
				}
				fmt.Printf("%-30s %-12s %8d %10.0f %15.0f %15.2f\n", s.label, b.label, clients, float64(r.hits)/dur.Seconds(),
					float64(r.w.bytes)/float64(max(r.hits, 1)), float64(r.w.syncs)/float64(max(r.hits, 1)))
			}
		}
	}
	return nil
}

// prepare makes the file of scenario s for build b in dir, and counts two
// views on it first (the first write of a build migrates an older file,
// and the first of the day starts or folds the day), and one on each of
// s.seen.
func prepare(b build, s scenario, dir string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "counter.db")
	if s.db != "" {
		if err := copyFile(s.db, path); err != nil {
			return "", err
		}
	} else {
		cmd := exec.Command(b.bin, append(s.setup, "-db", path)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s %v: %w: %s", b.label, s.setup, err, out)
		}
	}
	names := append([]string{s.name, s.name}, s.seen...)
	for i, name := range names {
		v := s
		v.name = name
		cmd := exec.Command(b.bin)
		cmd.Env = cgiEnv(path, v, fmt.Sprintf("10.200.%d.%d", i>>8, i&255))
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte("Content-Type: image/")) {
			return "", fmt.Errorf("%s, %s: a first view: %v: %.200q", s.label, b.label, err, out)
		}
	}
	return path, nil
}

// all200 are the year-old file's plain counters.
func all200() []string {
	var names []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("c%03d", i))
	}
	return names
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}

const browserUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// cgiEnv is a browser's view of s's counter from addr, as a web server
// passes it, with the defaults as shipped (the cost meter on).
func cgiEnv(db string, s scenario, addr string) []string {
	path := "/" + s.name + ".png"
	return []string{
		"GATEWAY_INTERFACE=CGI/1.1", "SERVER_PROTOCOL=HTTP/1.1", "REQUEST_METHOD=GET",
		"SERVER_NAME=127.0.0.1", "SERVER_PORT=80", "REMOTE_ADDR=" + addr, "HTTP_HOST=127.0.0.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=" + path, "QUERY_STRING=",
		"REQUEST_URI=/cgi-bin/counter.cgi" + path, "COUNTER_DB=" + db,
		"COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"),
		"HTTP_USER_AGENT=" + browserUA, "HTTP_REFERER=" + s.referer,
		"HTTP_ACCEPT=image/avif,image/webp,image/png,image/*;q=0.8,*/*;q=0.5",
	}
}

// written is what a traced process wrote to the database file.
type written struct {
	bytes, syncs int64
}

var (
	pwriteLine = regexp.MustCompile(`pwrite64\(\d+<([^>]*)>, .*\) = (\d+)`)
	syncLine   = regexp.MustCompile(`f(?:data)?sync\(\d+<([^>]*)>\) = 0`)
)

// traced runs bin under strace with env (and stdin, when not nil) and
// returns what it wrote to db; out is the trace file ("" for a temp one).
func traced(bin string, stdin *os.File, env []string, db, out string) (written, error) {
	cmd, trace, err := tracedCmd(bin, stdin, env, out)
	if err != nil {
		return written{}, err
	}
	defer os.Remove(trace)
	var o bytes.Buffer
	cmd.Stdout = &o
	if err := cmd.Run(); err != nil {
		return written{}, err
	}
	if !bytes.Contains(o.Bytes(), []byte("Content-Type: image/")) {
		return written{}, fmt.Errorf("not an image: %.200q", o.Bytes())
	}
	return readTrace(trace, db)
}

func tracedCmd(bin string, stdin *os.File, env []string, out string) (*exec.Cmd, string, error) {
	if out == "" {
		f, err := os.CreateTemp("", "bytesbench-trace")
		if err != nil {
			return nil, "", err
		}
		f.Close()
		out = f.Name()
	}
	cmd := exec.Command("strace", "-f", "--seccomp-bpf", "-qq", "-y", "-s", "0",
		"-e", "trace=pwrite64,fdatasync,fsync", "-o", out, "--", bin)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = stdin
	}
	return cmd, out, nil
}

// readTrace adds up the writes and syncs to db in a trace.
func readTrace(trace, db string) (written, error) {
	f, err := os.Open(trace)
	if err != nil {
		return written{}, err
	}
	defer f.Close()
	var w written
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := pwriteLine.FindStringSubmatch(line); m != nil && m[1] == db {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			w.bytes += n
		} else if m := syncLine.FindStringSubmatch(line); m != nil && m[1] == db {
			w.syncs++
		}
	}
	return w, sc.Err()
}

func median(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

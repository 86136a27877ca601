package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/testenv"
	"hitcounter/store"
)

// TestFastCGIStuckHolder holds the side lock from another process for a
// minute (5 s with -short), as an admin command or a CGI hit stuck in
// fsync on a failing card would, while 16 clients send hits, JSON and
// stats requests to the built binary as FastCGI as fast as it answers.
// Every request is answered within the wait, with a 503 (an image for an
// image); the process's threads, open files and memory stay within fixed
// bounds the whole time; and once the holder lets go, hits count again.
//
// Before the readers and the batcher shared a bounded set of blocked
// flocks (store.LockWaits), each request that gave up left a thread and a
// file behind, and the process died at the runtime's limit of 10,000
// threads.
func TestFastCGIStuckHolder(t *testing.T) {
	const (
		wait    = 50 * time.Millisecond
		slack   = time.Second // a loaded 2-core machine
		clients = 16
		// Fixed bounds over the process with the lock free, whatever the
		// number of requests: the blocked flocks and the runtime's own
		// threads, a connection, a side file and a little more a client.
		lockWaits   = 4 // the flocks a process may leave blocked, as documented
		moreThreads = lockWaits + 12
		moreFiles   = lockWaits + 3*clients
		moreRSS     = 24 << 20
	)
	hold := time.Minute
	if testing.Short() {
		hold = 5 * time.Second
	}
	db := filepath.Join(t.TempDir(), "counter.db")
	if out, err := adminRun(t, db, "create", "demo", "reload=off"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	sock, cmd, stderr := startFastCGIBinary(t, db, "COUNTER_WAIT="+wait.String())
	pid := cmd.Process.Pid

	// Each kind, and what it answers while the lock is held.
	kinds := []struct {
		path, contentType string
	}{
		{"/demo.png", "image/png"},
		{"/demo.json", "application/json"},
		{"/demo/stats", "text/plain"},
	}
	// load sends requests from every client until stop is closed, and
	// returns how many were answered, by status, and the slowest. Each
	// must answer with status want, or, if want is 0, 200 or 503: with
	// the lock free, a 50 ms wait can still time out behind a commit on a
	// loaded machine.
	load := func(stop <-chan struct{}, want int) (answered map[int]int, slowest time.Duration) {
		var (
			mu sync.Mutex
			wg sync.WaitGroup
		)
		answered = map[int]int{}
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := c; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					k := kinds[i%len(kinds)]
					start := time.Now()
					status, header, err := fcgiGet(sock, k.path)
					took := time.Since(start)
					mu.Lock()
					answered[status]++
					slowest = max(slowest, took)
					mu.Unlock()
					switch {
					case err != nil:
						t.Errorf("%s: unanswered: %v", k.path, err)
						return
					case status != want && (want != 0 || status != 200 && status != 503):
						t.Errorf("%s: status %d, want %d", k.path, status, want)
						return
					case status == 503 && !strings.Contains(header, "Content-Type: "+k.contentType):
						t.Errorf("%s: answer %q, want a %s", k.path, header, k.contentType)
						return
					}
				}
			}()
		}
		wg.Wait()
		return answered, slowest
	}

	warm := make(chan struct{})
	time.AfterFunc(2*time.Second, func() { close(warm) })
	load(warm, 0)
	base := sampleProcess(t, pid)
	hitsBefore := countIn(t, db)
	t.Logf("lock free: %v", base)

	holder := holdLockElsewhere(t, store.LockPath(db))
	stop := make(chan struct{})
	var peak processSample
	var sampling sync.WaitGroup
	sampling.Add(1)
	go func() {
		defer sampling.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		start := time.Now()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			s := sampleProcess(t, pid)
			peak = peak.max(s)
			if n%50 == 0 {
				t.Logf("held %2.0fs: %v", time.Since(start).Seconds(), s)
			}
		}
	}()
	time.AfterFunc(hold, func() { close(stop) })
	answered, slowest := load(stop, 503)
	sampling.Wait()
	holder()

	total := 0
	for _, n := range answered {
		total += n
	}
	t.Logf("held %v: %d requests answered %v, slowest %v; peak %v", hold, total, answered, slowest.Round(time.Millisecond), peak)
	if slowest > wait+slack {
		t.Errorf("slowest answer took %v; the wait is %v", slowest, wait)
	}
	if peak.threads > base.threads+moreThreads {
		t.Errorf("threads reached %d from %d, over the bound of %d more", peak.threads, base.threads, moreThreads)
	}
	if peak.files > base.files+moreFiles {
		t.Errorf("open files reached %d from %d, over the bound of %d more", peak.files, base.files, moreFiles)
	}
	if peak.rss > base.rss+moreRSS {
		t.Errorf("RSS reached %d kB from %d kB, over the bound of %d kB more", peak.rss>>10, base.rss>>10, moreRSS>>10)
	}

	// Once the holder lets go, the next hits count.
	const after = 50
	if n := fcgiHits(t, sock, after, 4); n != after {
		t.Errorf("%d of %d hits answered 200 after the holder let go", n, after)
	}
	if got := countIn(t, db); got != hitsBefore+after {
		t.Errorf("count %d after the holder let go, want %d + %d", got, hitsBefore, after)
	}
	if t.Failed() {
		t.Logf("server's log: %.2000s", stderr)
	}
}

// fcgiGet sends one GET over a new connection and returns the answer's
// status and headers.
func fcgiGet(sock, path string) (status int, header string, err error) {
	c, err := fcgitest.Dial(sock)
	if err != nil {
		return 0, "", err
	}
	defer c.Conn.Close()
	out, _, err := c.Request(1, false, fcgitest.Env("GET", path, ""), nil, 0)
	if err != nil {
		return 0, "", err
	}
	header, _, _ = strings.Cut(string(out), "\r\n\r\n")
	code, _, _ := strings.Cut(strings.TrimPrefix(header, "Status: "), " ")
	status, err = strconv.Atoi(code)
	if err != nil {
		return 0, header, fmt.Errorf("no status in %.80q", out)
	}
	return status, header, nil
}

// holdLockElsewhere takes an exclusive flock on path in another process,
// util-linux's flock(1), and returns the function that lets it go.
func holdLockElsewhere(t *testing.T, path string) (release func()) {
	t.Helper()
	cmd := exec.Command("flock", "--exclusive", path, "cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("flock(1): %v", err)
	}
	// Held once a try of our own is refused.
	for deadline := time.Now().Add(10 * time.Second); ; {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err == nil {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
			f.Close()
			if err == syscall.EWOULDBLOCK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("flock(1) never took %s: %s", path, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	release = sync.OnceFunc(func() {
		in.Close() // cat ends, and flock with it
		if err := cmd.Wait(); err != nil {
			t.Errorf("flock(1): %v %s", err, out.String())
		}
	})
	t.Cleanup(release)
	return release
}

// processSample is what a process holds at one moment.
type processSample struct {
	threads, files int
	rss            int64 // bytes
}

func (s processSample) String() string {
	return fmt.Sprintf("%d threads, %d open files, RSS %.1f MB", s.threads, s.files, float64(s.rss)/(1<<20))
}

func (s processSample) max(o processSample) processSample {
	return processSample{max(s.threads, o.threads), max(s.files, o.files), max(s.rss, o.rss)}
}

// sampleProcess reads a process's threads, open files (sockets among
// them) and RSS from /proc.
func sampleProcess(t *testing.T, pid int) processSample {
	t.Helper()
	p, err := testenv.ReadProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	return processSample{threads: p.Threads, files: p.Files + p.Sockets, rss: p.RSS}
}

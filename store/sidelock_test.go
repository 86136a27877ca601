//go:build !bboltlockonly

package store

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestLockWaitsBoundBlockedFlocks holds the side lock as a stuck process
// would while 16 goroutines of this process open the file 400 times, each
// giving up after a short wait, as a FastCGI process's readers and batcher
// do. Every open fails with ErrTimeout within its wait, the threads and
// files they leave behind stay within the bound, and once the holder lets
// go the file opens again and every file descriptor is given back.
func TestLockWaitsBoundBlockedFlocks(t *testing.T) {
	needFile(t)
	const (
		bound   = 4
		workers = 16
		opens   = 400
		wait    = 5 * time.Millisecond
	)
	path := newDB(t, "a")
	holder := holdSideLock(t, path)
	threads0, files0 := threadsAndFiles(t)
	waits := NewLockWaits(bound)
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		peakT, peakF int
		slowest      time.Duration
		next         = make(chan int, opens)
		unexpected   []error
	)
	for i := range opens {
		next <- i
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				_, err := testOpen(path, Options{ReadOnly: i%3 != 0, Wait: wait, Waits: waits})
				took := time.Since(start)
				th, f := threadsAndFiles(t)
				mu.Lock()
				if !errors.Is(err, ErrTimeout) {
					unexpected = append(unexpected, err)
				}
				peakT, peakF, slowest = max(peakT, th), max(peakF, f), max(slowest, took)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range unexpected {
		t.Errorf("Open while held = %v, want ErrTimeout", err)
	}
	// The runtime starts a few threads of its own for 16 goroutines; what
	// must not happen is a thread and a file per open that gave up.
	if grew := peakT - threads0; grew > bound+workers {
		t.Errorf("threads grew by %d over %d opens; want at most %d blocked flocks and the runtime's own", grew, opens, bound)
	}
	if grew := peakF - files0; grew > bound+workers+4 { // and the runtime's own

		t.Errorf("open files grew by %d over %d opens; want at most %d blocked and %d in hand", grew, opens, bound, workers)
	}
	if slowest > wait+time.Second {
		t.Errorf("slowest open gave up after %v, the wait is %v", slowest, wait)
	}
	t.Logf("%d opens while held: threads %d -> at most %d, files %d -> at most %d, slowest %v",
		opens, threads0, peakT, files0, peakF, slowest.Round(time.Millisecond))

	holder.Close()
	db, err := testOpen(path, Options{Wait: 2 * time.Second, Waits: waits})
	if err != nil {
		t.Fatalf("Open after the holder let go: %v", err)
	}
	db.Close()
	// The flocks left blocked take the lock in turn and give it back.
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, files := threadsAndFiles(t)
		if files <= files0-1 { // the holder's file is closed too
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d files open 5 s after the holder let go, want %d", files, files0-1)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLockWaitsLetGoWithTheHolder: with every slot held by a flock blocked
// on a stuck holder, an open still answers within its own wait, and
// opens as soon as the holder lets go.
func TestLockWaitsLetGoWithTheHolder(t *testing.T) {
	needFile(t)
	path := newDB(t, "a")
	holder := holdSideLock(t, path)
	waits := NewLockWaits(1)
	if _, err := testOpen(path, Options{Wait: 10 * time.Millisecond, Waits: waits}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Open while held = %v, want ErrTimeout", err)
	}
	got := make(chan error, 1)
	go func() {
		db, err := testOpen(path, Options{Wait: 5 * time.Second, Waits: waits})
		if err == nil {
			db.Close()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	holder.Close()
	if err := <-got; err != nil {
		t.Fatalf("Open waiting for the slot = %v, want it to open once the holder let go", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("opened %v after the holder let go", took)
	}
}

// holdSideLock takes the side lock of the database at path as another
// process would: flock locks belong to an open file, so a second open in
// this process is refused like any other.
func holdSideLock(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(LockPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// threadsAndFiles counts this process's OS threads and open files.
func threadsAndFiles(t *testing.T) (threads, files int) {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			threads, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return threads, len(fds)
}

// TestWriterNotStarvedByReaders keeps readers on the file at all times,
// four at once, each holding it 40 ms and each coming back at once, as a
// stream of a stranger's requests would: a writer that comes gets in once
// the readers already in are done, every time. flock alone lets a new
// reader in while any reader holds the lock, so that the writer waited its
// whole wait and failed.
func TestWriterNotStarvedByReaders(t *testing.T) {
	needFile(t)
	const (
		readers = 4
		hold    = 40 * time.Millisecond
		writes  = 5
		wait    = 2 * time.Second
		within  = 10 * hold // the readers in, and a loaded machine
	)
	path := newDB(t, "a")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads atomic.Int64
	for i := range readers {
		wg.Go(func() {
			// Staggered, so that the holds overlap and the lock is never
			// free.
			time.Sleep(time.Duration(i) * hold / readers)
			for {
				select {
				case <-stop:
					return
				default:
				}
				db, err := testOpen(path, Options{ReadOnly: true, Wait: 10 * wait})
				if err != nil {
					t.Errorf("reader: %v", err)
					return
				}
				time.Sleep(hold)
				db.Close()
				reads.Add(1)
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	time.Sleep(2 * hold)
	for i := range writes {
		start := time.Now()
		db, err := testOpen(path, Options{Wait: wait})
		took := time.Since(start)
		if err != nil {
			t.Fatalf("write %d: %v after %v, with readers coming all the time", i, err, took.Round(time.Millisecond))
		}
		db.Close()
		if took > within {
			t.Errorf("write %d got in after %v, want within %v (readers hold the file %v each)", i, took.Round(time.Millisecond), within, hold)
		}
		t.Logf("write %d got in after %v", i, took.Round(time.Millisecond))
		time.Sleep(hold)
	}
	if reads.Load() < writes {
		t.Errorf("%d reads while %d writes came", reads.Load(), writes)
	}
}

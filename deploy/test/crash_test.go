package test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCrashLoop kills hitting processes with SIGKILL at random moments,
// 200 times, four at once, against one database, as a power cut or the
// OOM killer would (a kill cannot lose what the kernel has, so this tests
// bbolt's and the counter's own ordering, not the card). Afterwards the
// file opens, check (bbolt's page check and the schema) passes, and the
// count is at least the hits whose answer was complete, and at most those
// plus the ones killed in flight.
func TestCrashLoop(t *testing.T) {
	const kills, workers = 200, 4
	cgiDir, db := installCounter(t)
	admin(t, cgiDir, db, "create", "demo", "reload=off") // one client, every hit counts
	bin := filepath.Join(cgiDir, "counter.cgi")
	env := []string{
		"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=GET", "SERVER_PROTOCOL=HTTP/1.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=/demo.png", "REQUEST_URI=/cgi-bin/counter.cgi/demo.png",
		"HTTP_HOST=127.0.0.1", "REMOTE_ADDR=127.0.0.1", "HTTP_USER_AGENT=" + firefoxUA,
		"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"), "COUNTER_WAIT=10s",
	}
	hit := func(killAfter time.Duration) (complete, killed bool) {
		cmd := exec.Command(bin)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Sleep, kill, then wait, rather than a timer that fires while this
		// goroutine waits: a goroutine blocked in wait keeps its thread's
		// P, and with every P so held the runtime ran timers late, so the
		// kills landed after the hits had ended (3 kills in 805 runs).
		// A process that ended first is a zombie until waited for, and
		// killing a zombie changes nothing.
		if killAfter >= 0 {
			time.Sleep(killAfter)
			cmd.Process.Signal(syscall.SIGKILL)
		}
		err := cmd.Wait()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL
		complete = completeImage(out.Bytes())
		if !killed && (err != nil || !complete) {
			t.Errorf("a hit that was not killed: %v, answer %.100q", err, out.Bytes())
		}
		return complete, killed
	}
	// Kill times are drawn from [0, window). The window starts at twice a
	// lone hit and then follows what happens: it shrinks when a process
	// ended before its kill and grows when the kill landed, so that about
	// half the processes die, at every stage of a hit (starting, waiting
	// for the lock, committing, after answering). A figure taken once, at
	// the start, is at the mercy of whatever else the machine did then.
	var took []time.Duration
	for range 5 {
		start := time.Now()
		hit(-1)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	window := 2 * took[len(took)/2]
	completed := len(took)

	var (
		mu                               sync.Mutex
		killed, killedAfterAnswer, tries int
		wg                               sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			for {
				mu.Lock()
				done := killed >= kills || tries > 4*kills
				tries++
				killAfter := time.Duration(r.Int64N(int64(window)))
				mu.Unlock()
				if done {
					return
				}
				complete, wasKilled := hit(killAfter)
				mu.Lock()
				if complete {
					completed++
				}
				if wasKilled {
					killed++
					if complete {
						killedAfterAnswer++
					}
					window = window * 11 / 10
				} else {
					window = window * 9 / 10
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if killed < kills {
		t.Fatalf("only %d of %d processes were killed before they ended; kill times up to %v", killed, tries, window)
	}
	out := admin(t, cgiDir, db, "check")
	m := regexp.MustCompile(`(\d+) view\(s\) in all`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("check: %s", out)
	}
	count, _ := strconv.Atoi(m[1])
	inFlight := killed - killedAfterAnswer
	if count < completed || count > completed+inFlight {
		t.Errorf("count %d; %d answers were complete and %d killed in flight: want %d to %d", count, completed, inFlight, completed, completed+inFlight)
	}
	if n := jsonCountOf(t, bin, env); n != count {
		t.Errorf("a hit reads %d, check %d", n, count)
	}
	t.Logf("crash loop: %d kills in %d runs (kill times up to %v); %d complete answers (%d from processes killed after answering), %d killed in flight; final count %d, check passes",
		killed, tries, window.Round(time.Millisecond), completed, killedAfterAnswer, inFlight, count)
}

// completeImage reports whether out is a whole CGI answer of status 200
// with as many body bytes as its Content-Length says.
func completeImage(out []byte) bool {
	head, body, ok := bytes.Cut(out, []byte("\r\n\r\n"))
	if !ok || !bytes.HasPrefix(head, []byte("Status: 200 ")) {
		return false
	}
	m := regexp.MustCompile(`(?m)^Content-Length: (\d+)\r?$`).FindSubmatch(head)
	if m == nil {
		return false
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n == len(body)
}

// jsonCountOf reads demo's count through the binary, counting nothing.
func jsonCountOf(t *testing.T, bin string, env []string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(slices.Clone(env), "PATH_INFO=/demo.json")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := bytes.Cut(out, []byte("\r\n\r\n"))
	var n int
	if _, err := fmt.Sscanf(string(body), `{"name":"demo","count":%d,`, &n); err != nil {
		t.Fatalf("count: %q", body)
	}
	return n
}

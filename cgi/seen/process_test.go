package seen

import (
	"fmt"
	"hitcounter/cgi/rundir"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// childEnv, when set, makes this test binary a child of
// TestConcurrentProcesses (see TestMain), in the directory it names.
const childEnv = "SEEN_TEST_CHILD_DIR"

const (
	childVisitors = 200
	childRounds   = 20
)

// TestMain runs the test binary as a child of TestConcurrentProcesses
// when childEnv says so, and as the tests otherwise.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		if err := child(dir); err != nil {
			fmt.Println("child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child sees every visitor childRounds times in dir, as one process of
// TestConcurrentProcesses, and prints what it got.
func child(dir string) error {
	seed, _ := strconv.Atoi(os.Getenv(childEnv + "_SEED"))
	// Start together, so that the children's hits overlap.
	start, _ := strconv.ParseInt(os.Getenv(childEnv+"_START"), 10, 64)
	time.Sleep(time.Until(time.UnixMilli(start)))
	// A fresh Table for each hit, as a CGI process has, and one kept, as
	// a FastCGI process has, by turns.
	kept := Open(rundir.New(dir, "", nil))
	defer kept.Close()
	var news, reloads, views int
	for r := range childRounds {
		for i := range childVisitors {
			n := (i*7 + seed*31 + r) % childVisitors
			v := Visit{Counter: "blog", Addr: "198.51.100." + strconv.Itoa(n), UserAgent: "Firefox", Now: at(12, 0), Window: time.Hour}
			tab := kept
			if i%2 == 1 {
				tab = Open(rundir.New(dir, "", nil))
			}
			got, err := tab.See(v)
			if tab != kept {
				tab.Close()
			}
			if err != nil {
				return err
			}
			switch {
			case got.Reload:
				reloads++
			case got.NewToday:
				news++
			default:
				views++
			}
		}
	}
	fmt.Printf("result %d %d %d\n", news, reloads, views)
	return nil
}

// Processes at once, as CGI starts them, agree on who is new: each of a
// known set of visitors is new exactly once, and every other hit is a
// reload.
func TestConcurrentProcesses(t *testing.T) {
	const procs = 4
	dir := t.TempDir()
	start := time.Now().Add(500 * time.Millisecond).UnixMilli()
	var wg sync.WaitGroup
	outs := make([]string, procs)
	errs := make([]error, procs)
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"="+dir, childEnv+"_SEED="+strconv.Itoa(p),
				childEnv+"_START="+strconv.FormatInt(start, 10))
			out, err := cmd.CombinedOutput()
			outs[p], errs[p] = string(out), err
		})
	}
	wg.Wait()
	var news, reloads, views int
	for p := range procs {
		if errs[p] != nil {
			t.Fatalf("child %d: %v\n%s", p, errs[p], outs[p])
		}
		var n, r, v int
		i := strings.Index(outs[p], "result ")
		if i < 0 {
			t.Fatalf("child %d printed no result:\n%s", p, outs[p])
		}
		if _, err := fmt.Sscanf(outs[p][i:], "result %d %d %d", &n, &r, &v); err != nil {
			t.Fatalf("child %d: %v\n%s", p, err, outs[p])
		}
		news, reloads, views = news+n, reloads+r, views+v
	}
	want := procs*childRounds*childVisitors - childVisitors
	if news != childVisitors || reloads != want || views != 0 {
		t.Errorf("new %d, reloads %d, other views %d; want %d, %d, 0", news, reloads, views, childVisitors, want)
	}
}

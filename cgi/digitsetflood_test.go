package main

import (
	"bytes"
	"fmt"
	"image"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/cgi/testenv"
	"hitcounter/counter/digitset"
)

// The digit set flood: a stranger asks, over and over from several loops,
// for a GIF of the largest digit set the bounds allow, without counting
// (count=0), while real visitors are counted on another counter. Digit set
// names are on public statistics pages; nothing else is needed.
const (
	// floodLoops is the FastCGI flood's clients, and the CGI flood's
	// loops are cgiFloodLoops: a CGI process spends part of its life
	// starting and exiting, outside the lock, so that it takes more
	// loops to keep a reader on the file at all times before the fix.
	floodLoops    = 8
	cgiFloodLoops = 16
	floodFor      = 8 * time.Second
	// viewEvery spaces the counted views. Each must be answered 200 with
	// the lock's wait set to viewWait (COUNTER_WAIT): a view that waited
	// for the file longer than that is refused with 503 by the binary's
	// own clock, whatever this machine's load. viewWithin bounds the
	// whole answer: a CGI process on a loaded 2-core machine takes most
	// of a second to start and answer at times even when the flood holds
	// no lock (a count=0 flood in the font, measured beside this test).
	viewEvery  = 100 * time.Millisecond
	viewWait   = time.Second
	viewWithin = 2 * viewWait
)

// floodSet is a set the flood asks for: ten digits of frames frames of
// width x height pixels, drawn at the count start, each digit a
// different one.
type floodSet struct {
	name                  string
	width, height, frames int
	start                 string
}

// query is the flood's request: the whole count without counting.
func (fs floodSet) query() string {
	return "theme=big&count=0&smooth=1&digits=" + strconv.Itoa(len(fs.start))
}

// floodSets are the flood's sets:
//   - real: the shape of the largest set real counters ship (Moe-Counter's
//     yousa-ling at 8abee4d, deploy/bench/realsets: ten still digits of
//     200x300, 1600x300 at 8 digits), drawn at 8 digits, as many as fit;
//   - bounds: the most a request can make the server read and draw: ten
//     digits MaxSide px high and as wide as lets ten of them fit in the
//     largest drawing (digitset.MaxDrawPixels), each with as many frames
//     as digitset.MaxPixels lets them have, and a count of ten digits,
//     each a different one.
const boundsWidth = digitset.MaxDrawPixels / (10 * digitset.MaxSide)

var floodSets = []floodSet{
	{"real", 200, 300, 1, "12345678"},
	{"bounds", boundsWidth, digitset.MaxSide, digitset.MaxPixels / (10 * boundsWidth * digitset.MaxSide), "1234567890"},
}

// bigGIFFolder writes the flood's set as a folder of 0.gif..9.gif, each
// frame of each digit a colour of its own, and returns it.
func bigGIFFolder(t *testing.T, fs floodSet) string {
	return gifFolderOf(t, func(int) int { return fs.frames }, func(i, k int) *image.Paletted {
		return filled(fs.width, fs.height, setColour(i, k))
	})
}

// setFloodWorld makes a database with counter demo, where every view
// counts, counter flood, whose count has every digit once, and the
// flood's set fs, named big.
func setFloodWorld(t *testing.T, fs floodSet) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "demo", "reload=off")
	mustAdmin(t, db, "create", "flood", fs.start)
	out := mustAdmin(t, db, "theme", "add", "big", bigGIFFolder(t, fs))
	t.Logf("theme add: %s", bytes.TrimSpace([]byte(out)))
	return db
}

// floodAnswer says whether status answers an image in a digit set of the flood:
// drawn, or refused as busy when it waited for the file or for its turn
// to draw past its wait. A stranger's image may wait; a count may not.
func floodAnswer(status int) bool { return status == 200 || status == 503 }

// viewTimes are the counted views' answers: their statuses and times.
type viewTimes struct {
	took   []time.Duration
	failed []string
}

// countViews makes a counted view with view every viewEvery while the
// flood lasts, and returns what each was answered. It stops early after
// a few failures: on a file the flood keeps locked, each waits the whole
// wait.
func countViews(flooded *atomic.Int64, loops int, view func() (status int, err error)) viewTimes {
	var v viewTimes
	// The flood first fills the file's lock.
	for deadline := time.Now().Add(5 * time.Second); flooded.Load() < int64(loops) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	end := time.Now().Add(floodFor)
	for time.Now().Before(end) && len(v.failed) < 5 {
		start := time.Now()
		status, err := view()
		took := time.Since(start)
		v.took = append(v.took, took)
		switch {
		case err != nil:
			v.failed = append(v.failed, fmt.Sprintf("view %d: %v after %v", len(v.took), err, took.Round(time.Millisecond)))
		case status != 200 || took > viewWithin:
			v.failed = append(v.failed, fmt.Sprintf("view %d: %d after %v, want 200 within %v", len(v.took), status, took.Round(time.Millisecond), viewWithin))
		}
		time.Sleep(viewEvery)
	}
	return v
}

// check fails unless every view was answered 200 within viewWithin, and
// counted: demo's count is the number of views.
func (v viewTimes) check(t *testing.T, db string, floods int64, loops int) {
	t.Helper()
	for _, f := range v.failed {
		t.Errorf("counted view during the digit set flood, the lock's wait %v: %s", viewWait, f)
	}
	if len(v.took) < 5 {
		t.Errorf("%d counted views made in %v", len(v.took), floodFor)
	}
	if got, want := countIn(t, db), uint64(len(v.took)-len(v.failed)); len(v.failed) == 0 && got != want {
		t.Errorf("demo counted %d, want %d views", got, want)
	}
	sorted := append([]time.Duration(nil), v.took...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	if len(sorted) > 0 {
		t.Logf("%d GIFs in a digit set (%d loops), %d counted views: median %v, slowest %v", floods, loops, len(sorted),
			sorted[len(sorted)/2].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond))
	}
}

// TestDigitSetFloodCGI: 16 loops of CGI processes (the hit binary, as
// counter.cgi is installed) ask for the largest set's GIF with count=0
// while a visitor is counted every 100 ms: every counted view gets the
// file within a second (its wait) and is answered 200, and counted. When
// a set was drawn within the read transaction, the flood's readers held
// the file's lock at all times: every counted view waited the whole wait
// and got 503.
func TestDigitSetFloodCGI(t *testing.T) {
	for _, fs := range floodSets {
		t.Run(fs.name, func(t *testing.T) { setFloodCGI(t, fs) })
	}
}

func setFloodCGI(t *testing.T, fs floodSet) {
	db := setFloodWorld(t, fs)
	bin := hitBinary(t)
	base := append(hitEnv(t, db), "HTTP_USER_AGENT="+fcgitest.BrowserUA)
	floodEnv := testenv.OwnRunDir(t, append(base[:len(base):len(base)], "PATH_INFO=/flood.gif", "QUERY_STRING="+fs.query(),
		"REQUEST_URI=/cgi-bin/counter.cgi/flood.gif?"+fs.query()))
	viewEnv := testenv.OwnRunDir(t, append(base[:len(base):len(base)], "QUERY_STRING=", "REQUEST_URI=/cgi-bin/counter.cgi/demo.png",
		"COUNTER_WAIT="+viewWait.String()))

	run := func(env []string) (cgiAnswer, string, error) {
		cmd := exec.Command(bin)
		cmd.Env = env
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			return cgiAnswer{}, stderr.String(), err
		}
		ans, err := parseAnswer(out.Bytes())
		return ans, stderr.String(), err
	}
	stop := make(chan struct{})
	var flooded atomic.Int64
	var wg sync.WaitGroup
	for range cgiFloodLoops {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ans, stderr, err := run(floodEnv)
				if err != nil || !floodAnswer(ans.status) || ans.header.Get("Content-Type") != "image/gif" {
					t.Errorf("GIF in a digit set: %v, status %d, %s; stderr %q", err, ans.status, ans.header.Get("Content-Type"), stderr)
					return
				}
				flooded.Add(1)
			}
		})
	}
	views := countViews(&flooded, cgiFloodLoops, func() (int, error) {
		ans, stderr, err := run(viewEnv)
		if err == nil && ans.status != 200 {
			err = fmt.Errorf("status %d, %s; stderr %q", ans.status, ans.header.Get("X-Counter-Error"), stderr)
		}
		return ans.status, err
	})
	close(stop)
	wg.Wait()
	views.check(t, db, flooded.Load(), cgiFloodLoops)
}

// TestDigitSetFloodFastCGI is TestDigitSetFloodCGI with the binary serving
// FastCGI: 8 clients, a connection each, ask for the largest set's GIF
// with count=0 while another counts a visitor every 100 ms.
func TestDigitSetFloodFastCGI(t *testing.T) {
	for _, fs := range floodSets {
		t.Run(fs.name, func(t *testing.T) { setFloodFastCGI(t, fs) })
	}
}

func setFloodFastCGI(t *testing.T, fs floodSet) {
	db := setFloodWorld(t, fs)
	sock, _, _ := startFastCGIBinary(t, db, "COUNTER_WAIT="+viewWait.String())
	stop := make(chan struct{})
	var flooded atomic.Int64
	var wg sync.WaitGroup
	for range floodLoops {
		c := fcgitest.MustDial(t, sock)
		wg.Go(func() {
			defer c.Conn.Close()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.Conn.SetDeadline(time.Now().Add(20 * time.Second))
				out, _, err := c.Request(1, true, fcgitest.Env("GET", "/flood.gif", fs.query()), nil, 0)
				var ans cgiAnswer
				if err == nil {
					ans, err = parseAnswer(out)
				}
				if err != nil || !floodAnswer(ans.status) {
					t.Errorf("GIF in a digit set: %v %.80q", err, out)
					return
				}
				flooded.Add(1)
			}
		})
	}
	c := fcgitest.MustDial(t, sock)
	views := countViews(&flooded, floodLoops, func() (int, error) {
		c.Conn.SetDeadline(time.Now().Add(20 * time.Second))
		out, _, err := c.Request(1, true, fcgitest.Env("GET", "/demo.png", "", "HTTP_REFERER", "https://example.org/"), nil, 0)
		if err != nil {
			return 0, err
		}
		ans, err := parseAnswer(out)
		if err == nil && ans.status != 200 {
			err = fmt.Errorf("status %d, %s", ans.status, ans.header.Get("X-Counter-Error"))
		}
		return ans.status, err
	})
	close(stop)
	wg.Wait()
	views.check(t, db, flooded.Load(), floodLoops)
}

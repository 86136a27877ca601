package main

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hitcounter/cgi/fcgitest"
	"hitcounter/counter/digitset"
	"hitcounter/store"
)

// bigSetFolder writes a folder of ten animated GIFs of noise, whose files
// together come near the bound of a set's files (digitset.MaxPieceBytes):
// the set whose SVG, which embeds each digit's file, is the largest a
// stranger can ask for. Each digit is 300 px high, as the tallest digits
// real counters ship (Moe-Counter's yousa-ling at 8abee4d,
// deploy/bench/realsets), and 170 wide, so that ten of them stay within
// the largest drawing (digitset.MaxDrawPixels) and the SVG of a count of
// ten different digits embeds every file.
func bigSetFolder(t *testing.T) (dir string, pieces int) {
	t.Helper()
	dir = t.TempDir()
	rng := rand.New(rand.NewPCG(36, 4))
	pal := make(color.Palette, 256)
	for i := range pal {
		pal[i] = color.NRGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), 0xff}
	}
	// A frame of noise in its first rows rows, so that the last frame of
	// each digit can fill what is left of the digit's share to the byte
	// or so.
	frame := func(rows int) *image.Paletted {
		m := image.NewPaletted(image.Rect(0, 0, 170, 300), pal)
		for i := range m.Pix[:rows*170] {
			m.Pix[i] = uint8(rng.Uint32())
		}
		return m
	}
	encode := func(g *gif.GIF) []byte {
		var b bytes.Buffer
		if err := gif.EncodeAll(&b, g); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	share := digitset.MaxPieceBytes / 10
	for i := range 10 {
		g := &gif.GIF{}
		for {
			g.Image, g.Delay = append(g.Image, frame(300)), append(g.Delay, 10)
			if len(encode(g)) > share {
				break
			}
		}
		lo, hi := 0, 300 // the last frame's rows of noise: lo fits, hi does not
		for hi-lo > 1 {
			g.Image[len(g.Image)-1] = frame((lo + hi) / 2)
			if len(encode(g)) <= share {
				lo = (lo + hi) / 2
			} else {
				hi = (lo + hi) / 2
			}
		}
		g.Image[len(g.Image)-1] = frame(lo)
		b := encode(g)
		pieces += len(b)
		writeFile(t, filepath.Join(dir, strconv.Itoa(i)+".gif"), b)
	}
	if pieces > digitset.MaxPieceBytes || pieces < digitset.MaxPieceBytes*99/100 {
		t.Fatalf("the set's files are %d bytes, want near %d", pieces, digitset.MaxPieceBytes)
	}
	return dir, pieces
}

// TestFastCGISlowReadersOfTheBiggestTheme starts the built binary as the
// FastCGI service inside a memory cgroup limited as the systemd unit
// limits it (MemoryMax=128M), and has 60 clients ask for the largest SVG
// a set can make, every digit in it, and never read their answers, as
// clients behind a web server that stops reading when its own client
// does. While they hang, a hit every 100 ms is answered 200; the service is never OOM-killed; and once they are gone, a
// client that reads gets the whole SVG.
//
// Before the gateway bounded the bytes that answers held waiting for
// their readers, each stuck connection held its whole SVG, and the
// service was OOM-killed.
func TestFastCGISlowReadersOfTheBiggestTheme(t *testing.T) {
	const (
		clients = 60
		every   = 100 * time.Millisecond
		// slowest is the longest a hit may take: a hit waits for the
		// file's lock up to its wait, and a service that reclaims its
		// memory at its cgroup's limit, page by page, shows here.
		slowest = store.DefaultWait + time.Second
	)
	hang := 10 * time.Second
	if testing.Short() {
		hang = 4 * time.Second
	}
	cg := newMemCgroup(t, memoryMax)
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "demo", "reload=off")
	mustAdmin(t, db, "create", "big", "1234567890")
	folder, pieces := bigSetFolder(t)
	mustAdmin(t, db, "theme", "add", "huge", folder)

	// In the cgroup from its first instruction: the shell moves itself
	// in, then becomes the service, with the listening socket as stdin.
	cmd := exec.Command("/bin/sh", "-c", `echo $$ > "$1" && exec "$2"`, "sh", cg.procs(), counterBinary(t))
	sock, cmd, stderr := startFastCGICommand(t, db, cmd)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if status, _, err := fcgiGet(sock, "/demo.png"); err == nil && status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer from the service after 10s: %s", stderr)
		}
	}
	// Alive, not a zombie that nobody has reaped yet.
	alive := func() bool {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
		_, state, _ := strings.Cut(string(stat), ") ")
		return err == nil && !strings.HasPrefix(state, "Z")
	}
	svg := fcgitest.Env("GET", "/big.svg", "theme=huge&count=0")
	whole := func() int {
		c := fcgitest.MustDial(t, sock)
		c.Conn.SetDeadline(time.Now().Add(20 * time.Second))
		out, _, err := c.Request(1, false, svg, nil, 0)
		if err != nil {
			t.Fatalf("the SVG: %v after %d bytes", err, len(out))
		}
		ans := fcgitest.MustParse(t, out)
		if ans.Status != 200 || !bytes.HasSuffix(ans.Body, []byte("</svg>")) {
			t.Fatalf("the SVG: status %d, %d bytes ending %q", ans.Status, len(ans.Body), ans.Body[max(0, len(ans.Body)-20):])
		}
		return len(ans.Body)
	}
	size := whole()
	t.Logf("the set's files: %d bytes; its SVG of 1234567890: %d bytes", pieces, size)
	base := cg.peak()

	var stuck []*fcgitest.Client
	for range clients {
		c := fcgitest.MustDial(t, sock)
		req := fcgitest.Record(fcgitest.BeginRequest, 1, []byte{0, fcgitest.Responder, 0, 0, 0, 0, 0, 0})
		for _, rec := range [][]byte{fcgitest.Pairs(svg), nil} {
			req = append(req, fcgitest.Record(fcgitest.Params, 1, rec)...)
		}
		if _, err := c.Conn.Write(append(req, fcgitest.Record(fcgitest.Stdin, 1, nil)...)); err != nil {
			t.Fatal(err)
		}
		stuck = append(stuck, c)
	}

	var (
		mu       sync.Mutex
		answered int
		failed   []string
		longest  time.Duration
	)
	tick := time.NewTicker(every)
	for end := time.Now().Add(hang); time.Now().Before(end); <-tick.C {
		start := time.Now()
		status, _, err := fcgiGet(sock, "/demo.png")
		took := time.Since(start)
		mu.Lock()
		longest = max(longest, took)
		switch {
		case err != nil || status != 200:
			failed = append(failed, strconv.Itoa(status)+" "+errString(err))
		case took > slowest:
			failed = append(failed, "200 after "+took.Round(time.Millisecond).String())
		default:
			answered++
		}
		mu.Unlock()
	}
	tick.Stop()
	// One more SVG while they hang: refused, but as an image, since every
	// image answer is one (or whole, if the budget had room).
	c := fcgitest.MustDial(t, sock)
	c.Conn.SetDeadline(time.Now().Add(20 * time.Second))
	if out, _, err := c.Request(1, false, svg, nil, 0); err != nil {
		t.Errorf("another SVG while the clients hung: %v", err)
	} else if ans := fcgitest.MustParse(t, out); ans.Header.Get("Content-Type") != "image/svg+xml" || ans.Status != 200 && ans.Status != 503 {
		t.Errorf("another SVG while the clients hung: status %d, Content-Type %q, want 200 or 503 as an SVG", ans.Status, ans.Header.Get("Content-Type"))
	} else {
		t.Logf("another SVG while the clients hung: status %d, %d bytes of %s", ans.Status, len(ans.Body), ans.Header.Get("Content-Type"))
	}
	c.Conn.Close()
	t.Logf("while %d clients hung on the SVG for %v: %d hits answered 200 within %v, slowest %v, %d not, the first %q",
		clients, hang, answered, slowest, longest.Round(time.Millisecond), len(failed), failed[:min(3, len(failed))])
	if len(failed) > 0 {
		t.Errorf("%d of %d hits not answered 200 within %v while the clients hung", len(failed), answered+len(failed), slowest)
	}
	for _, c := range stuck {
		c.Conn.Close()
	}
	if !alive() {
		t.Fatalf("the service died (%s, OOM kills %d); its log: %.2000s", cg.version(), cg.oomKills(), stderr)
	}
	if n := whole(); n != size {
		t.Errorf("the SVG after the clients left: %d bytes, want %d", n, size)
	}
	t.Logf("the service's %s, limited to %d MiB: peak %.1f MiB (%.1f MiB before the clients), OOM kills %d",
		cg.version(), memoryMax>>20, float64(cg.peak())/(1<<20), float64(base)/(1<<20), cg.oomKills())
	if n := cg.oomKills(); n != 0 {
		t.Errorf("OOM kills in the service's cgroup: %d, want 0", n)
	}
	if t.Failed() {
		t.Logf("the service's log: %.2000s", stderr)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

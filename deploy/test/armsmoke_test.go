package test

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/counter/draw"
	"hitcounter/store"
)

// TestARMBinaries runs deploy/build.sh, checks that what it makes is static
// and stripped, and runs each ARM binary under qemu-user as a web server
// would on a Pi: an owner creates a counter, visitors count hits and get
// the very image that amd64 draws, the count reads back, and a database
// at its maximum size costs the visitor a count, not the image.
func TestARMBinaries(t *testing.T) {
	dist := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(kitDir, "build.sh"), dist)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("deploy/build.sh: %v\n%s", err, out)
	}
	t.Logf("deploy/build.sh took %v:\n%s", time.Since(start).Round(time.Second), out)
	machines := map[string]elf.Machine{"arm64": elf.EM_AARCH64, "armv7": elf.EM_ARM, "armv6": elf.EM_ARM, "amd64": elf.EM_X86_64}
	for name, machine := range machines {
		for _, b := range []string{"counter.cgi", "counter-tool", "counter-cluster", "counter-themedecode"} {
			if err := checkStaticStripped(filepath.Join(dist, b+"-linux-"+name), machine); err != nil {
				t.Error(err)
			}
		}
	}
	for _, a := range armTargets {
		t.Run(a.name, func(t *testing.T) {
			qe := qemuRun{qemu: qemuUser(t, a.qemu), cpu: a.cpu, bin: filepath.Join(dist, "counter.cgi-linux-"+a.name), tool: filepath.Join(dist, "counter-tool-linux-"+a.name)}
			t.Run("hits", func(t *testing.T) { armHits(t, qe) })
			t.Run("full database", func(t *testing.T) { armFullDatabase(t, qe) })
		})
	}
	// The claim behind the armv6 build: a Pi Zero or 1 cannot run armv7.
	t.Run("armv7 on arm1176", func(t *testing.T) {
		qe := qemuRun{qemu: qemuUser(t, "qemu-arm"), cpu: "arm1176", bin: filepath.Join(dist, "counter.cgi-linux-armv7"), tool: filepath.Join(dist, "counter-tool-linux-armv7")}
		_, _, err := qe.run(t, qe.tool, nil, "help")
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGILL {
			t.Errorf("the GOARM=7 binary on an ARM1176 core: %v, want death by SIGILL", err)
		}
	})
}

// checkStaticStripped fails unless the ELF file at path is for machine, asks
// for no dynamic loader, and has no symbol table or debug information.
func checkStaticStripped(path string, machine elf.Machine) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Machine != machine {
		return fmt.Errorf("%s: machine %v, want %v", path, f.Machine, machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			return fmt.Errorf("%s: not static: it has %v", path, p.Type)
		}
	}
	for _, s := range []string{".symtab", ".debug_info", ".zdebug_info"} {
		if f.Section(s) != nil {
			return fmt.Errorf("%s: not stripped: it has %s", path, s)
		}
	}
	return nil
}

// qemuRun runs build.sh's binaries under qemu-user as one CPU: bin,
// counter.cgi, for hits, and tool, the full tool, for admin commands (run
// through counter.cgi they would need the kernel to run an ARM binary
// that counter.cgi execs, which qemu-user does only with binfmt_misc).
type qemuRun struct{ qemu, cpu, bin, tool string }

// run runs binary bin with the environment env (nothing else of this
// process's) and args, in a folder of its own (qemu may leave a core file).
func (q qemuRun) run(t testing.TB, bin string, env []string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, q.qemu, append([]string{"-cpu", q.cpu, bin}, args...)...)
	cmd.Env, cmd.Dir = testenv.OwnRunDir(t, env), t.TempDir()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

// admin runs an admin command on the database db and returns its stdout.
func (q qemuRun) admin(t testing.TB, db string, args ...string) string {
	t.Helper()
	out, errOut, err := q.run(t, q.tool, []string{"COUNTER_DB=" + db}, args...)
	if err != nil {
		t.Fatalf("counter.cgi %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return string(out)
}

// cgiAnswer is what the binary wrote as a CGI, parsed.
type cgiAnswer struct {
	status int
	header textproto.MIMEHeader
	body   []byte
	stderr string
}

// cgi runs the binary as lighttpd runs a CGI (the environment Debian's
// lighttpd really set, testdata/cgienv/lighttpd-direct.env), with set
// added, and parses its answer.
func (q qemuRun) cgi(t testing.TB, set ...string) cgiAnswer {
	t.Helper()
	return q.cgiOf(t, q.bin, set...)
}

// cgiOf is cgi with binary bin: the full tool for what counter.cgi would
// exec it for (a count as JSON).
func (q qemuRun) cgiOf(t testing.TB, bin string, set ...string) cgiAnswer {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "testdata/cgienv/lighttpd-direct.env"))
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for l := range strings.Lines(string(b)) {
		if l = strings.TrimSpace(l); strings.Contains(l, "=") {
			env = append(env, l)
		}
	}
	out, errOut, err := q.run(t, bin, append(env, set...))
	if err != nil {
		t.Fatalf("CGI %v: %v; stderr %s", set, err, errOut)
	}
	head, body, ok := bytes.Cut(out, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("CGI %v: no end of headers in %.200q", set, out)
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(head, "\r\n\r\n"...)))).ReadMIMEHeader()
	if err != nil {
		t.Fatalf("CGI %v: headers: %v", set, err)
	}
	status, _ := strconv.Atoi(strings.Fields(h.Get("Status") + " 0")[0])
	return cgiAnswer{status, h, body, string(errOut)}
}

// capturedStyle is the query of lighttpd-direct.env.
const capturedStyle = "digits=7&fg=f00"

// wantPNG is the PNG that amd64 draws for text in the captured style.
func wantPNG(t testing.TB, text string) []byte {
	t.Helper()
	s, err := counter.ParseStyle(capturedStyle)
	if err != nil {
		t.Fatal(err)
	}
	d, err := draw.NewDrawing(text, s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.Encode(&b, counter.PNG); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkPNG fails unless ans is a PNG of status that decodes and is, byte
// for byte, what amd64 draws for text.
func checkPNG(t testing.TB, ans cgiAnswer, status int, text string) {
	t.Helper()
	if ans.status != status || ans.header.Get("Content-Type") != "image/png" {
		t.Fatalf("status %d, type %q; want %d, image/png", ans.status, ans.header.Get("Content-Type"), status)
	}
	if _, err := png.Decode(bytes.NewReader(ans.body)); err != nil {
		t.Errorf("the PNG does not decode: %v", err)
	}
	if !bytes.Equal(ans.body, wantPNG(t, text)) {
		t.Errorf("the PNG of %q is not the one amd64 draws", text)
	}
}

func armHits(t *testing.T, q qemuRun) {
	dir := t.TempDir()
	db, run := filepath.Join(dir, "counter.db"), "COUNTER_RUN_DIR="+filepath.Join(dir, "run")
	if out := q.admin(t, db, "create", "demo", "reload=off"); !strings.Contains(out, "created demo at 0") {
		t.Fatalf("create: %q", out)
	}
	const hits = 3
	for i := 1; i <= hits; i++ {
		ans := q.cgi(t, "COUNTER_DB="+db, run)
		checkPNG(t, ans, http.StatusOK, counter.Digits(uint64(i), 7))
		if ans.stderr != "" {
			t.Errorf("hit %d: stderr %q", i, ans.stderr)
		}
	}
	ans := q.cgiOf(t, q.tool, "COUNTER_DB="+db, run, "PATH_INFO=/demo.json")
	if want := fmt.Sprintf(`{"name":"demo","count":%d,`, hits); ans.status != http.StatusOK || !strings.HasPrefix(string(ans.body), want) {
		t.Errorf("JSON: %d %q, want 200 %q", ans.status, ans.body, want)
	}
	if out := q.admin(t, db, "list"); !regexp.MustCompile(`(?m)^demo +3 `).MatchString(out) {
		t.Errorf("list: %q, want demo with 3", out)
	}
}

// armFullDatabase fills a database to a small COUNTER_MAX_DB_SIZE on this
// machine, then hits its counters on ARM until a first hit finds no room.
func armFullDatabase(t *testing.T, q qemuRun) {
	const max = store.SmallestMaxSize
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	var names []string
	for i := 0; ; i++ {
		s, err := store.Open(db, store.Options{Create: i == 0, MaxSize: max})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("c%04d-%s", i, strings.Repeat("x", 58))
		err = s.Create(name, 0, time.Now())
		s.Close()
		if errors.Is(err, store.ErrFull) {
			break
		}
		if err != nil || i > 10000 {
			t.Fatalf("fill: %d counters, %v", i, err)
		}
		names = append(names, name)
	}
	env := []string{"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(dir, "run"), "COUNTER_MAX_DB_SIZE=" + strconv.Itoa(max)}
	// A counter's first hit of the day adds its row and its referrer to
	// today's bucket: the first hits fit in the room left, until one does not.
	var name string
	var ans cgiAnswer
	for i, n := range names {
		name = n
		ans = q.cgi(t, append(env, "PATH_INFO=/"+n+".png", fmt.Sprintf("HTTP_REFERER=https://site%d.example/", i))...)
		if ans.status != http.StatusOK {
			break
		}
	}
	checkPNG(t, ans, http.StatusInsufficientStorage, counter.Placeholder(7))
	line := regexp.MustCompile(`^counter: GET "` + name + `" not counted: .*database reached maximum size\n$`)
	if !line.MatchString(ans.stderr) {
		t.Errorf("stderr %q, want one line saying the hit was not counted for lack of room", ans.stderr)
	}
	ans = q.cgiOf(t, q.tool, append(env, "PATH_INFO=/"+name+".json")...)
	if want := `{"name":"` + name + `","count":0,`; ans.status != http.StatusOK || !strings.HasPrefix(string(ans.body), want) {
		t.Errorf("JSON after the full hit: %d %q, want 200 %q", ans.status, ans.body, want)
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() > max {
		t.Errorf("file of %v bytes (%v), want at most %d", fi.Size(), err, max)
	}
	if out := q.admin(t, db, "list"); strings.Count(out, "\n") != len(names)+1 {
		t.Errorf("list shows %d lines, want %d counters and a heading", strings.Count(out, "\n"), len(names))
	}
	s, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the full file no longer opens here: %v", err)
	}
	defer s.Close()
	if list, err := s.List(); err != nil || len(list) != len(names) {
		t.Errorf("List: %d counters, %v; want %d", len(list), err, len(names))
	}
}

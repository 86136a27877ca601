package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

// hitEnv is the CGI environment of a hit on counter "demo" as lighttpd
// sets it, on database db.
func hitEnv(t *testing.T, db string) []string {
	t.Helper()
	return append(readEnv(t, "../testdata/cgienv/lighttpd-direct.env"), "COUNTER_DB="+db,
		"COUNTER_RUN_DIR="+filepath.Join(filepath.Dir(db), "run"))
}

// grownDB makes a database with counter demo and enough hits to span
// several pages, and returns its path and the bytes its pages use.
func grownDB(t *testing.T, dir string) (string, int64) {
	t.Helper()
	path := filepath.Join(dir, "counter.db")
	db, err := store.Open(path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	everyHit := counter.DefaultSettings() // hits from one client all count
	everyHit.Reload = 0
	if err := db.CreateWith("demo", 0, now, everyHit); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		if _, err := db.Hit("demo", now.AddDate(0, 0, -i), "http://site"+strconv.Itoa(i)+".example/"); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	r, err := store.Check(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return path, r.InUse
}

// TestBadFilesGetAnImageAndOneLine: a database that is missing, empty, cut
// short, corrupted, not a database at all, not writable, or in a missing
// directory gives the visitor a placeholder image and the owner one line,
// never a panic, and the file is left exactly as it was; check says what
// is wrong and exits 1.
func TestBadFilesGetAnImageAndOneLine(t *testing.T) {
	tests := []struct {
		name   string
		make   func(t *testing.T, dir string) string // returns the db path
		asUser bool                                  // run as an unprivileged user
		inLog  string
		sound  bool // the file itself is fine: check passes
	}{
		{"missing file", func(t *testing.T, dir string) string { return filepath.Join(dir, "counter.db") }, false, "missing", false},
		{"missing directory", func(t *testing.T, dir string) string { return filepath.Join(dir, "gone", "counter.db") }, false, "missing", false},
		{"empty file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "counter.db")
			os.WriteFile(p, nil, 0o600)
			return p
		}, false, "missing or empty", false},
		{"cut short", func(t *testing.T, dir string) string {
			p, inUse := grownDB(t, dir)
			os.Truncate(p, inUse/2)
			return p
		}, false, "damaged", false},
		{"cut by one byte", func(t *testing.T, dir string) string {
			p, inUse := grownDB(t, dir)
			os.Truncate(p, inUse-1)
			return p
		}, false, "cut short", false},
		{"corrupted pages", func(t *testing.T, dir string) string {
			p, _ := grownDB(t, dir)
			b, _ := os.ReadFile(p)
			for i := 8192; i < len(b); i++ {
				b[i] = byte(i*7 + i>>8)
			}
			os.WriteFile(p, b, 0o600)
			return p
		}, false, "damaged", false},
		{"not a database", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "counter.db")
			os.WriteFile(p, bytes.Repeat([]byte("<html>not a counter</html>\n"), 1000), 0o600)
			return p
		}, false, "damaged: invalid database", false},
		{"not writable", func(t *testing.T, dir string) string {
			p, _ := grownDB(t, dir)
			os.Chmod(p, 0o444)
			return p
		}, true, "permission denied", true},
	}
	bin := counterBinary(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := worldDir(t)
			db := tc.make(t, dir)
			before, beforeErr := os.ReadFile(db)
			cmd := exec.Command(bin)
			if tc.asUser {
				cmd = unprivileged(t, dir, bin)
			}
			cmd.Env = hitEnv(t, db)
			var out, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("exit: %v; stderr %q", err, stderr.String())
			}
			ans := parseCGI(t, out.Bytes())
			if ans.status == 200 || ans.header.Get("Content-Type") != "image/png" {
				t.Errorf("status %d, type %q; want an error status with a PNG", ans.status, ans.header.Get("Content-Type"))
			}
			if img, err := png.Decode(bytes.NewReader(ans.body)); err != nil || img.Bounds().Dx() < 20 {
				t.Errorf("image %v (%v), want the counter drawn as dashes", img, err)
			}
			line := stderr.String()
			if strings.Count(line, "\n") != 1 || !strings.Contains(line, tc.inLog) || !strings.Contains(line, db) || strings.Contains(line, "panic") {
				t.Errorf("stderr %q, want one line naming %s and saying %q", line, db, tc.inLog)
			}
			after, afterErr := os.ReadFile(db)
			if !bytes.Equal(before, after) || (beforeErr == nil) != (afterErr == nil) {
				t.Errorf("the hit changed the file: %d bytes (%v), was %d (%v)", len(after), afterErr, len(before), beforeErr)
			}
			out2, code := adminStdin(t, db, "", "check")
			if tc.sound {
				if code != 0 {
					t.Errorf("check of a sound file: exit %d, %q", code, out2)
				}
			} else if code != 1 || strings.Count(out2, "\n") != 1 || !strings.Contains(out2, tc.inLog) {
				t.Errorf("check: exit %d, %q; want exit 1 and one line saying %q", code, out2, tc.inLog)
			}
			if now, err := os.ReadFile(db); !bytes.Equal(now, after) || (err == nil) != (afterErr == nil) {
				t.Errorf("check changed the file")
			}
		})
	}
}

// worldDir is a temporary folder that an unprivileged user can enter.
func worldDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "counter-faults-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// unprivileged returns a command that runs a copy of bin, put in dir, as
// the user nobody when this test runs as root; permissions do not hold
// root back.
func unprivileged(t *testing.T, dir, bin string) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		return exec.Command(bin)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "counter.cgi")
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd
}

// dropFreePage takes the last page id out of the freelist that the newer
// meta page of the bbolt file at path names. The page is then neither in
// use nor free: every record still reads, hits still count, and only
// bbolt's page check can tell. It returns the page id.
func dropFreePage(t *testing.T, path string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	// A page: id (8 bytes), flags (2), count (2), overflow (4), then its
	// data. A meta page's data: magic, version, page size, flags (4 each),
	// root bucket (16), freelist page id (8), high water mark (8), txid (8).
	meta := 0
	if le.Uint64(b[4096+64:]) > le.Uint64(b[64:]) {
		meta = 4096
	}
	size := int(le.Uint32(b[meta+24:]))
	free := int(le.Uint64(b[meta+48:])) * size
	if flags := le.Uint16(b[free+8:]); flags != 0x10 {
		t.Fatalf("page at %d has flags %#x, want a freelist (0x10)", free, flags)
	}
	n := int(le.Uint16(b[free+10:]))
	if n == 0 || n == 0xffff {
		t.Fatalf("freelist of %d pages: want a few", n)
	}
	id := le.Uint64(b[free+16+(n-1)*8:])
	le.PutUint16(b[free+10:], uint16(n-1))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCheckFindsPageDamage gives check a file whose records are all sound
// but whose pages are not (one page neither in use nor free): only bbolt's
// page check finds it, and check must report it.
func TestCheckFindsPageDamage(t *testing.T) {
	db, _ := grownDB(t, t.TempDir())
	id := dropFreePage(t, db)
	if ans, stderr := runCGI(t, append(hitEnv(t, db), "PATH_INFO=/demo.json")); ans.status != 200 || stderr != "" {
		t.Fatalf("demo.json: %d, stderr %q; want the records to read as ever", ans.status, stderr)
	}
	out, code := adminStdin(t, db, "", "check")
	want := fmt.Sprintf("page %d: unreachable unfreed", id)
	if code != 1 || strings.Count(out, "\n") != 1 || !strings.Contains(out, want) {
		t.Errorf("check: exit %d, %q; want exit 1 and one line saying %q", code, out, want)
	}
}

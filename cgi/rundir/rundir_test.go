package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/testenv"
)

// plant is what a test leaves in the directory before the counter opens
// the file "f" in it: the victim is a file outside that must not change.
var plants = []struct {
	name  string
	plant func(t *testing.T, dir, victim string)
	bad   string // what the log line says
}{
	{"a link to another file", func(t *testing.T, dir, victim string) {
		if err := os.Symlink(victim, filepath.Join(dir, "f")); err != nil {
			t.Fatal(err)
		}
	}, "is a link"},
	{"a dangling link", func(t *testing.T, dir, victim string) {
		if err := os.Symlink(victim+".new", filepath.Join(dir, "f")); err != nil {
			t.Fatal(err)
		}
	}, "is a link"},
	{"a hard link", func(t *testing.T, dir, victim string) {
		if err := os.Link(victim, filepath.Join(dir, "f")); err != nil {
			t.Fatal(err)
		}
	}, "hard link"},
	{"a FIFO", func(t *testing.T, dir, victim string) {
		if err := syscall.Mkfifo(filepath.Join(dir, "f"), 0o600); err != nil {
			t.Fatal(err)
		}
	}, "not a regular file"},
}

// TestPlantedFilesAreNotFollowed: whatever stands in the directory under
// a file's name, the file outside is never written, the name is made anew
// as a plain file, and the log says so in one line.
func TestPlantedFilesAreNotFollowed(t *testing.T) {
	for _, tc := range plants {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "run")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(top, "victim")
			if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, dir, victim)
			var log bytes.Buffer
			d := New(dir, "", logline.New(&log))
			defer d.Close()
			f, err := d.OpenFile("f", true)
			if err != nil {
				t.Fatalf("OpenFile: %v", err)
			}
			f.WriteString("counter data")
			f.Close()
			if b, _ := os.ReadFile(victim); string(b) != "keep me" {
				t.Errorf("the file outside holds %q, want it untouched", b)
			}
			if _, err := os.Stat(victim + ".new"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a dangling link's target was made: %v", err)
			}
			fi, err := os.Lstat(filepath.Join(dir, "f"))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != FileMode {
				t.Errorf("f is %v (%v), want a regular file of mode 0600", fi.Mode(), err)
			}
			if lines := strings.Count(log.String(), "\n"); lines != 1 || !strings.Contains(log.String(), tc.bad) {
				t.Errorf("log %q: want one line saying %q", log.String(), tc.bad)
			}
		})
	}
}

// TestPlantedFilesAreNotRead: a reader neither follows a link nor waits
// on a FIFO, and a plant is no error that stops a request, just no file.
func TestPlantedFilesAreNotRead(t *testing.T) {
	for _, tc := range plants {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "run")
			os.Mkdir(dir, 0o700)
			victim := filepath.Join(top, "victim")
			os.WriteFile(victim, []byte("secret"), 0o600)
			tc.plant(t, dir, victim)
			d := New(dir, "", nil)
			defer d.Close()
			if b, err := d.ReadFile("f", 1<<20); err == nil {
				t.Errorf("ReadFile read %q through a plant", b)
			}
			if _, err := d.OpenFile("f", false); err == nil {
				t.Errorf("OpenFile without create opened a plant")
			}
		})
	}
}

// TestDirectoriesRefused: a directory that is a link, another user's, or
// one that others may write in is refused, with the command that fixes
// it, and nothing is made in it.
func TestDirectoriesRefused(t *testing.T) {
	testenv.NeedRoot(t)
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		what string
		fix  string
	}{
		{"a link to a directory", func(t *testing.T, path string) {
			real := path + ".real"
			os.Mkdir(real, 0o700)
			if err := os.Symlink(real, path); err != nil {
				t.Fatal(err)
			}
		}, "is a link", "sudo rm "},
		{"another user's", func(t *testing.T, path string) {
			os.Mkdir(path, 0o700)
			os.Chown(path, testenv.UIDNobody, testenv.UIDNobody)
		}, "belongs to nobody", "sudo chown root: "},
		{"writable by the group", func(t *testing.T, path string) {
			os.Mkdir(path, 0o770)
			os.Chmod(path, 0o770)
		}, "may be written by other users (mode 0770)", "sudo chmod 0750 "},
		{"writable by all, sticky", func(t *testing.T, path string) {
			os.Mkdir(path, 0o777)
			syscall.Chmod(path, 0o1777)
		}, "mode 1777", "sudo chmod 0750 "},
		{"a file", func(t *testing.T, path string) {
			os.WriteFile(path, nil, 0o600)
		}, "is not a directory", "sudo rm "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run")
			tc.make(t, path)
			d := New(path, "", nil)
			defer d.Close()
			_, err := d.OpenFile("throttle", true)
			var p *Problem
			if !errors.As(err, &p) || !errors.Is(err, ErrUnusable) {
				t.Fatalf("OpenFile: %v, want a Problem", err)
			}
			if !strings.Contains(p.What, tc.what) || !strings.HasPrefix(p.Fix, tc.fix) {
				t.Errorf("problem %q, fix %q: want %q and %q", p.What, p.Fix, tc.what, tc.fix)
			}
			if _, err := os.Lstat(filepath.Join(path+".real", "throttle")); err == nil {
				t.Errorf("a file was made behind the link")
			}
			if _, err := os.Lstat(filepath.Join(path, "throttle")); err == nil {
				t.Errorf("a file was made in a refused directory")
			}
		})
	}
}

// TestRootMakesFilesForTheDatabaseOwner: run as root, the directory and
// every file are made for the database's owner, and a file root left
// behind is handed over.
func TestRootMakesFilesForTheDatabaseOwner(t *testing.T) {
	testenv.NeedRoot(t)
	top := testenv.OwnedDir(t, testenv.UIDWWWData, 0o750)
	db := testenv.OwnedFile(t, top, testenv.UIDWWWData)
	path := filepath.Join(top, "run")
	left := filepath.Join(top, "run", "left")
	d := New(path, db, nil)
	defer d.Close()
	f, err := d.OpenFile("made", true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(left, nil, 0o644) // root's, as an older release left it
	if f, err = d.OpenFile("left", true); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, p := range []string{path, filepath.Join(path, "made"), left} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != testenv.UIDWWWData || st.Gid != testenv.UIDWWWData {
			t.Errorf("%s belongs to %d:%d, want www-data's", p, st.Uid, st.Gid)
		}
		if !fi.IsDir() && fi.Mode().Perm() != FileMode {
			t.Errorf("%s has mode %v, want 0600", p, fi.Mode().Perm())
		}
	}
}

// TestRemovedDirectoryIsOpenedAnew: a long-lived process whose directory
// was removed and made again uses the new one.
func TestRemovedDirectoryIsOpenedAnew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run")
	d := New(path, "", nil)
	defer d.Close()
	if err := d.Check(true); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(path)
	f, err := d.OpenFile("throttle", true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(path, "throttle")); err != nil {
		t.Errorf("the file is not in the new directory: %v", err)
	}
}

// TestPlantedDirectory: a directory under a file's name is not removed:
// the problem names the command that is.
func TestPlantedDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "f", "inside"), 0o700)
	d := New(dir, "", nil)
	defer d.Close()
	_, err := d.OpenFile("f", true)
	var p *Problem
	if !errors.As(err, &p) || !strings.Contains(p.What, "not a regular file") || p.Fix != "sudo rm -r "+filepath.Join(dir, "f") {
		t.Errorf("OpenFile: %v; want a Problem whose fix is sudo rm -r", err)
	}
}

func TestNamesAndRemove(t *testing.T) {
	path := t.TempDir()
	d := New(path, "", nil)
	defer d.Close()
	for _, n := range []string{"a", "b"} {
		f, err := d.OpenFile(n, true)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, nil, 0o600)
	os.Symlink(outside, filepath.Join(path, "c"))
	for _, n := range []string{"a", "c", "gone"} {
		if err := d.Remove(n); err != nil {
			t.Errorf("Remove(%q): %v", n, err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("removing a link removed what it points to: %v", err)
	}
	names, err := d.Names()
	if err != nil || len(names) != 1 || names[0] != "b" {
		t.Errorf("Names: %v, %v; want [b]", names, err)
	}
	if _, err := d.OpenFile("../x", true); err == nil {
		t.Errorf("a name with a slash was opened")
	}
}

// TestDirectoryThisUserCannotWrite: root's directory, which a web
// server's user may read but not write, is a problem of the directory,
// whose fix is to give it to that user.
func TestDirectoryThisUserCannotWrite(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		d := New(os.Getenv(childEnv), "", nil)
		_, err := d.OpenFile("throttle", true)
		var p *Problem
		if !errors.As(err, &p) || p.Path != d.Path() || !strings.HasPrefix(p.Fix, "sudo chown nobody: "+d.Path()) {
			fmt.Printf("got %v, want a problem of the directory whose fix gives it to nobody\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	testenv.NeedRoot(t)
	top := t.TempDir()
	os.Chmod(filepath.Dir(top), 0o755)
	os.Chmod(top, 0o755)
	dir := filepath.Join(top, "run")
	os.Mkdir(dir, 0o755) // root's, as a sudo mkdir makes it
	self, _ := os.Executable()
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(top, "rundir.test") // where nobody may run it
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestDirectoryThisUserCannotWrite$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: testenv.UIDNobody, Gid: testenv.UIDNobody}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
}

const childEnv = "RUNDIR_TEST_CHILD_DIR"

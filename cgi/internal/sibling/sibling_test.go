package sibling

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecRefusesWhatAnotherUserCouldPlant runs Exec on programs it must
// not run: each is refused with the reason, and this process goes on.
func TestExecRefusesWhatAnotherUserCouldPlant(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prog := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := prog("good", 0o755)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	inOpen := filepath.Join(open, "prog")
	if err := os.WriteFile(inOpen, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	others := []struct {
		name, path, want string
	}{
		{"a link", link, "is a link"},
		{"writable by others", prog("writable", 0o777), "writable by others than its owner"},
		{"writable by its group", prog("group", 0o775), "writable by others than its owner"},
		{"in a folder anyone writes", inOpen, open + " is writable by others"},
		{"missing", filepath.Join(dir, "missing"), "no such file"},
	}
	if os.Geteuid() == 0 {
		owned := prog("nobody", 0o755)
		if err := os.Chown(owned, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		others = append(others, struct{ name, path, want string }{"another user's", owned, "is owned by user 65534"})
	}
	for _, c := range others {
		t.Run(c.name, func(t *testing.T) {
			err := Exec(c.path, []string{"x"}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.path+": ") {
				t.Errorf("Exec(%s) = %v, want %q after the path", c.path, err, c.want)
			}
		})
	}
}

// TestPath finds a relative program from this one's folder.
func TestPath(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"/usr/lib/counter/counter-tool": "/usr/lib/counter/counter-tool",
		"../counter/counter-tool":       filepath.Join(filepath.Dir(exe), "../counter/counter-tool"),
		"counter-cluster":               filepath.Join(filepath.Dir(exe), "counter-cluster"),
	} {
		if got := Path(p); got != want {
			t.Errorf("Path(%q) = %q, want %q", p, got, want)
		}
	}
}

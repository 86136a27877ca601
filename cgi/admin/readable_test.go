package admin

import (
	"io/fs"
	"os"
	"testing"
)

func TestMayRead(t *testing.T) {
	alice := runner{uid: 1000, gid: 1000}
	const root, wwwData, adm = 0, 33, 4
	for _, tc := range []struct {
		name     string
		r        runner
		mode     fs.FileMode
		uid, gid uint32
		want     bool
	}{
		{"her own file", alice, 0o600, 1000, 1000, true},
		{"her own file she took the right to read from", alice, 0o044, 1000, 1000, false},
		{"root's private file", alice, 0o600, root, root, false},
		{"root's file for all", alice, 0o644, root, root, true},
		{"a file of her group", alice, 0o640, wwwData, 1000, true},
		{"her group may not", alice, 0o604, wwwData, 1000, false},
		{"a log of another group", alice, 0o640, root, adm, false},
		{"others may", alice, 0o004, wwwData, wwwData, true},
		{"only the web server", alice, 0o600, wwwData, wwwData, false},
		{"www-data's own", runner{wwwData, wwwData}, 0o600, wwwData, wwwData, true},
		{"root reads everything", runner{root, root}, 0, wwwData, wwwData, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mayRead(tc.r, tc.mode, tc.uid, tc.gid); got != tc.want {
				t.Errorf("mayRead(%+v, %v, %d, %d) = %v, want %v", tc.r, tc.mode, tc.uid, tc.gid, got, tc.want)
			}
		})
	}
}

func TestRunnerOf(t *testing.T) {
	self := runner{uint32(os.Getuid()), uint32(os.Getgid())}
	for _, tc := range []struct {
		name      string
		env       map[string]string
		want      runner
		wantKnown bool
	}{
		{"no sudo", nil, self, true},
		{"sudo", map[string]string{"SUDO_UID": "1000", "SUDO_GID": "1001"}, runner{1000, 1001}, true},
		{"sudo from root", map[string]string{"SUDO_UID": "0", "SUDO_GID": "0"}, runner{0, 0}, true},
		{"a uid alone", map[string]string{"SUDO_UID": "1000"}, runner{1000, 0}, false},
		{"no number", map[string]string{"SUDO_UID": "alice", "SUDO_GID": "1000"}, runner{0, 1000}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, known := runnerOf(func(k string) string { return tc.env[k] })
			if known != tc.wantKnown || known && got != tc.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, known, tc.want, tc.wantKnown)
			}
		})
	}
}

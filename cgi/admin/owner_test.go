package admin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hitcounter/cgi/testenv"
)

func TestOwnerWarning(t *testing.T) {
	testenv.NeedRoot(t)
	www := testenv.OwnedDir(t, testenv.UIDWWWData, 0o750)
	wwwFile := testenv.OwnedFile(t, testenv.OwnedDir(t, testenv.UIDWWWData, 0o750), testenv.UIDWWWData)
	rootDir := testenv.OwnedDir(t, testenv.UIDRoot, 0o700)
	rootFile := testenv.OwnedFile(t, testenv.OwnedDir(t, testenv.UIDRoot, 0o700), testenv.UIDRoot)
	sticky := testenv.OwnedDir(t, testenv.UIDRoot, 0o777|os.ModeSticky) // like /tmp
	stickyWWWFile := testenv.OwnedFile(t, testenv.OwnedDir(t, testenv.UIDRoot, 0o777|os.ModeSticky), testenv.UIDWWWData)
	noName := testenv.OwnedDir(t, testenv.UIDNoName, 0o750)
	tests := []struct {
		name string
		path string
		euid int
		want string // "" for no warning
	}{
		{"root creating for www-data", filepath.Join(www, "counter.db"), testenv.UIDRoot, ""}, // handed over
		{"nobody creating for www-data", filepath.Join(www, "counter.db"), testenv.UIDNobody, "running as nobody, but " + www + " belongs to www-data: files made now (the database, its .lock) may be unusable by the web server; run as: sudo -u www-data counter ..."},
		{"www-data creating its own", filepath.Join(www, "counter.db"), testenv.UIDWWWData, ""},
		{"root on www-data's", wwwFile, testenv.UIDRoot, ""},
		{"www-data on its own", wwwFile, testenv.UIDWWWData, ""},
		{"nobody on www-data's", wwwFile, testenv.UIDNobody, "running as nobody, but"},
		{"root creating in root's", filepath.Join(rootDir, "counter.db"), testenv.UIDRoot, "creating " + filepath.Join(rootDir, "counter.db") + " as root: a web server cannot open a file only root may read"},
		{"root on root's", rootFile, testenv.UIDRoot, ""},
		{"root creating in a shared one", filepath.Join(sticky, "counter.db"), testenv.UIDRoot, "as root: a web server cannot open"},
		{"a user creating in a shared one", filepath.Join(sticky, "counter.db"), 1000, ""},
		{"root on www-data's in a shared one", stickyWWWFile, testenv.UIDRoot, ""},
		{"nobody on www-data's in a shared one", stickyWWWFile, testenv.UIDNobody, "sudo -u www-data"},
		{"www-data on its own in a shared one", stickyWWWFile, testenv.UIDWWWData, ""},
		{"an owner without a name", filepath.Join(noName, "counter.db"), testenv.UIDNobody, "belongs to 4242: files made now (the database, its .lock) may be unusable by the web server; run as: sudo -u #4242 counter"},
		{"no directory", filepath.Join(www, "missing", "counter.db"), testenv.UIDRoot, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ownerWarning(tc.path, tc.euid)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) || strings.Contains(got, "\n") {
				t.Errorf("ownerWarning(%s, %d) = %q, want one line containing %q", tc.path, tc.euid, got, tc.want)
			}
		})
	}
}

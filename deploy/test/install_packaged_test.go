package test

import (
	"fmt"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const uidWWWData = 33 // Debian's

// TestPackagedConfigureFollowsNoLink runs the package's configure step,
// install.sh --packaged as deploy/debian/postinst calls it, into a scratch
// root where the package's files are in place, after www-data has put
// something of its own in place of /var/lib/counter/counter.db, its own
// folder. The step fixes the database's owner and mode; it must never do
// so through a link, nor to a file that has another name: a setuid root
// program behind them keeps its owner and bits, the step says why it left
// the file alone, and the rest of the install goes on. A database root
// made readable by all is fixed, and only once.
func TestPackagedConfigureFollowsNoLink(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the install script runs as root")
	}
	if _, err := osuser.Lookup("www-data"); err != nil {
		skipOutsideCI(t, "no www-data user")
	}
	bin := buildCounter(t)
	tests := []struct {
		name  string
		plant func(t *testing.T, db, victim string)
		want  []string // in what the step says
		fixed bool     // the database is then www-data's, 0600
	}{
		{"a link to a setuid root program", func(t *testing.T, db, victim string) {
			if err := os.Symlink(victim, db); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(db, uidWWWData, uidWWWData); err != nil {
				t.Fatal(err)
			}
		}, []string{"warning: store: fix owner: /var/lib/counter/counter.db is a link made by uid 33: root does not follow it",
			"left as it is: look at it (ls -l /var/lib/counter/counter.db)"}, false},
		// as www-data could make where fs.protected_hardlinks is off
		{"a hard link to a setuid root program", func(t *testing.T, db, victim string) {
			if err := os.Link(victim, db); err != nil {
				t.Fatal(err)
			}
		}, []string{"warning: store: fix owner: /var/lib/counter/counter.db belongs to uid 0 and has another name too (a hard link): not given to uid 33"}, false},
		{"a database root made, readable by all", func(t *testing.T, db, _ string) {
			tool := filepath.Join(filepath.Dir(bin), "counter-tool")
			if out, err := exec.Command(tool, "create", "blog", "-db", db).CombinedOutput(); err != nil {
				t.Fatalf("create: %v\n%s", err, out)
			}
			if err := os.Chown(db, 0, 0); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(db, 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"install.sh: chown www-data:www-data /var/lib/counter/counter.db\n",
			"install.sh: chmod 0600 /var/lib/counter/counter.db (was 0644)\n"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := packagedRoot(t, bin)
			victim := filepath.Join(root, "usr/bin/victim")
			if err := os.WriteFile(victim, []byte("#!/bin/sh\necho root's own\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(victim, 0o755|os.ModeSetuid); err != nil {
				t.Fatal(err)
			}
			before := ownerModeBytes(t, victim)
			db := filepath.Join(root, "var/lib/counter/counter.db")
			tc.plant(t, db, victim)

			calls := filepath.Join(t.TempDir(), "calls.log")
			env := []string{
				"COUNTER_SYSTEMCTL=" + stub(t, "systemctl", calls),
				"COUNTER_SYSTEMD_RUN=" + t.TempDir(),
				"COUNTER_SERVICE=" + stub(t, "service", calls),
				"COUNTER_LIGHTTPD=" + stub(t, "lighttpd", calls),
				"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			}
			out := mustRunKit(t, env, t.TempDir(), root, "install.sh", "--packaged")
			t.Logf("install.sh --packaged:\n%s", out)
			if now := ownerModeBytes(t, victim); now != before {
				t.Errorf("the setuid program is now %s, was %s", now, before)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("install.sh --packaged did not say %q", w)
				}
			}
			if !strings.Contains(out, "counter.cgi is installed as CGI for lighttpd") {
				t.Errorf("the rest of the install did not go on")
			}
			if !tc.fixed {
				return
			}
			if got := ownerModeBytes(t, db); !strings.HasPrefix(got, "uid 33 gid 33 mode 0600,") {
				t.Errorf("the database is %s, want www-data's, 0600", got)
			}
			again := mustRunKit(t, env, t.TempDir(), root, "install.sh", "--packaged")
			if strings.Contains(again, "chown") || strings.Contains(again, "chmod") {
				t.Errorf("a second run fixes the database again:\n%s", again)
			}
		})
	}
}

// packagedRoot is a scratch root as the package leaves it before its
// postinst runs, after an earlier install: the binaries in place, a
// lighttpd to set up, and /var/lib/counter, www-data's.
func packagedRoot(t *testing.T, bin string) string {
	t.Helper()
	root := scratchRoot(t)
	for _, d := range []string{"usr/lib/cgi-bin", "usr/lib/counter", "usr/bin", "etc/lighttpd/conf-enabled"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for from, to := range map[string]string{
		bin: "usr/lib/cgi-bin/counter.cgi",
		filepath.Join(filepath.Dir(bin), "counter-tool"):        "usr/lib/counter/counter-tool",
		filepath.Join(filepath.Dir(bin), "counter-themedecode"): "usr/lib/counter/counter-themedecode",
	} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, to), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(root, "var/lib/counter")
	if err := os.Mkdir(data, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(data, uidWWWData, uidWWWData); err != nil {
		t.Fatal(err)
	}
	return root
}

// ownerModeBytes is a file's owner, mode and bytes, not following a link.
func ownerModeBytes(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	b, _ := os.ReadFile(path)
	return fmt.Sprintf("uid %d gid %d mode %04o, %d bytes %x", st.Uid, st.Gid, st.Mode&0o7777, len(b), b[:min(len(b), 16)])
}

package test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianEtc fills root with what Debian's packages pkgs put under /etc on
// a fresh install: each package's own files, taken from its .deb of the
// version installed here (so that the server binaries match their
// configs), and the links its postinst makes (Apache's default modules,
// confs and site, nginx's default site). Nothing is read from this
// machine's /etc, which may hold another site, a server on port 80, or a
// test's leftovers: a scratch root made here is the same on every machine
// with the same packages.
//
// The .deb files come from apt-get download and are kept in the user's
// cache folder (counter-test/debs), so only the first run fetches them.
func debianEtc(t testing.TB, root string, pkgs ...string) {
	t.Helper()
	for _, pkg := range pkgs {
		deb := debianPackage(t, pkg)
		// Only ./etc: the rest (binaries, docs) is what runs, not config.
		cmd := fmt.Sprintf("dpkg-deb --fsys-tarfile '%s' | tar -x -C '%s' --wildcards './etc/*'", deb, root)
		if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	for _, pkg := range pkgs {
		debianPostinst(t, root, pkg)
	}
}

// debianPackage returns the path of the .deb of the version of pkg that
// is installed here, downloaded once into the cache.
func debianPackage(t testing.TB, pkg string) string {
	t.Helper()
	v, err := exec.Command("dpkg-query", "-W", "-f", "${Version} ${Architecture} ${db:Status-Status}", pkg).Output()
	f := strings.Fields(string(v))
	if err != nil || len(f) != 3 || f[2] != "installed" {
		skipOutsideCI(t, fmt.Sprintf("package %s is not installed (apt-get install %s)", pkg, pkg))
	}
	version, arch := f[0], f[1]
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "counter-test", "debs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// apt's own name for it: an epoch's colon is written %3a
	deb := filepath.Join(dir, fmt.Sprintf("%s_%s_%s.deb", pkg, strings.ReplaceAll(version, ":", "%3a"), arch))
	if _, err := os.Stat(deb); err == nil {
		return deb
	}
	tmp, err := os.MkdirTemp(dir, "download-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("apt-get", "download", "-q", pkg+"="+version)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		skipOutsideCI(t, fmt.Sprintf("apt-get download %s=%s: %v\n%s", pkg, version, err, out))
	}
	got, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(got) != 1 {
		t.Fatalf("apt-get download %s=%s left %v, want one .deb", pkg, version, got)
	}
	// A rename: a test running beside this one sees the whole file or none.
	if err := os.Rename(got[0], deb); err != nil {
		t.Fatal(err)
	}
	return deb
}

// debianPostinst does in root what pkg's postinst does to /etc on a fresh
// install (Debian 12's scripts, read from the packages).
func debianPostinst(t testing.TB, root, pkg string) {
	t.Helper()
	var cmds [][]string
	link := func(target, name string) {
		t.Helper()
		p := filepath.Join(root, name)
		os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	switch pkg {
	case "apache2":
		cmds = append(cmds, []string{"a2enmod", "-q", "mpm_event"})
		for _, m := range strings.Fields("authz_host auth_basic access_compat authn_file authz_user alias dir autoindex env mime negotiation setenvif filter deflate status reqtimeout") {
			cmds = append(cmds, []string{"a2enmod", "-q", m})
		}
		for _, c := range strings.Fields("charset localized-error-pages other-vhosts-access-log security serve-cgi-bin") {
			cmds = append(cmds, []string{"a2enconf", "-q", c})
		}
		cmds = append(cmds, []string{"a2ensite", "-q", "000-default"})
	case "libapache2-mod-fcgid":
		cmds = append(cmds, []string{"a2enmod", "-q", "fcgid"})
	case "nginx-common":
		// Debian's link is absolute; in the root, it must stay inside it.
		link("../sites-available/default", "etc/nginx/sites-enabled/default")
	}
	for _, c := range cmds {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Env = append(os.Environ(), "APACHE_CONFDIR="+filepath.Join(root, "etc/apache2"),
			"APACHE_STATE_DIRECTORY="+filepath.Join(root, "var/lib/apache2"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := os.MkdirAll(filepath.Join(root, "var/lib/apache2"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s (as %s's postinst): %v\n%s", strings.Join(c, " "), pkg, err, out.String())
		}
	}
}

// debianFile returns the bytes of the file at path (such as
// /etc/nginx/fastcgi_params) as Debian's package pkg ships it.
func debianFile(t testing.TB, pkg, path string) []byte {
	t.Helper()
	root := t.TempDir()
	debianEtc(t, root, pkg)
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatalf("%s's %s: %v", pkg, path, err)
	}
	return b
}

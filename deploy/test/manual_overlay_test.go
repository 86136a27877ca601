package test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// manualCommand is one of the README's own command lines, found by what
// it does, and how the owner would type it.
type manualCommand struct {
	what  string
	find  *regexp.Regexp // the line in the README's code
	stdin string         // what the owner types at its prompt
}

// manualCommands finds, in the README's fenced code and code spans, the
// command lines an owner of nginx types on the install.sh route, in the
// order they come to them, without their comments: each must be there,
// as the README says it, or the test fails.
func manualCommands(t *testing.T, readme string) []string {
	t.Helper()
	wanted := []manualCommand{
		{what: "install", find: regexp.MustCompile(`^sudo deploy/install\.sh --server nginx --counter blog$`)},
		{what: "passwd", find: regexp.MustCompile(`^sudo -u www-data counter passwd blog$`), stdin: "correct horse battery\ncorrect horse battery\n"},
		{what: "config", find: regexp.MustCompile(`^sudo -u www-data counter config blog reload=`)},
		{what: "config", find: regexp.MustCompile(`^sudo -u www-data counter config blog show=`)},
		{what: "digitset add", find: regexp.MustCompile(`^counter digitset add NAME PATH$`)},
		{what: "import", find: regexp.MustCompile(`^sudo -u www-data counter import -name blog /var/www/html/counter\.txt$`)},
		{what: "backup", find: regexp.MustCompile(`^sudo -u www-data counter backup /var/backups/counter/counter\.db$`)},
		{what: "crontab", find: regexp.MustCompile(`^[0-9]+ [0-9]+ \* \* \* counter backup `)},
		{what: "backup before an upgrade", find: regexp.MustCompile(`^sudo -u www-data counter backup /var/backups/counter/before-upgrade\.db$`)},
		{what: "check", find: regexp.MustCompile(`^counter check FILE$`)},
		{what: "uninstall", find: regexp.MustCompile(`^sudo deploy/uninstall\.sh$`)},
		{what: "purge", find: regexp.MustCompile(`^sudo deploy/uninstall\.sh --purge$`)},
	}
	lines := commandLines(readme)
	var script []string
	for _, w := range wanted {
		found := findCommand(t, lines, w.what, w.find)
		switch w.what {
		case "crontab": // as cron runs it: its PATH, www-data's crontab
			f := strings.Fields(found)
			found = "sudo -u www-data env -i PATH=/usr/bin:/bin sh -c " + shellQuote(strings.Join(f[5:], " "))
		case "check": // FILE: the backup just made
			found = "counter check /var/backups/counter/counter.db"
		case "digitset add": // a set the script lays out, added with sudo by habit
			found = "sudo counter digitset add moe /var/www/digits"
		}
		if w.stdin != "" {
			found = "printf " + shellQuote(w.stdin) + " | " + found
		}
		script = append(script, found)
	}
	return script
}

// packageCommands finds the package route's lines in the README the same
// way: build, install, make a counter, back up, build again and upgrade,
// purge; the architecture is this machine's (amd64), and VERSION what the
// build printed, filled in by the script ($VERSION).
func packageCommands(t *testing.T, readme string) []string {
	t.Helper()
	wanted := []struct {
		what string
		find *regexp.Regexp
	}{
		{"build", regexp.MustCompile(`^ARCHS=arm64 deploy/build\.sh$`)},
		{"apt install", regexp.MustCompile(`^sudo apt install \./dist/counter_VERSION_arm64\.deb$`)},
		{"make a counter", regexp.MustCompile(`^sudo -u www-data counter create blog$`)},
		{"backup before an upgrade", regexp.MustCompile(`^sudo -u www-data counter backup /var/backups/counter/before-upgrade\.db$`)},
		{"build again", regexp.MustCompile(`^ARCHS=arm64 deploy/build\.sh$`)},
		{"upgrade", regexp.MustCompile(`^sudo apt install \./dist/counter_VERSION_arm64\.deb$`)},
		{"purge", regexp.MustCompile(`^sudo apt purge counter$`)},
	}
	lines := commandLines(readme)
	var script []string
	for _, w := range wanted {
		found := findCommand(t, lines, w.what, w.find)
		found = strings.ReplaceAll(found, "arm64", "amd64")
		found = strings.ReplaceAll(found, "VERSION", "${VERSION}")
		script = append(script, found)
	}
	return script
}

// commandLines are the README's lines of code, without a comment after
// the command.
func commandLines(readme string) []string {
	var lines []string
	for _, piece := range code(readme) {
		piece, _, _ = strings.Cut(piece, " #")
		lines = append(lines, strings.TrimSpace(piece))
	}
	return lines
}

// findCommand returns the first of lines that find matches, or fails t:
// the README must show the command what as the owner types it.
func findCommand(t *testing.T, lines []string, what string, find *regexp.Regexp) string {
	t.Helper()
	for _, l := range lines {
		if find.MatchString(l) {
			return l
		}
	}
	t.Fatalf("the README shows no %s command matching %s", what, find)
	return ""
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestManualCommandsInAnOverlay runs the README's own commands, taken from
// its code, as an owner types them, on this machine's own Debian with
// nginx, but inside an overlay of the root in mount, network and process
// namespaces of its own (unshare, as root): its own /run and loopback and
// port 80, every write going to a tmpfs that goes with it. The machine's
// /etc, /var, /run and port 80 are never touched.
//
// nginx runs as Debian runs it without systemd (its init script, its pid
// file); install.sh, as the README gives it, reloads it and checks the
// counter through it: right 10 times of 10, with an uninstall between,
// where before the check judged nginx before it had reloaded. Then the
// owner's commands: passwd, config, digitset add (a digit set laid out as
// Moe-Counter's, added as root by habit), import (an old counter's file),
// backup (and the crontab line's command, as cron runs it as www-data),
// check, a hit and its reload, a login, uninstall and purge; after purge nothing of the counter is left,
// and /etc is as it was, byte for byte.
// Then a reboot without systemd: the runtime directory gone, the boot
// step run, logins and reload counting right again.
//
// No sudo on this machine: the overlay gets a stand-in, runuser for
// sudo -u, which is what sudo does for these lines.
func TestManualCommandsInAnOverlay(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "unshare and the overlay need root")
	}
	if testing.Short() {
		t.Skip("installs for real in an overlay: minutes")
	}
	for _, tool := range []string{"unshare", "nginx", "ip", "curl", "go", "start-stop-daemon", "update-rc.d"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipOutsideCI(t, tool+" not installed")
		}
	}
	if _, err := os.Stat("/etc/nginx/sites-enabled/default"); err != nil {
		skipOutsideCI(t, "no Debian nginx default site: "+err.Error())
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := manualCommands(t, string(readme))
	debCmds := packageCommands(t, string(readme))
	repo, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	goroot, _ := exec.Command("go", "env", "GOROOT").Output()
	// A digit set as Moe-Counter lays one out, and an old counter's file.
	set := filepath.Join(dir, "digits")
	if err := os.Mkdir(set, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := range 10 {
		img := image.NewPaletted(image.Rect(0, 0, 8, 12), color.Palette{color.White, color.RGBA{uint8(25 * d), 0, 0, 255}})
		for y := 2; y < 10; y++ {
			img.SetColorIndex(1+d%6, y, 1)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(set, fmt.Sprintf("%d.png", d)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Inside: the owner's session.
	inner := `set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:` + strings.TrimSpace(string(goroot)) + `/bin HOME=/root
cd ` + shellQuote(repo) + `
step() { echo "== $*"; }
fail() { echo "FAIL: $*"; exit 1; }
count() { curl -s http://127.0.0.1/cgi-bin/counter.cgi/blog.json | sed -n 's/.*"count":\([0-9]*\).*/\1/p'; }
nginx || fail "nginx did not start"
etc() { find /etc -xdev \( -type f -exec md5sum {} + \) -o \( ! -type f -printf '%p %y %m %u %l\n' \) 2>/dev/null | sort; }
etc >/root/etc.before
[ ! -e /usr/bin/counter ] || fail "the overlay already has a counter"
right=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	step "install $i: ` + strings.ReplaceAll(cmds[0], `"`, `\"`) + `"
	out=$(` + cmds[0] + ` 2>&1); rc=$?
	echo "$out" | tail -n 3
	if [ $rc = 0 ] && echo "$out" | grep -q "install.sh: checked: "; then right=$((right + 1)); fi
	[ $i = 10 ] || sudo deploy/uninstall.sh >/dev/null 2>&1 || fail "uninstall between installs"
done
echo "nginx install check right: $right of 10"
[ $right = 10 ] || fail "install.sh's check was right $right times of 10"
cp -r ` + shellQuote(set) + ` /var/www/digits
echo 1000 >/var/www/html/counter.txt
`
	for _, c := range cmds[1 : len(cmds)-2] {
		inner += fmt.Sprintf("step %s\n%s || fail %s\n", shellQuote(c), c, shellQuote(c))
	}
	inner += `
step "the digit set and the imported count show"
counter digitset list | grep -q '^moe' || fail "digitset list lacks moe: $(counter digitset list)"
[ "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' 'http://127.0.0.1/cgi-bin/counter.cgi/blog.png?theme=moe&count=0')" = "200 image/png" ] ||
	fail "blog.png?theme=moe: $(curl -s -D - -o /dev/null 'http://127.0.0.1/cgi-bin/counter.cgi/blog.png?theme=moe&count=0')"
sudo -u www-data counter check /var/lib/counter/counter.db | grep -q ', 1000 view(s) in all' ||
	fail "after importing 1000: $(sudo -u www-data counter check /var/lib/counter/counter.db)"
step "a view, then its reload"
ua="Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Safari/537.36"
before=$(count)
for n in 1 2; do curl -s -o /dev/null -A "$ua" -e http://127.0.0.1/ http://127.0.0.1/cgi-bin/counter.cgi/blog.png; done
after=$(count)
[ "$after" = $((before + 1)) ] || fail "a view and its reload took blog from $before to $after"
login() {
	curl -s -o /dev/null -w '%{http_code}' -H 'Origin: http://127.0.0.1' --data-urlencode 'password=correct horse battery' \
		http://127.0.0.1/cgi-bin/counter.cgi/blog/login
}
[ "$(login)" = 303 ] || fail "the login with the password set by passwd"

step "a reboot without systemd: /run emptied, the boot step run"
rm -rf /run/counter
for s in /etc/rc2.d/S*counter-rundir; do [ -e "$s" ] || fail "no boot step for /run/counter"; "$s" start || fail "$s start"; done
[ "$(stat -c '%U:%G %a' /run/counter)" = "www-data:www-data 750" ] || fail "/run/counter after the boot step: $(stat -c '%U:%G %a' /run/counter)"
before=$(count)
for n in 1 2; do curl -s -o /dev/null -A "$ua reboot" -e http://127.0.0.1/ http://127.0.0.1/cgi-bin/counter.cgi/blog.png; done
after=$(count)
[ "$after" = $((before + 1)) ] || fail "after the reboot a view and its reload took blog from $before to $after"
[ "$(login)" = 303 ] || fail "a login after the reboot"
`
	for _, c := range cmds[len(cmds)-2:] {
		inner += fmt.Sprintf("step %s\n%s || fail %s\n", shellQuote(c), c, shellQuote(c))
	}
	inner += `
leftovers() {
	left=""
	for p in /usr/bin/counter /usr/lib/cgi-bin/counter.cgi /usr/lib/counter /var/lib/counter /var/backups/counter \
		/var/lib/counter-install.state /var/log/counter.log /run/counter /etc/init.d/counter /etc/init.d/counter-rundir \
		/etc/nginx/snippets/counter.conf /etc/nginx/conf.d/counter-upstream.conf /etc/tmpfiles.d/counter.conf; do
		[ -e "$p" ] || [ -L "$p" ] && left="$left $p"
	done
	ls /etc/rc?.d/ 2>/dev/null | grep -q counter && left="$left rc-links"
	grep -q counter /etc/nginx/sites-available/default && left="$left nginx-default-site-line"
	[ -z "$left" ] || fail "$1 left:$left"
	etc | diff /root/etc.before - || fail "after $1 /etc is not as before the install (above)"
}
step "after purge"
leftovers "uninstall.sh --purge"

# The package's route, on the same machine, now without the counter.
build() {
	out=$(` + debCmds[0] + ` 2>&1) || { echo "$out"; fail "build.sh"; }
	VERSION=$(echo "$out" | sed -n 's|.*dist/counter_\(.*\)_amd64\.deb.*|\1|p')
	[ -n "$VERSION" ] || { echo "$out"; fail "build.sh printed no package"; }
	echo "built $VERSION"
}
step "` + debCmds[0] + `"
build
step "` + debCmds[1] + `"
out=$(DEBIAN_FRONTEND=noninteractive ` + debCmds[1] + ` 2>&1); rc=$?; echo "$out" | grep -E "install.sh|counter" | tail -n 8
[ $rc = 0 ] || { echo "$out"; fail "apt install"; }
echo "$out" | grep -q "install.sh: checked: " || fail "the package's install did not check the counter through nginx"
step "` + debCmds[2] + `"
` + debCmds[2] + ` || fail "create"
for n in 1 2; do curl -s -o /dev/null -A "$ua package" -e http://127.0.0.1/ http://127.0.0.1/cgi-bin/counter.cgi/blog.png; done
[ "$(count)" = 1 ] || fail "the package's counter: a view and its reload counted $(count), want 1"
step "` + debCmds[3] + `"
` + debCmds[3] + ` || fail "backup"
step "` + debCmds[4] + `"
sleep 1
old=$VERSION
build
dpkg --compare-versions "$VERSION" gt "$old" || fail "the second build, $VERSION, is not newer than $old"
step "` + debCmds[5] + `"
out=$(DEBIAN_FRONTEND=noninteractive ` + debCmds[5] + ` 2>&1); rc=$?; echo "$out" | grep -E "install.sh|counter|newest" | tail -n 8
[ $rc = 0 ] || { echo "$out"; fail "apt install of the newer build"; }
[ "$(dpkg-query -W -f '${Version}' counter)" = "$VERSION" ] || fail "after the upgrade the package is $(dpkg-query -W -f '${Version}' counter), want $VERSION"
[ "$(count)" = 1 ] || fail "after the upgrade blog counts $(count), want 1"
step "` + debCmds[6] + `"
out=$(DEBIAN_FRONTEND=noninteractive ` + debCmds[6] + ` -y 2>&1); rc=$?; echo "$out" | grep -E "install.sh|uninstall.sh|counter" | tail -n 8
[ $rc = 0 ] || { echo "$out"; fail "apt purge"; }
echo "$out" | grep -q "kept the counts" && fail "apt purge said it kept the counts"
leftovers "apt purge counter"
echo "ALL GOOD"
`
	sudo := `#!/bin/sh
# a stand-in for sudo (not installed here): sudo -u USER CMD, or CMD as root
if [ "$1" = -u ]; then u=$2; shift 2; exec runuser -u "$u" -- "$@"; fi
exec "$@"
`
	outer := `set -eu
mount --make-rprivate /
T=` + shellQuote(dir) + `
mkdir -p "$T/ov" && mount -t tmpfs tmpfs "$T/ov" && mkdir "$T/ov/upper" "$T/ov/work" "$T/ov/root"
mount -t overlay overlay -o lowerdir=/,upperdir="$T/ov/upper",workdir="$T/ov/work" "$T/ov/root"
R=$T/ov/root
mount --rbind /proc "$R/proc"; mount --rbind /dev "$R/dev"; mount --rbind /sys "$R/sys"
mount -t tmpfs -o mode=0755 tmpfs "$R/run"
mkdir -m 1777 "$R/run/lock" # as Debian's boot makes it: Apache's tools need it
ip link set lo up
install -m 0755 "$T/sudo" "$R/usr/local/bin/sudo"
install -m 0755 "$T/inner.sh" "$R/root/counter-manual.sh"
exec chroot "$R" /bin/bash /root/counter-manual.sh
`
	for name, text := range map[string]string{"inner.sh": inner, "outer.sh": outer, "sudo": sudo} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, "unshare", "--mount", "--net", "--pid", "--fork", "--mount-proc", "bash", filepath.Join(dir, "outer.sh")).CombinedOutput()
	t.Logf("the manual's commands in an overlay (%s):\n%s", time.Since(start).Round(time.Second), out)
	if err != nil || !strings.Contains(string(out), "ALL GOOD") {
		t.Errorf("the manual's commands did not all work as written: %v", err)
	}
}

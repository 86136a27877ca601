package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestSessionLoginChecksNoPasswordCGI: through the built binary as a CGI
// child, on a password set by passwd (cost 10), a login POST from a
// browser with a valid session (its session cookie alone, or with its
// device cookie, a wrong password in the form) is answered 303 to the
// statistics while the test holds every bcrypt slot, the shared one and
// the known devices' one: it took none, and ran no check. Each answer
// comes well within a cost-10 check: faster than the median of the same
// binary's logins that run one (a wrong password, every slot free).
func TestSessionLoginChecksNoPasswordCGI(t *testing.T) {
	bin := counterBinary(t)
	const (
		password  = "the owner's good password"
		ownerAddr = "192.0.2.50"
		tries     = 5
	)
	dir := t.TempDir()
	db, _ := grownDB(t, dir)
	if out, code := adminStdin(t, db, password+"\n", "passwd", "demo"); code != 0 {
		t.Fatalf("passwd: %s", out)
	}
	body := "password=" + strings.ReplaceAll(password, " ", "+")
	session, device := ownerLogin(t, bin, db, ownerAddr, body)

	checked := checkedLogins(t, bin, db, tries)
	holdBcryptSlots(t, dir)
	var sessioned []time.Duration
	for i := range 2 * tries {
		cookies := session
		if i%2 == 1 {
			cookies = session + "; " + device
		}
		l, err := postLogin(bin, loginEnv(t, db, ownerAddr, cookies, "password=wrong"), "password=wrong")
		if err != nil {
			t.Fatal(err)
		}
		if l.status != http.StatusSeeOther || len(l.cookies) != 0 {
			t.Fatalf("a login with %q, every slot held: got %d setting %d cookies after %v (%s), want 303 setting none",
				cookies[:strings.IndexByte(cookies, '=')], l.status, len(l.cookies), l.took, strings.TrimSpace(l.stderr))
		}
		sessioned = append(sessioned, l.took)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), 10)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	bcrypt.CompareHashAndPassword(hash, []byte(password))
	check := time.Since(start)
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	t.Logf("logins with a session: median %v, slowest %v; logins that check a password: median %v; one cost-10 check in this process: %v",
		median(sessioned).Round(time.Microsecond), slices.Max(sessioned).Round(time.Microsecond), median(checked).Round(time.Microsecond), check.Round(time.Microsecond))
	if median(sessioned) >= median(checked) {
		t.Errorf("logins with a session took a median %v, logins that check a password %v: want less", median(sessioned), median(checked))
	}
}

// checkedLogins times n logins with a wrong password that bcrypt checks:
// each from an address of its own, so that no throttle stops one before.
func checkedLogins(t *testing.T, bin, db string, n int) []time.Duration {
	t.Helper()
	var took []time.Duration
	for i := range n {
		addr := "198.51.100." + strconv.Itoa(i+1)
		l, err := postLogin(bin, loginEnv(t, db, addr, "", "password=wrong"), "password=wrong")
		if err != nil || l.status != http.StatusUnauthorized {
			t.Fatalf("a wrong password: got %d %v, want 401", l.status, err)
		}
		took = append(took, l.took)
	}
	return took
}

// holdBcryptSlots holds every bcrypt slot of the runtime directory under
// dir, as a flood of logins would, until the test ends.
func holdBcryptSlots(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"bcrypt-0.lock", "bcrypt-device-0.lock"} {
		f, err := os.OpenFile(filepath.Join(dir, "run", name), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatalf("hold %s: %v", name, err)
		}
	}
}

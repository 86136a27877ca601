package counter

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"hitcounter/cgi/testenv"
)

// fixturePassword is the password of every hash in testdata/hashes (see its
// README and deploy/test/make-hashes.sh).
const fixturePassword = "correct horse battery staple"

// readHash returns the one hash line of testdata/hashes/name.
func readHash(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hashes", name))
	if err != nil {
		tb.Fatalf("read fixture: %v (regenerate with deploy/test/make-hashes.sh)", err)
	}
	return bytes.TrimSpace(b)
}

// TestVerifyPasswordFixtures checks hashes made by PHP's password_hash and Apache's
// htpasswd -B: what an owner migrating from the PHP service brings along.
// Each cost-12 verification takes about 0.3 s, so every hash is run once
// with the right password and once with a wrong one, and no more.
func TestVerifyPasswordFixtures(t *testing.T) {
	tests := []struct {
		file       string
		cost       int
		wantRehash bool
		wantErr    error
	}{
		{file: "php-cost10.txt", cost: 10, wantRehash: false},
		{file: "htpasswd-cost10.txt", cost: 10, wantRehash: false},
		{file: "php-cost12.txt", cost: 12, wantRehash: true},
		{file: "htpasswd-cost12.txt", cost: 12, wantRehash: true},
		// Above MaxVerifyCost: refused by HashCost before bcrypt is reached,
		// whatever the password.
		{file: "php-cost13.txt", cost: 13, wantErr: ErrHashTooCostly},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			hash := readHash(t, tc.file)
			if got := string(hash[:4]); got != "$2y$" {
				t.Errorf("prefix: got %q, want %q", got, "$2y$")
			}
			cost, err := HashCost(hash)
			if cost != tc.cost || !errors.Is(err, tc.wantErr) {
				t.Errorf("HashCost: got %d, %v, want %d, %v", cost, err, tc.cost, tc.wantErr)
			}

			ok, rehash, err := VerifyPassword(hash, []byte(fixturePassword))
			wantOK := tc.wantErr == nil
			if ok != wantOK || rehash != tc.wantRehash || !errors.Is(err, tc.wantErr) {
				t.Errorf("right password: got ok=%v rehash=%v err=%v, want ok=%v rehash=%v err=%v",
					ok, rehash, err, wantOK, tc.wantRehash, tc.wantErr)
			}
			ok, rehash, err = VerifyPassword(hash, []byte("Correct horse battery staple"))
			if ok || rehash || !errors.Is(err, tc.wantErr) {
				t.Errorf("wrong password: got ok=%v rehash=%v err=%v, want ok=false rehash=false err=%v",
					ok, rehash, err, tc.wantErr)
			}
		})
	}
}

// TestVerifyPasswordMinorVersions checks that $2a$, $2b$ and $2y$ are one algorithm
// to this program, as they are to crypt_blowfish for passwords without
// 8-bit bytes.
func TestVerifyPasswordMinorVersions(t *testing.T) {
	y := readHash(t, "php-cost10.txt")
	for _, minor := range []byte("aby") {
		t.Run("$2"+string(minor)+"$", func(t *testing.T) {
			hash := bytes.Clone(y)
			hash[2] = minor
			ok, rehash, err := VerifyPassword(hash, []byte(fixturePassword))
			if !ok || rehash || err != nil {
				t.Errorf("got ok=%v rehash=%v err=%v, want ok=true rehash=false err=nil", ok, rehash, err)
			}
		})
	}
}

// TestVerifyPasswordFreshHashes makes new hashes with the real php and htpasswd, the
// password always on stdin, and verifies them. Without the tools the test
// skips, except in CI (CI=true), where .ci/run installs them.
func TestVerifyPasswordFreshHashes(t *testing.T) {
	// Not ASCII and with spaces, so the bytes, not just letters, must agree.
	const password = "pässwörd mit Leerzeichen ☃"
	tests := []struct {
		name string
		tool string
		args []string
		cost int
	}{
		{"php-cost10", "php", phpHashArgs(10), 10},
		{"php-cost12", "php", phpHashArgs(12), 12},
		{"htpasswd-cost10", "htpasswd", []string{"-niB", "-C", "10", "user"}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := lookTool(t, tc.tool)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, path, tc.args...)
			cmd.Stdin = strings.NewReader(password + "\n")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v: %s", tc.tool, err, stderr.Bytes())
			}
			hash := hashFromOutput(out)

			cost, err := HashCost(hash)
			if cost != tc.cost || err != nil {
				t.Fatalf("HashCost(%q): got %d, %v, want %d, nil", hash, cost, err, tc.cost)
			}
			wantRehash := tc.cost != PasswordCost
			ok, rehash, err := VerifyPassword(hash, []byte(password))
			if !ok || rehash != wantRehash || err != nil {
				t.Errorf("right password: got ok=%v rehash=%v err=%v, want ok=true rehash=%v err=nil",
					ok, rehash, err, wantRehash)
			}
			if tc.cost == PasswordCost { // a wrong one at cost 12 would add 0.3 s for nothing
				ok, _, err := VerifyPassword(hash, []byte(strings.ToUpper(password)))
				if ok || err != nil {
					t.Errorf("wrong password: got ok=%v err=%v, want ok=false err=nil", ok, err)
				}
			}
		})
	}
}

// phpHashArgs returns php arguments that hash stdin, without a trailing
// newline, at cost.
func phpHashArgs(cost int) []string {
	const code = `echo password_hash(rtrim(stream_get_contents(STDIN), "\n"), PASSWORD_BCRYPT, ["cost" => (int)$argv[1]]), "\n";`
	return []string{"-r", code, "--", strconv.Itoa(cost)}
}

// hashFromOutput returns the hash in php's or htpasswd -n's output
// ("user:HASH" and a blank line).
func hashFromOutput(out []byte) []byte {
	line, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
	if _, h, ok := bytes.Cut(line, []byte(":")); ok {
		line = h
	}
	return bytes.TrimSpace(line)
}

// lookTool finds tool on PATH, or skips the test, or fails it under CI.
func lookTool(tb testing.TB, tool string) string {
	tb.Helper()
	path, err := exec.LookPath(tool)
	if err == nil {
		return path
	}
	testenv.Skip(tb, tool+" not found (apt-get install php-cli apache2-utils): "+err.Error())
	return ""
}

// TestHashPasswordCost proves that the path users hit hashes at cost 10,
// whatever bcrypt's default is today.
func TestHashPasswordCost(t *testing.T) {
	if PasswordCost != 10 {
		t.Errorf("PasswordCost: got %d, want 10", PasswordCost)
	}
	hash, err := HashPassword([]byte(fixturePassword))
	if err != nil {
		t.Fatalf("HashPassword: got %v, want nil", err)
	}
	cost, err := bcrypt.Cost(hash)
	if cost != 10 || err != nil {
		t.Errorf("bcrypt.Cost: got %d, %v, want 10, nil", cost, err)
	}
	ok, rehash, err := VerifyPassword(hash, []byte(fixturePassword))
	if !ok || rehash || err != nil {
		t.Errorf("VerifyPassword: got ok=%v rehash=%v err=%v, want ok=true rehash=false err=nil", ok, rehash, err)
	}
}

// TestPasswordLength checks bcrypt's 72-byte limit on both paths. bcrypt
// itself would match a 73-byte attempt against a hash of its first 72
// bytes; VerifyPassword must not.
func TestPasswordLength(t *testing.T) {
	pw72 := bytes.Repeat([]byte("p"), MaxPasswordLen)
	pw73 := append(bytes.Clone(pw72), 'x')

	refused := []struct {
		name     string
		password []byte
		want     error
	}{
		{"nil", nil, ErrPasswordEmpty},
		{"empty", []byte{}, ErrPasswordEmpty},
		{"73 bytes", pw73, ErrPasswordTooLong},
	}
	for _, tc := range refused {
		t.Run("HashPassword/"+tc.name, func(t *testing.T) {
			hash, err := HashPassword(tc.password)
			if hash != nil || !errors.Is(err, tc.want) {
				t.Errorf("got %q, %v, want nil, %v", hash, err, tc.want)
			}
		})
	}

	hash, err := HashPassword(pw72)
	if err != nil {
		t.Fatalf("HashPassword(72 bytes): got %v, want nil", err)
	}
	verify := []struct {
		name     string
		password []byte
		wantOK   bool
	}{
		{"72 bytes", pw72, true},
		{"73 bytes", pw73, false},
		{"empty", nil, false},
	}
	for _, tc := range verify {
		t.Run("VerifyPassword/"+tc.name, func(t *testing.T) {
			ok, rehash, err := VerifyPassword(hash, tc.password)
			if ok != tc.wantOK || rehash || err != nil {
				t.Errorf("got ok=%v rehash=%v err=%v, want ok=%v rehash=false err=nil", ok, rehash, err, tc.wantOK)
			}
		})
	}
}

// TestHashCostRefuses checks that HashCost accepts only the three bcrypt
// variants this program runs.
func TestHashCostRefuses(t *testing.T) {
	valid := readHash(t, "php-cost10.txt")
	with := func(i int, c byte) []byte {
		h := bytes.Clone(valid)
		h[i] = c
		return h
	}
	withCost := func(cost string) []byte {
		h := bytes.Clone(valid)
		copy(h[4:6], cost)
		return h
	}
	tests := []struct {
		name string
		hash []byte
		want error
	}{
		// crypt_blowfish's $2x$ marks hashes made by its sign-extension bug;
		// x/crypto/bcrypt would run it as $2a$ and never match.
		{"$2x$", with(2, 'x'), ErrNotAHash},
		{"$2$", append([]byte("$2$10$"), valid[7:]...), ErrNotAHash},
		{"$3a$", with(1, '3'), ErrNotAHash},
		{"md5-crypt $1$", []byte("$1$saltsalt$qjXMvbEw8oaL.CzflDugX/"), ErrNotAHash},
		{"sha512-crypt $6$", []byte("$6$rounds=5000$usesomesillystri$D4IrlXatmP7rx3P3InaxBeoomnAihCKRVQP22JZ6EY47Wc6BkroIuUUBOov1i.S5KPgErtP/EN5mcO.ChWQW21"), ErrNotAHash},
		{"truncated by one", valid[:59], ErrNotAHash},
		{"prefix only", valid[:7], ErrNotAHash},
		{"trailing newline", append(bytes.Clone(valid), '\n'), ErrNotAHash},
		{"61 bytes of junk", bytes.Repeat([]byte("x"), 61), ErrNotAHash},
		{"60 bytes of junk", bytes.Repeat([]byte("$"), 60), ErrNotAHash},
		{"cost not a number", withCost("1x"), ErrNotAHash},
		{"cost below bcrypt's minimum", withCost("03"), ErrNotAHash},
		{"cost above bcrypt's maximum", withCost("32"), ErrNotAHash},
		{"cost 13", withCost("13"), ErrHashTooCostly},
		{"cost 31", withCost("31"), ErrHashTooCostly},
		{"empty", []byte{}, ErrNotAHash},
		{"nil", nil, ErrNotAHash},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := HashCost(tc.hash)
			if !errors.Is(err, tc.want) {
				t.Errorf("HashCost(%q): got %v, want %v", tc.hash, err, tc.want)
			}
			if cost, err := bcrypt.Cost(tc.hash); err == nil && cost > 13 {
				return // were the cap broken, VerifyPassword would run for days
			}
			ok, rehash, err := VerifyPassword(tc.hash, []byte(fixturePassword))
			if ok || rehash || !errors.Is(err, tc.want) {
				t.Errorf("VerifyPassword: got ok=%v rehash=%v err=%v, want ok=false rehash=false err=%v",
					ok, rehash, err, tc.want)
			}
		})
	}
}

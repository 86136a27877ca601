package counter

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// fixturePassword is the password of every hash in testdata/hashes (see its
// README and deploy/make-hashes.sh).
const fixturePassword = "correct horse battery staple"

// readHash returns the one hash line of testdata/hashes/name.
func readHash(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hashes", name))
	if err != nil {
		tb.Fatalf("read fixture: %v (regenerate with deploy/make-hashes.sh)", err)
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
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s not found, and CI=true: install php-cli and apache2-utils", tool)
	}
	tb.Skipf("%s not found (install php-cli and apache2-utils): %v", tool, err)
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

// TestNoLibraryDefaultCost fails if any non-test Go file of the module
// refers to bcrypt.DefaultCost or bcrypt.MinCost (GenerateFromPassword
// silently turns a cost below MinCost into DefaultCost), or hashes at a
// constant cost that is not PasswordCost. A default is a moving value; a
// silent move is what this product exists to catch.
func TestNoLibraryDefaultCost(t *testing.T) {
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	problems, err := costViolations(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestNoLibraryDefaultCostCatches proves that the check above can fail.
func TestNoLibraryDefaultCostCatches(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // path under the module root: source
		want  []string          // a substring of each problem, in order
	}{
		{
			name:  "DefaultCost",
			files: map[string]string{"x/x.go": "package x\nimport \"golang.org/x/crypto/bcrypt\"\nvar c = bcrypt.DefaultCost\n"},
			want:  []string{"x/x.go:3:9: bcrypt.DefaultCost"},
		},
		{
			name:  "MinCost",
			files: map[string]string{"x.go": "package x\nimport \"golang.org/x/crypto/bcrypt\"\nfunc f() { _, _ = bcrypt.GenerateFromPassword(nil, bcrypt.MinCost) }\n"},
			want:  []string{"at cost bcrypt.MinCost", "bcrypt.MinCost: use PasswordCost"},
		},
		{
			name:  "renamed import",
			files: map[string]string{"x.go": "package x\nimport bc \"golang.org/x/crypto/bcrypt\"\nconst c = bc.DefaultCost\n"},
			want:  []string{"bc.DefaultCost"},
		},
		{
			name:  "dot import",
			files: map[string]string{"x.go": "package x\nimport . \"golang.org/x/crypto/bcrypt\"\n"},
			want:  []string{"dot import"},
		},
		{
			name:  "literal cost",
			files: map[string]string{"counter/p.go": "package counter\nimport \"golang.org/x/crypto/bcrypt\"\nconst PasswordCost = 10\nfunc f() { bcrypt.GenerateFromPassword(nil, 12) }\n"},
			want:  []string{"cost 12"},
		},
		{
			name:  "literal 10 is not the constant",
			files: map[string]string{"x.go": "package x\nimport \"golang.org/x/crypto/bcrypt\"\nfunc f() { bcrypt.GenerateFromPassword(nil, 10) }\n"},
			want:  []string{"cost 10"},
		},
		{
			name:  "literal 0 becomes DefaultCost",
			files: map[string]string{"x.go": "package x\nimport \"golang.org/x/crypto/bcrypt\"\nfunc f() { bcrypt.GenerateFromPassword(nil, 0) }\n"},
			want:  []string{"cost 0"},
		},
		{
			name: "local constant",
			files: map[string]string{"x.go": "package x\nimport \"golang.org/x/crypto/bcrypt\"\n" +
				"func f() { const cost = 12; bcrypt.GenerateFromPassword(nil, cost) }\n"},
			want: []string{"cost cost"},
		},
		{
			name:  "constant expression",
			files: map[string]string{"counter/p.go": "package counter\nimport \"golang.org/x/crypto/bcrypt\"\nconst PasswordCost = 10\nfunc f() { bcrypt.GenerateFromPassword(nil, PasswordCost+2) }\n"},
			want:  []string{"cost PasswordCost + 2"},
		},
		{
			name: "allowed",
			files: map[string]string{
				"go.mod":       "module hitcounter\n",
				"counter/p.go": "package counter\nimport \"golang.org/x/crypto/bcrypt\"\nconst PasswordCost = 10\nfunc f() { bcrypt.GenerateFromPassword(nil, PasswordCost) }\n",
				"cgi/main.go": "package main\nimport (\n\"golang.org/x/crypto/bcrypt\"\nc \"hitcounter/counter\"\n)\n" +
					// A measured cost chosen at run time is not a default.
					"func f(cost int) { bcrypt.GenerateFromPassword(nil, c.PasswordCost); bcrypt.GenerateFromPassword(nil, cost) }\n",
				"other/o.go":           "package other\nimport bcrypt \"example.com/notbcrypt\"\nvar c = bcrypt.DefaultCost\n",
				"x/x_test.go":          "package x\nimport \"golang.org/x/crypto/bcrypt\"\nvar c = bcrypt.MinCost\n",
				"testdata/t.go":        "package t\nimport \"golang.org/x/crypto/bcrypt\"\nvar c = bcrypt.DefaultCost\n",
				".hidden/h.go":         "package h\nimport \"golang.org/x/crypto/bcrypt\"\nvar c = bcrypt.DefaultCost\n",
				"x/sub/testdata/t.go":  "package t\nimport \"golang.org/x/crypto/bcrypt\"\nvar c = bcrypt.DefaultCost\n",
				"x/notgo.txt":          "bcrypt.DefaultCost\n",
				"y/blank.go":           "package y\nimport _ \"golang.org/x/crypto/bcrypt\"\n",
				"z/shadow.go":          "package z\nfunc f() { bcrypt := struct{ DefaultCost int }{}; _ = bcrypt }\n",
				"counter/unrelated.go": "package counter\nfunc g() int { return PasswordCost }\n",
			},
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, src := range tc.files {
				path := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := costViolations(root)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems %q, want %d matching %q", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("problem %d: got %q, want it to contain %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

const bcryptPath = "golang.org/x/crypto/bcrypt"

// costViolations parses every non-test .go file under root, a module root,
// skipping testdata and hidden directories, and describes each reference to
// a library default cost and each constant cost other than PasswordCost
// given to bcrypt.GenerateFromPassword, as "file:line:col: problem".
func costViolations(root string) ([]string, error) {
	counterPath := modulePath(root) + "/counter"
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	fset := token.NewFileSet()
	parsed := make(map[string][]*ast.File) // by directory: one package
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		parsed[filepath.Dir(path)] = append(parsed[filepath.Dir(path)], f)
	}

	var problems []string
	report := func(pos token.Pos, format string, args ...any) {
		p := fset.Position(pos)
		rel, err := filepath.Rel(root, p.Filename)
		if err != nil {
			rel = p.Filename
		}
		problems = append(problems, fmt.Sprintf("%s:%d:%d: %s", filepath.ToSlash(rel), p.Line, p.Column, fmt.Sprintf(format, args...)))
	}
	for _, dir := range slices.Sorted(maps.Keys(parsed)) {
		pkg := parsed[dir]
		consts := constNames(pkg)
		for _, f := range pkg {
			names := importNames(f)
			bc, counter := names[bcryptPath], names[counterPath]
			if bc == "." {
				report(f.Pos(), "dot import of %s hides which cost is used", bcryptPath)
				continue
			}
			if bc == "" || bc == "_" {
				continue
			}
			isPasswordCost := func(e ast.Expr) bool {
				switch e := e.(type) {
				case *ast.Ident:
					return f.Name.Name == "counter" && e.Name == "PasswordCost"
				case *ast.SelectorExpr:
					x, ok := e.X.(*ast.Ident)
					return ok && counter != "" && x.Name == counter && e.Sel.Name == "PasswordCost"
				}
				return false
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == bc &&
						(n.Sel.Name == "DefaultCost" || n.Sel.Name == "MinCost") {
						report(n.Pos(), "%s.%s: use PasswordCost, never a library default", bc, n.Sel.Name)
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "GenerateFromPassword" || len(n.Args) != 2 {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); !ok || x.Name != bc {
						return true
					}
					if cost := n.Args[1]; !isPasswordCost(cost) && isConstant(cost, bc, consts) {
						report(cost.Pos(), "%s.GenerateFromPassword at cost %s: use PasswordCost", bc, types.ExprString(cost))
					}
				}
				return true
			})
		}
	}
	return problems, nil
}

// modulePath reads the module path from root/go.mod, or returns "".
func modulePath(root string) string {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// importNames maps each import path of f to its local name.
func importNames(f *ast.File) map[string]string {
	m := make(map[string]string)
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[path] = name
	}
	return m
}

// constNames returns every name declared const anywhere in a package's
// files. Without type checking a local variable could shadow one; that
// would only make the check stricter.
func constNames(pkg []*ast.File) map[string]bool {
	m := make(map[string]bool)
	for _, f := range pkg {
		ast.Inspect(f, func(n ast.Node) bool {
			if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
				for _, s := range d.Specs {
					for _, id := range s.(*ast.ValueSpec).Names {
						m[id.Name] = true
					}
				}
			}
			return true
		})
	}
	return m
}

// isConstant reports whether e is built only of literals, constants of its
// own package, bcrypt's names and operators: a cost fixed in the source
// rather than measured or chosen at run time.
func isConstant(e ast.Expr, bc string, consts map[string]bool) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return consts[e.Name]
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == bc
	case *ast.ParenExpr:
		return isConstant(e.X, bc, consts)
	case *ast.UnaryExpr:
		return isConstant(e.X, bc, consts)
	case *ast.BinaryExpr:
		return isConstant(e.X, bc, consts) && isConstant(e.Y, bc, consts)
	}
	return false
}

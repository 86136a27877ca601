package counter

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

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

package main

import (
	"flag"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// depsFile lists every package the counter binary links, but its own:
// the standard library's, then the modules'. Every hit starts the binary,
// and what it links is paid at start-up in memory and time, so a change to
// the list must be seen and meant: rewrite it with
// go test ./cgi -run ImportGraph -update-deps, and say why in the commit.
const depsFile = "../testdata/deps/cgi.txt"

var updateDeps = flag.Bool("update-deps", false, "rewrite "+depsFile+" from go list")

// deniedImports are packages the binary must never link, and why, the
// standard library's and the modules' alike. Each has a small stand-in in
// this repository.
var deniedImports = map[string]string{
	"encoding/json":                  "a reflection-driven encoder for a few fixed answers; respond.go writes them by hand",
	"html/template":                  "0.5 MB and text/template's reflection; html.go escapes with html.EscapeString",
	"text/template":                  "its reflection made the binary 2 MB larger",
	"image/png":                      "counter/draw/png.go writes the paletted PNGs, without image/png's tables",
	"image/gif":                      "links the GIF decoder too; counter/draw/gif.go writes the GIFs",
	"net/http/fcgi":                  "hides SCRIPT_NAME and PATH_INFO, which the router needs; fastcgi.go is the responder",
	"github.com/x-way/crawlerdetect": "compiles a large regexp at start-up; counter/crawler runs its generated patterns",
	"net/http/cgi":                   "compiles a regexp at start-up for its host side: 0.25 ms a hit; gateway/request.go builds the request, compared with net/http/cgi in tests",
	"regexp":                         "compiling a pattern costs every process that links it; nothing on the hit path needs one",
	"os/exec":                        "only net/http/cgi's host side needed it",
}

// acceptedImports are packages the binary links that one would not
// expect, and why they stay.
var acceptedImports = map[string]string{}

// TestDependenciesRunOneWay fails when a package of the binary imports
// one it must not: main wires the gateway, the web handlers and the admin
// commands together, and none of them knows the others. The gateway serves
// any http.Handler, so it knows no counters at all.
func TestDependenciesRunOneWay(t *testing.T) {
	for _, tc := range []struct {
		pkg     string
		allowed func(dep string) bool
	}{
		{"./gateway", func(dep string) bool {
			return !strings.HasPrefix(dep, "hitcounter/") || strings.HasPrefix(dep, "hitcounter/cgi/gateway") || strings.HasPrefix(dep, "hitcounter/cgi/internal/")
		}},
		{"./web", func(dep string) bool {
			return dep != "hitcounter/cgi/admin"
		}},
		{"./admin", func(dep string) bool {
			return dep != "hitcounter/cgi/web" && dep != "hitcounter/cgi/gateway"
		}},
	} {
		out, err := exec.Command("go", "list", "-deps", tc.pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", tc.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if !tc.allowed(dep) {
				t.Errorf("%s imports %s", tc.pkg, dep)
			}
		}
	}
}

// TestImportGraph fails when the binary's import graph changes, or when it
// links a denied package.
func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps",
		"-f", "{{if .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	std := strings.Fields(string(out))
	out, err = exec.Command("go", "list", "-deps",
		"-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var modules []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, "hitcounter/") && p != "hitcounter" {
			modules = append(modules, p)
		}
	}
	slices.Sort(std)
	slices.Sort(modules)
	got := strings.Join(append(std, modules...), "\n") + "\n"

	for p, why := range deniedImports {
		if slices.Contains(std, p) || slices.Contains(modules, p) {
			t.Errorf("the binary links %s: %s", p, why)
		}
	}
	for p, why := range acceptedImports {
		if !slices.Contains(std, p) {
			t.Errorf("%s (accepted: %s) is no longer linked: take it off acceptedImports", p, why)
		}
	}
	if *updateDeps {
		if err := os.WriteFile(depsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(depsFile)
	if err != nil {
		t.Fatal(err)
	}
	want := string(b)
	if got == want {
		return
	}
	gotSet, wantSet := strings.Fields(got), strings.Fields(want)
	for _, p := range gotSet {
		if !slices.Contains(wantSet, p) {
			t.Errorf("new in the binary: %s", p)
		}
	}
	for _, p := range wantSet {
		if !slices.Contains(gotSet, p) {
			t.Errorf("gone from the binary: %s", p)
		}
	}
	t.Errorf("the import graph changed; if that is meant, measure a hit before and after (deploy/bench/bench-hit.sh), then run go test ./cgi -run ImportGraph -update-deps")
}

package main

import (
	"flag"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// depsFile lists, for the shipped build of goarch (CGO_ENABLED=0, linux;
// deploy/build.sh), every package that binary (cgi, the full tool; hit,
// counter.cgi, which every hit starts) links but its own: the standard
// library's, then the modules'. What a binary links is paid at its
// start-up in memory and time, so a change to the list must be seen and
// meant:
// rewrite them with go test ./cgi -run ImportGraph -update-deps, and say
// why in the commit.
func depsFile(binary, goarch string) string {
	return "../testdata/deps/" + binary + "-linux-" + goarch + ".txt"
}

// shipped are the builds deploy/build.sh makes: GOARCH, and GOARM for
// arm (armv6 and armv7 link the same packages).
var shipped = []struct{ goarch, goarm string }{{"arm64", ""}, {"arm", "6"}, {"amd64", ""}}

// goList runs go list for the shipped build of goarch with args.
func goList(tb testing.TB, goarch, goarm string, args ...string) []string {
	tb.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOARM="+goarm)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("GOARCH=%s go list %s: %v", goarch, strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

var updateDeps = flag.Bool("update-deps", false, "rewrite "+depsFile("*", "*")+" from go list")

// deniedInHit are packages the hit binary (./hit) must never link, and
// why, the standard library's and the modules' alike: it serves a counted
// image and nothing else, and every hit pays at start-up for what it
// links. Each has a small stand-in in this repository.
var deniedInHit = map[string]string{
	"encoding/json":                  "a reflection-driven encoder; a hit answers with an image",
	"html/template":                  "text/template's reflection and two regexps compiled at start-up; a hit shows no page",
	"text/template":                  "its reflection made the binary 2 MB larger",
	"image/png":                      "counter/draw/png.go writes the paletted PNGs, without image/png's tables",
	"image/gif":                      "links the GIF decoder too; counter/draw/gif.go writes the GIFs",
	"image/jpeg":                     "JPEG digits are decoded in cgi/themedecode; a hit draws from the stored set",
	"golang.org/x/image/webp":        "WebP digits are decoded in cgi/themedecode; a hit draws from the stored set",
	"compress/lzw":                   "a 64 KiB table zeroed at every frame of a set's GIF; counter/draw/lzw.go writes the same bytes",
	"net/http/fcgi":                  "hides SCRIPT_NAME and PATH_INFO, which the router needs; fastcgi.go is the responder",
	"github.com/x-way/crawlerdetect": "compiles a large regexp at start-up; counter/crawler runs its generated patterns",
	"net/http/cgi":                   "compiles a regexp at start-up for its host side; gateway/request.go builds the request, compared with net/http/cgi in tests",
	"regexp":                         "compiling a pattern costs every process that links it; nothing on the hit path needs one",
	"os/exec":                        "only net/http/cgi's host side needed it",
	"net/http":                       "its inits and pages cost any program that links it a hit's start-up time and memory (deploy/bench/RESULTS.md); cgi/gateway/cgiwire reads the request and writes the answer",
	"crypto/tls":                     "net/http's; a CGI hit knows HTTPS from the HTTPS variable, and needs nothing of it",
	"mime/multipart":                 "net/http's forms; a hit reads no body",
	"net":                            "no socket on a hit's path: the address is REMOTE_ADDR's text, read by net/netip",
}

// deniedInTool are packages the full tool (.) must never link, and why. It
// serves pages, commands and, over FastCGI and the local server, hits too:
// what stays out of it does the wrong thing, or costs every start of a
// page's process more than it gives (deploy/bench/bench-pages.sh measures
// both sides).
var deniedInTool = map[string]string{
	"html/template":                  "text/template's reflection keeps every exported method alive: every process of the tool, a JSON count's too, grows by megabytes; html.go writes the pages, and html/template is its oracle in html_test.go",
	"text/template":                  "the same reflection as html/template's",
	"net/http/fcgi":                  "hides SCRIPT_NAME and PATH_INFO, which the router needs; fastcgi.go is the responder",
	"net/http/cgi":                   "its request parsing is compared with gateway/request.go in tests; the full tool needs no CGI host",
	"github.com/x-way/crawlerdetect": "compiles a large regexp at start-up, for every page and command; counter/crawler runs its generated patterns",
	"regexp":                         "a package-level pattern is compiled at every start, a page's under CGI too; nothing in the tool needs one",
	"compress/lzw":                   "a 64 KiB table zeroed at every frame of a set's GIF; counter/draw/lzw.go writes the same bytes",
	"image/png":                      "the decoders run in a confined process of their own (cgi/themedecode); counter/draw/png.go writes the PNGs",
	"image/gif":                      "the decoders run in a confined process of their own (cgi/themedecode); counter/draw/gif.go writes the GIFs",
	"image/jpeg":                     "JPEG digits are decoded in a confined process of their own (cgi/themedecode); nothing writes a JPEG",
	"golang.org/x/image/webp":        "WebP digits are decoded in a confined process of their own (cgi/themedecode); nothing writes a WebP",
}

// acceptedImports are packages the binary links that one would not
// expect, and why they stay.
var acceptedImports = map[string]string{}

// floor is a storey of the house: its packages may import those of the
// floors below it, and of their own floor unless apart, never those of a
// floor above; and of the standard library and the modules, what it names.
type floor struct {
	name string
	pkgs []string // import paths below hitcounter/; a trailing /... takes the sub-packages
	// apart: the floor's packages know none of each other.
	apart bool
	// http: may import net/http and its sub-packages; the domain and the
	// store know nothing of HTTP.
	http bool
	// modules are the module packages it may import (prefixes); bbolt
	// is the store's alone.
	modules []string
	// only, when set, names the packages of the house it may import,
	// floors below or not (prefixes).
	only map[string][]string
}

// floors are the house from the top: the binary's main; the commands and
// the handlers; the transports and the helpers; the store; the cost
// meter; the domain.
// The tools under deploy/ stand outside it, and nothing imports them.
var floors = []floor{
	{name: "tools", pkgs: []string{"deploy/..."}, http: true, modules: []string{""}},
	{name: "main", pkgs: []string{"cgi", "cgi/themedecode", "cgi/hit"}},
	{name: "commands and handlers", pkgs: []string{"cgi/admin", "cgi/web"}, apart: true, http: true,
		modules: []string{"golang.org/x/term"}},
	// The image server, which the hit binary and the handlers share,
	// knows nothing of HTTP's types.
	{name: "image server", pkgs: []string{"cgi/imagehit"}},
	// The visitor table that a cluster's hosts share: etcd's client, so
	// linked only by the full tool's composition root built -tags etcd.
	{name: "shared visitor table", pkgs: []string{"cgi/seen/etcdseen"}, modules: []string{"go.etcd.io/etcd/"}},
	// x/sys/unix, which bbolt links anyway, for setfsuid: a socket that
	// root makes is born its directory owner's, never chowned by name.
	{name: "transports and helpers", pkgs: []string{"cgi/gateway", "cgi/gateway/cgiwire", "cgi/guard", "cgi/health", "cgi/seen", "cgi/rundir", "cgi/internal/..."}, http: true,
		modules: []string{"golang.org/x/sys/unix"},
		// The gateway serves any http.Handler: it knows no counters.
		only: map[string][]string{"cgi/gateway": {"cgi/internal/logline", "cgi/gateway/cgiwire"}, "cgi/gateway/cgiwire": {}}},
	// x/sys/unix, which bbolt links anyway, for what syscall lacks to
	// open a file under root without following another user's link
	// (O_PATH, readlinkat).
	{name: "store", pkgs: []string{"store"}, modules: []string{"go.etcd.io/bbolt", "golang.org/x/sys/unix"}},
	// The engines the store reaches its bytes through (kv): bbolt's
	// wrapper and etcd's client, which only the full tool's composition
	// root built -tags etcd links.
	{name: "engines", pkgs: []string{"store/kv", "store/kv/boltkv", "store/kv/etcdkv"},
		modules: []string{"go.etcd.io/bbolt", "go.etcd.io/etcd/", "go.uber.org/zap"}},
	// The cost meter measures the program, not the domain, yet sits
	// below the store: the store keeps its records in the history and
	// judges them by its rules inside the fold's transaction. It imports
	// nothing of the house (the runtime directory comes in as meter.Dir)
	// but the one way to lock a shared file.
	{name: "cost meter", pkgs: []string{"cgi/meter"}, only: map[string][]string{"cgi/meter": {"store/flock"}}},
	{name: "domain", pkgs: []string{"counter", "counter/..."}, modules: []string{"golang.org/x/crypto/bcrypt", "golang.org/x/image/"}},
	// flock(2) with its retry, for every floor that shares a file: it
	// imports nothing of the house.
	{name: "file locks", pkgs: []string{"store/flock"}, only: map[string][]string{"store/flock": {}}},
	// What tests need of the machine, for the tests of every floor: it
	// imports nothing of the house but testenv's rule for a missing part
	// (etcdtest), and no binary links it.
	{name: "test support", pkgs: []string{"cgi/testenv", "cgi/fcgitest", "cgi/testfiles", "store/kv/etcdkv/etcdtest"}, http: true,
		modules: []string{"go.etcd.io/etcd/", "go.uber.org/zap"},
		only:    map[string][]string{"cgi/testenv": {}, "cgi/fcgitest": {}, "cgi/testfiles": {}, "store/kv/etcdkv/etcdtest": {"cgi/testenv"}}},
}

// floorOf returns the index in floors of package p (its path below
// hitcounter/), or -1.
func floorOf(p string) int {
	for i, f := range floors {
		for _, q := range f.pkgs {
			if p == q || strings.HasSuffix(q, "/...") && strings.HasPrefix(p, strings.TrimSuffix(q, "...")) {
				return i
			}
		}
	}
	return -1
}

// floorRule says why package p, on floor f (an index of floors), may not
// import dep, or "" when it may.
func floorRule(f int, p, dep string) string {
	fl := floors[f]
	if rest, ok := strings.CutPrefix(dep, "hitcounter/"); ok {
		if only, ok := fl.only[p]; ok && !slices.ContainsFunc(only, func(q string) bool { return strings.HasPrefix(rest, q) }) {
			return "it may import only " + strings.Join(only, ", ") + " of the house"
		}
		switch g := floorOf(rest); {
		case g < 0:
			return "it has no floor in the table"
		case g < f:
			return "it is on a floor above (" + floors[g].name + ")"
		case g == f && fl.apart:
			return "the " + fl.name + " know none of each other"
		}
		return ""
	}
	if dep == "net/http" || strings.HasPrefix(dep, "net/http/") {
		if !fl.http {
			return "the " + fl.name + " knows nothing of HTTP"
		}
		return ""
	}
	if first, _, _ := strings.Cut(dep, "/"); !strings.Contains(first, ".") {
		return "" // the standard library's
	}
	if !slices.ContainsFunc(fl.modules, func(m string) bool { return strings.HasPrefix(dep, m) }) {
		if strings.HasPrefix(dep, "go.etcd.io/bbolt") {
			return "bbolt is the store's alone"
		}
		return "the table names no such module for the " + fl.name
	}
	return ""
}

// TestDependenciesRunOneWay fails when a package imports one that its
// floor may not, in the shipped builds: every package of the module has a
// floor, and imports run down only.
func TestDependenciesRunOneWay(t *testing.T) {
	for _, b := range shipped {
		t.Run(b.goarch, func(t *testing.T) {
			for _, line := range goList(t, b.goarch, b.goarm, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "hitcounter/...") {
				fields := strings.Fields(line)
				p, ok := strings.CutPrefix(fields[0], "hitcounter/")
				if !ok {
					p = "" // the module's root, if it ever has a package
				}
				f := floorOf(p)
				if f < 0 {
					t.Errorf("%s has no floor in the table (deps_test.go floors)", fields[0])
					continue
				}
				for _, dep := range fields[1:] {
					if why := floorRule(f, p, dep); why != "" {
						t.Errorf("%s (%s) imports %s: %s", fields[0], floors[f].name, dep, why)
					}
				}
			}
		})
	}
}

// TestImportGraph fails when the shipped binaries' import graphs change,
// for any build deploy/build.sh makes, or when they link a denied package:
// the full tool (.) and the hit binary (./hit), which links less.
func TestImportGraph(t *testing.T) {
	for _, b := range shipped {
		t.Run("cgi-"+b.goarch, func(t *testing.T) { checkImportGraph(t, ".", "cgi", b.goarch, b.goarm, deniedInTool) })
		t.Run("hit-"+b.goarch, func(t *testing.T) { checkImportGraph(t, "./hit", "hit", b.goarch, b.goarm, deniedInHit) })
	}
}

func checkImportGraph(t *testing.T, pkg, binary, goarch, goarm string, denied map[string]string) {
	std := goList(t, goarch, goarm, "-deps", "-f", "{{if .Standard}}{{.ImportPath}}{{end}}", pkg)
	var modules []string
	for _, p := range goList(t, goarch, goarm, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg) {
		if p != "" && !strings.HasPrefix(p, "hitcounter/") && p != "hitcounter" {
			modules = append(modules, p)
		}
	}
	std = slices.DeleteFunc(std, func(p string) bool { return p == "" })
	slices.Sort(std)
	slices.Sort(modules)
	got := strings.Join(append(std, modules...), "\n") + "\n"

	for p, why := range denied {
		if slices.Contains(std, p) || slices.Contains(modules, p) {
			t.Errorf("%s links %s: %s", binary, p, why)
		}
	}
	for p, why := range acceptedImports {
		if !slices.Contains(std, p) {
			t.Errorf("%s (accepted: %s) is no longer linked: take it off acceptedImports", p, why)
		}
	}
	if *updateDeps {
		if err := os.WriteFile(depsFile(binary, goarch), []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(depsFile(binary, goarch))
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
			t.Errorf("new in %s: %s", binary, p)
		}
	}
	for _, p := range wantSet {
		if !slices.Contains(gotSet, p) {
			t.Errorf("gone from %s: %s", binary, p)
		}
	}
	t.Errorf("the import graph changed; if that is meant, measure a hit before and after (deploy/bench/bench-hit.sh), then run go test ./cgi -run ImportGraph -update-deps")
}

package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hitcounter/counter"
)

// The owner's manual: the README and the detail it links under deploy/doc.
func manualFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	paths, err := filepath.Glob(filepath.Join(kitDir, "doc", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(paths, filepath.Join(repoRoot, "README.md"), filepath.Join(kitDir, "README.md")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = string(b)
	}
	return files
}

var (
	fence      = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	adminLine  = regexp.MustCompile(`(?:(?:^|\s|bin/)counter\.cgi|(?:^|\$ |sudo |www-data |bin/|\* )counter)\s+(-?[a-z][a-z-]*)\b([^|#<>&;]*)`)
	flagWord   = regexp.MustCompile(`^-[a-z][a-z-]*$`)
	kitPath    = regexp.MustCompile(`\b(?:deploy|testdata)/[A-Za-z0-9_./-]*[A-Za-z0-9_]`)
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading    = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	installOpt = regexp.MustCompile(`(?:install|uninstall)\.sh((?:\s+[^\s|&;]+)*)`)
	counterURL = regexp.MustCompile(`/cgi-bin/counter\.cgi(/[^"'\s)<>` + "`" + `]+)`)
	envName    = regexp.MustCompile(`\bCOUNTER_[A-Z_]+\b`)
)

// code returns the code of a markdown text: its fenced blocks and its
// code spans, one piece a line.
func code(md string) []string {
	var pieces []string
	for _, m := range fence.FindAllStringSubmatch(md, -1) {
		pieces = append(pieces, strings.Split(m[1], "\n")...)
	}
	for _, m := range codeSpan.FindAllStringSubmatch(fence.ReplaceAllString(md, ""), -1) {
		pieces = append(pieces, m[1])
	}
	return pieces
}

// TestManualMatchesTheProgram: every admin command and flag, install
// option, file, link, variable and counter address that the owner's
// manual shows exists, so that the manual cannot drift from the program.
func TestManualMatchesTheProgram(t *testing.T) {
	bin := buildCounter(t)
	files := manualFiles(t)
	help, _ := exec.Command(bin, "help").CombinedOutput()
	commands := map[string]string{"-version": ""} // command -> its -h text
	for _, m := range regexp.MustCompile(`(?m)^  counter ([a-z]+)`).FindAllStringSubmatch(string(help), -1) {
		usage, _ := exec.Command(bin, m[1], "-h").CombinedOutput()
		commands[m[1]] = string(usage)
	}
	if len(commands) < 10 {
		t.Fatalf("counter help lists %d commands:\n%s", len(commands), help)
	}

	t.Run("admin commands", func(t *testing.T) {
		for path, md := range files {
			for _, line := range code(md) {
				for _, m := range adminLine.FindAllStringSubmatch(line, -1) {
					usage, ok := commands[m[1]]
					if !ok {
						t.Errorf("%s shows `counter %s`, which counter help does not list", path, m[1])
						continue
					}
					for _, w := range strings.Fields(m[2]) {
						if flagWord.MatchString(w) && !strings.Contains(usage, "  "+w+" ") && !strings.Contains(usage, "  "+w+"\n") {
							t.Errorf("%s shows `counter %s %s`, a flag %s -h does not list", path, m[1], w, m[1])
						}
					}
				}
			}
		}
	})

	t.Run("install options", func(t *testing.T) {
		for _, script := range []string{"install.sh", "uninstall.sh"} {
			src, err := os.ReadFile(filepath.Join(kitDir, script))
			if err != nil {
				t.Fatal(err)
			}
			for path, md := range files {
				for _, line := range code(md) {
					for _, m := range installOpt.FindAllStringSubmatch(line, -1) {
						if !strings.Contains(m[0], script) || strings.Contains(m[0], "un"+script) {
							continue
						}
						for _, w := range strings.Fields(m[1]) {
							if strings.HasPrefix(w, "--") && !strings.Contains(string(src), "\t"+w+")") && !strings.Contains(string(src), " "+w+")") {
								t.Errorf("%s shows %s %s, an option the script does not take", path, script, w)
							}
						}
					}
				}
			}
		}
	})

	t.Run("files", func(t *testing.T) {
		for path, md := range files {
			for _, p := range kitPath.FindAllString(md, -1) {
				if _, err := os.Stat(filepath.Join(repoRoot, p)); err != nil {
					t.Errorf("%s names %s: %v", path, p, err)
				}
			}
		}
	})

	t.Run("links", func(t *testing.T) {
		for path, md := range files {
			for _, m := range mdLink.FindAllStringSubmatch(md, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), file)
				}
				text, ok := files[dest]
				if !ok {
					b, err := os.ReadFile(dest)
					if err != nil {
						t.Errorf("%s links %s: %v", path, target, err)
						continue
					}
					text = string(b)
				}
				if anchor != "" && !slices.Contains(anchors(text), anchor) {
					t.Errorf("%s links %s: no heading there makes #%s", path, target, anchor)
				}
			}
		}
	})

	t.Run("variables", func(t *testing.T) {
		var src strings.Builder
		for _, dir := range []string{"cgi/internal/config", "cgi"} {
			paths, _ := filepath.Glob(filepath.Join(repoRoot, dir, "*.go"))
			for _, p := range paths {
				if !strings.HasSuffix(p, "_test.go") {
					b, _ := os.ReadFile(p)
					src.Write(b)
				}
			}
		}
		// The kit's scripts read some of their own (COUNTER_SYSTEMCTL).
		var scripts strings.Builder
		for _, pattern := range []string{"*.sh", "init.d/*", "debian/*"} {
			paths, _ := filepath.Glob(filepath.Join(kitDir, pattern))
			for _, p := range paths {
				b, _ := os.ReadFile(p)
				scripts.Write(b)
			}
		}
		for path, md := range files {
			for _, v := range envName.FindAllString(md, -1) {
				if !strings.Contains(src.String(), `"`+v+`"`) && !regexp.MustCompile(`\$\{?`+v+`\b`).MatchString(scripts.String()) {
					t.Errorf("%s names %s, which neither the program nor the kit's scripts read", path, v)
				}
			}
		}
	})

	t.Run("addresses", func(t *testing.T) { manualAddresses(t, bin, files) })
}

// anchors are the fragment names GitHub makes of a markdown text's
// headings: lower case, punctuation dropped, spaces as hyphens.
func anchors(md string) []string {
	var names []string
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(md, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		names = append(names, b.String())
	}
	return names
}

// manualAddresses asks a local server (serve, on a port picked free) for
// every counter address the README shows in its code: each must answer
// 200, so that a tag copied from the manual works.
func manualAddresses(t *testing.T, bin string, files map[string]string) {
	readme := files[filepath.Join(repoRoot, "README.md")]
	var urls []string
	names := map[string]bool{}
	for _, line := range code(readme) {
		for _, m := range counterURL.FindAllStringSubmatch(line, -1) {
			u := m[1]
			if strings.Contains(u, "{{") || strings.ContainsAny(u, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && !strings.Contains(u, "labelColor") {
				continue // a template, or a placeholder such as NAME
			}
			urls = append(urls, u)
			name, _, _ := strings.Cut(strings.TrimPrefix(u, "/"), "/")
			name, _, _ = strings.Cut(name, "?")
			names[strings.TrimSuffix(name, filepath.Ext(name))] = true
		}
	}
	if len(urls) < 4 {
		t.Fatalf("the README shows %d counter addresses in its code; want the tags it teaches", len(urls))
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	// /metrics is no counter: it opens to the token of token metrics.
	metricsShown := names["metrics"]
	delete(names, "metrics")
	for name := range names {
		if out, err := exec.Command(bin, "create", name, "-db", db).CombinedOutput(); err != nil {
			t.Fatalf("create %s: %v\n%s", name, err, out)
		}
	}
	// A digit set a tag names (theme=NAME, not a colour scheme nor a
	// look) is added as the README says, from a folder of GIFs.
	sets := map[string]bool{}
	for _, u := range urls {
		_, query, _ := strings.Cut(u, "?")
		for _, kv := range strings.Split(query, "&") {
			if set, ok := strings.CutPrefix(kv, "theme="); ok && !slices.Contains([]string{"light", "dark", "auto"}, set) && !counter.IsLook(set) {
				sets[set] = true
			}
		}
	}
	for set := range sets {
		if out, err := exec.Command(bin, "theme", "add", set, digitFolder(t, true), "-db", db).CombinedOutput(); err != nil {
			t.Fatalf("theme add %s: %v\n%s", set, err, out)
		}
	}
	token := ""
	if metricsShown {
		out, err := exec.Command(bin, "token", "metrics", "-db", db).Output()
		if err != nil {
			t.Fatalf("token metrics: %v", err)
		}
		token = strings.TrimSpace(string(out))
	}
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "-db", db, "-addr", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	client := &http.Client{Timeout: 10 * time.Second}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := client.Get(base + "/"); err == nil {
			resp.Body.Close()
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not answer: %v", err)
		}
	}
	for _, u := range urls {
		req, err := http.NewRequest(http.MethodGet, base+u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if u == "/metrics" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			continue
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("X-Counter-Error") != "" {
			t.Errorf("the README's %s answers %d %q, want 200 and no error", u, resp.StatusCode, resp.Header.Get("X-Counter-Error"))
		}
	}
}

// codePath is a path into the module as the developers' guide names it in
// code: `cgi/web/router.go`, `./cgi/hit`, `testdata/format/`.
var codePath = regexp.MustCompile(`^(?:\./)?(?:cgi|counter|store|deploy|testdata)(?:/[A-Za-z0-9_.-]+)*/?$`)

// TestDevelopersGuide: deploy/README.md is a guide, not a notebook: short,
// and every file, folder and package it names in code is there.
func TestDevelopersGuide(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(kitDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 200 {
		t.Errorf("deploy/README.md has %d lines; the guide keeps to 200, results go to deploy/bench/RESULTS.md", n)
	}
	named := 0
	for _, piece := range code(string(b)) {
		for _, w := range strings.Fields(piece) {
			w = strings.Trim(w, "`,;:()")
			if !codePath.MatchString(w) {
				continue
			}
			named++
			if _, err := os.Stat(filepath.Join(repoRoot, w)); err != nil {
				t.Errorf("deploy/README.md names %s: %v", w, err)
			}
		}
	}
	if named < 20 {
		t.Errorf("deploy/README.md names %d paths in code; the guide is meant to point into the code", named)
	}
}

// TestMessagesNameCommandsThatRun: a message or page of the program that
// tells the owner to run a command names the one on PATH (counter, which
// the install links to the full tool), not counter.cgi, which is in
// cgi-bin and not on PATH: "sudo -u www-data counter.cgi passwd blog" is
// "command not found" as typed.
func TestMessagesNameCommandsThatRun(t *testing.T) {
	bin := buildCounter(t)
	help, _ := exec.Command(bin, "help").CombinedOutput()
	cmds := regexp.MustCompile(`(?m)^  counter ([a-z]+)`).FindAllStringSubmatch(string(help), -1)
	if len(cmds) < 10 {
		t.Fatalf("counter help lists %d commands:\n%s", len(cmds), help)
	}
	var names []string
	for _, m := range cmds {
		names = append(names, m[1])
	}
	offPath := regexp.MustCompile(`counter\.cgi (?:` + strings.Join(names, "|") + `)\b`)
	err := filepath.WalkDir(filepath.Join(repoRoot, "cgi"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := offPath.FindString(line); m != "" {
				t.Errorf("%s:%d tells the owner to run %q, which is not on PATH: name counter", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

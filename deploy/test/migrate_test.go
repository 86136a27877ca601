package test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// schemaNow is the schema version this tree writes.
const schemaNow = 8

// A release is a commit whose binary owners upgrade from, with the
// database its store wrote, committed and pinned by store's format tests.
type release struct {
	commit, file string
	schema       int

	once      sync.Once
	dir, path string
	err       error
}

var (
	// v1Release is the last commit whose binary wrote schema version 1.
	// Its file: home has 6 views and a password, blog 1002.
	v1Release = &release{commit: "bb08e9a74a1e5ef96226d5f6b351a4a96797dbf1", file: "testdata/format/counter-v1.db", schema: 1}
	// v2Release is the last commit whose binary wrote schema version 2.
	// Its file: blog has 502 views and a password, home 2.
	v2Release = &release{commit: "34be6391276d39068bd0a760ebb05196c662fc3e", file: "testdata/format/counter-v2.db", schema: 2}
	// v3Release is the last commit whose binary wrote schema version 3.
	// Its file: home has 4 views, blog is a site of 4 views and 3 visitors.
	v3Release = &release{commit: "e0689ac97f15ddda6174565fdf2d39eb5e04fcb9", file: "testdata/format/counter-v3.db", schema: 3}
	// v4Release is the last commit whose binary wrote schema version 4.
	// Its file: blog is a site of 407 views over 205 pages, 205 of them on
	// one day, more than a day keeps from schema 5 on.
	v4Release = &release{commit: "2d98455f88482bf8bff614b5cc3ffea46394b8d4", file: "testdata/format/counter-v4.db", schema: 4}
	// v5Release is the last commit whose binary wrote schema version 5.
	// Its file: blog is a site of 408 views with a trimmed day, home a
	// counter of 13 views with a password.
	v5Release = &release{commit: "8cfcf852e4c4341b6e8bdd0995b8c049944148fb", file: "testdata/format/counter-v5.db", schema: 5}
	// v6Release is a commit of main whose binary writes schema version 6,
	// the last before sources and titles (d717588, main when schema 7
	// was made). Its file (written by schema 6's store, store/
	// format_v6_test.go): site is a site of 8 views over 2 pages and
	// other pages, visits a counter of 16 views with a password, with
	// the day's hits in the today buckets.
	v6Release = &release{commit: "d717588a850bf60df6847e5213b51b6f73a4528f", file: "testdata/format/counter-v6.db", schema: 6}
)

// buildV1Counter builds the binary of v1Release.
func buildV1Counter(t testing.TB) string { return v1Release.build(t) }

// build builds the binary of the release from the repository's history,
// once per run, and returns its path.
func (b *release) build(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", fmt.Sprintf("counter-v%d-", b.schema)); b.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		src := filepath.Join(b.dir, "src")
		if b.err = os.Mkdir(src, 0o755); b.err != nil {
			return
		}
		archive := exec.CommandContext(ctx, "git", "-C", repoRoot, "archive", "--format=tar", b.commit)
		untar := exec.CommandContext(ctx, "tar", "-x", "-C", src)
		var gitErr bytes.Buffer
		archive.Stderr = &gitErr
		if untar.Stdin, b.err = archive.StdoutPipe(); b.err != nil {
			return
		}
		if b.err = untar.Start(); b.err != nil {
			return
		}
		if err := archive.Run(); err != nil {
			untar.Wait()
			b.err = fmt.Errorf("git archive %s (the test needs the repository's history): %v\n%s", b.commit, err, gitErr.String())
			return
		}
		if b.err = untar.Wait(); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, fmt.Sprintf("counter-v%d.cgi", b.schema))
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", b.path, "./cgi")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH, "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("build the v%d binary: %v\n%s", b.schema, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// copyV1File copies the committed version 1 database into a fresh folder.
func copyV1File(t testing.TB) string { return v1Release.copyFile(t) }

// copyFile copies the release's committed database into a fresh folder.
func (b *release) copyFile(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, b.file))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "counter.db")
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return db
}

// browserEnv is the CGI environment of a browser's hit on /NAME.png.
func browserEnv(db, name, addr string) []string {
	return []string{
		"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=GET", "SERVER_PROTOCOL=HTTP/1.1",
		"SCRIPT_NAME=/cgi-bin/counter.cgi", "PATH_INFO=/" + name + ".png", "REQUEST_URI=/cgi-bin/counter.cgi/" + name + ".png",
		"HTTP_HOST=127.0.0.1", "REMOTE_ADDR=" + addr, "HTTP_USER_AGENT=" + firefoxUA,
		"COUNTER_DB=" + db, "COUNTER_RUN_DIR=" + filepath.Join(filepath.Dir(db), "run"), "COUNTER_WAIT=10s",
	}
}

// firefoxUA is a browser's User-Agent, which counts.
const firefoxUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// runBin runs bin with env and args and returns its stdout, its stderr
// and its error.
func runBin(t testing.TB, bin string, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = testenv.OwnRunDir(t, env)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

func fileSum(t testing.TB, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

var schemaLine = regexp.MustCompile(`schema (\d+)`)

// checkFile runs bin's check on db and returns the schema it reports.
func checkFile(t testing.TB, bin, db string) int {
	t.Helper()
	out, errOut, err := runBin(t, bin, []string{"COUNTER_DB=" + db}, "check")
	if err != nil {
		t.Fatalf("check: %v\n%s%s", err, out, errOut)
	}
	m := schemaLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("check names no schema:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestMigrateV1File upgrades the database of the previous release: the new
// binary reads it, migrates it on its first hit with no count lost, and
// the old binary then refuses the migrated file with its "newer version"
// error, changing nothing.
func TestMigrateV1File(t *testing.T) {
	bin, old := buildCounter(t), buildV1Counter(t)
	db := copyV1File(t)

	if out, errOut, err := runBin(t, old, []string{"COUNTER_DB=" + db}, "list"); err != nil || !strings.Contains(out, "home") {
		t.Fatalf("the v1 binary's list of its own file: %v\n%s%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != 1 {
		t.Errorf("check by the new binary, before any hit: schema %d, want 1 (reads need no migration)", n)
	}
	// A backup of the version 1 file is the version 1 file, checked.
	backup := filepath.Join(t.TempDir(), "backup-v1.db")
	if out, errOut, err := runBin(t, bin, []string{"COUNTER_DB=" + db}, "backup", backup); err != nil || !strings.Contains(out, "checked") {
		t.Errorf("backup of the v1 file by the new binary: %v\n%s%s", err, out, errOut)
	} else if n := checkFile(t, bin, backup); n != 1 {
		t.Errorf("the backup of the v1 file is schema %d, want 1", n)
	}
	out, errOut, err := runBin(t, bin, browserEnv(db, "home", "192.0.2.10"))
	if err != nil || !strings.HasPrefix(out, "Status: 200") || errOut != "" {
		t.Fatalf("first hit by the new binary: %v\n%.200q\n%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != schemaNow {
		t.Errorf("after the first hit: schema %d, want %d", n, schemaNow)
	}
	for name, want := range map[string]string{"home": "7", "blog": "1002"} {
		if got := jsonCountWith(t, bin, db, name); got != want {
			t.Errorf("%s after the migration: %s, want %s", name, got, want)
		}
	}

	before := fileSum(t, db)
	out, errOut, err = runBin(t, old, browserEnv(db, "home", "192.0.2.11"))
	if err != nil || strings.HasPrefix(out, "Status: 200") || !strings.Contains(errOut, "newer version of the counter") {
		t.Errorf("a hit by the v1 binary on the migrated file: %v\n%.200q\nstderr %s\nwant a refusal naming the newer version", err, out, errOut)
	}
	for _, cmd := range []string{"check", "list"} {
		out, errOut, err := runBin(t, old, []string{"COUNTER_DB=" + db}, cmd)
		if err == nil || !strings.Contains(out+errOut, "newer version of the counter") {
			t.Errorf("%s by the v1 binary on the migrated file: %v\n%s%s\nwant it refused as newer", cmd, err, out, errOut)
		}
	}
	if fileSum(t, db) != before {
		t.Errorf("the v1 binary changed the migrated file")
	}
	if got := jsonCountWith(t, bin, db, "home"); got != "7" {
		t.Errorf("home after the v1 binary's attempts: %s, want 7", got)
	}
	if _, errOut, err := runBin(t, bin, []string{"COUNTER_DB=" + db}, "check"); err != nil {
		t.Errorf("check after all: %v\n%s", err, errOut)
	}
	backup2 := filepath.Join(t.TempDir(), "backup-v2.db")
	if out, errOut, err := runBin(t, bin, []string{"COUNTER_DB=" + db}, "backup", backup2); err != nil || !strings.Contains(out, "checked") {
		t.Errorf("backup of the migrated file: %v\n%s%s", err, out, errOut)
	} else if n := checkFile(t, bin, backup2); n != schemaNow {
		t.Errorf("the backup of the migrated file is schema %d, want %d", n, schemaNow)
	}
}

// TestMigrateV2File upgrades the database of the version 2 release: the
// new binary reads it, migrates it on its first hit with every counter as
// it was, makes a site in it, and the version 2 binary then refuses the
// migrated file, changing nothing.
func TestMigrateV2File(t *testing.T) {
	bin, old := buildCounter(t), v2Release.build(t)
	db := v2Release.copyFile(t)
	env := []string{"COUNTER_DB=" + db}
	listed, errOut, err := runBin(t, old, env, "list")
	if err != nil || !strings.Contains(listed, "blog") {
		t.Fatalf("the v2 binary's list of its own file: %v\n%s%s", err, listed, errOut)
	}
	if n := checkFile(t, bin, db); n != 2 {
		t.Errorf("check by the new binary, before any hit: schema %d, want 2", n)
	}
	if out, errOut, err := runBin(t, bin, env, "list"); err != nil || out != listed {
		t.Errorf("the new binary lists the v2 file otherwise (%v):\n%s%s\nthe v2 binary:\n%s", err, out, errOut, listed)
	}
	out, errOut, err := runBin(t, bin, browserEnv(db, "home", "192.0.2.10"))
	if err != nil || !strings.HasPrefix(out, "Status: 200") || errOut != "" {
		t.Fatalf("first hit by the new binary: %v\n%.200q\n%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != schemaNow {
		t.Errorf("after the first hit: schema %d, want %d", n, schemaNow)
	}
	// blog shows its visitors, home its views.
	for name, want := range map[string]string{"home": "3", "blog": "1"} {
		if got := jsonCountWith(t, bin, db, name); got != want {
			t.Errorf("%s after the migration: %s, want %s", name, got, want)
		}
	}
	if out, errOut, err := runBin(t, bin, env, "create", "site", "-site", "-hosts", "blog.example"); err != nil {
		t.Fatalf("a site in the migrated file: %v\n%s%s", err, out, errOut)
	}
	before := fileSum(t, db)
	out, errOut, err = runBin(t, old, browserEnv(db, "home", "192.0.2.11"))
	if err != nil || strings.HasPrefix(out, "Status: 200") || !strings.Contains(errOut, "newer version of the counter") {
		t.Errorf("a hit by the v2 binary on the migrated file: %v\n%.200q\nstderr %s\nwant a refusal naming the newer version", err, out, errOut)
	}
	if out, errOut, err := runBin(t, old, env, "list"); err == nil || !strings.Contains(out+errOut, "newer version of the counter") {
		t.Errorf("list by the v2 binary on the migrated file: %v\n%s%s\nwant it refused as newer", err, out, errOut)
	}
	if fileSum(t, db) != before {
		t.Errorf("the v2 binary changed the migrated file")
	}
	if _, errOut, err := runBin(t, bin, env, "check"); err != nil {
		t.Errorf("check after all: %v\n%s", err, errOut)
	}
}

// jsonCountWith reads a counter's count through bin's /NAME.json.
func jsonCountWith(t testing.TB, bin, db, name string) string {
	t.Helper()
	env := browserEnv(db, name, "192.0.2.1")
	env = append(env, "PATH_INFO=/"+name+".json")
	out, errOut, err := runBin(t, bin, env)
	if err != nil {
		t.Fatalf("%s.json: %v\n%s", name, err, errOut)
	}
	m := regexp.MustCompile(`"count":(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s.json: %q", name, out)
	}
	return m[1]
}

// TestMigrationKilled kills the new binary's first hit on a version 1 file
// with SIGKILL at random moments, from before it opens the file to after
// it answers. Whatever the moment, the file is then either still version
// 1 or wholly version 2, check passes, and the next hit migrates (if need
// be) and counts, with no count lost: home's 6 views, plus the killed
// hit if it committed, plus the next.
func TestMigrationKilled(t *testing.T) {
	const rounds = 60
	bin := buildCounter(t)
	// The kill times span a whole hit, measured here.
	var took []time.Duration
	for range 5 {
		db := copyV1File(t)
		start := time.Now()
		if _, errOut, err := runBin(t, bin, browserEnv(db, "home", "192.0.2.10")); err != nil {
			t.Fatalf("hit: %v\n%s", err, errOut)
		}
		took = append(took, time.Since(start))
	}
	window := 2 * slicesMedian(took)
	r := rand.New(rand.NewPCG(1, 2))
	stillV1, migrated := 0, 0
	for i := range rounds {
		db := copyV1File(t)
		cmd := exec.Command(bin)
		cmd.Env = browserEnv(db, "home", "192.0.2.10")
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int64N(int64(window))))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		answered := strings.HasPrefix(out.String(), "Status: 200")

		switch n := checkFile(t, bin, db); n {
		case 1:
			stillV1++
			if answered {
				t.Errorf("round %d: the hit was answered but the file is still version 1", i)
			}
		case schemaNow:
			migrated++
		default:
			t.Fatalf("round %d: schema %d after the kill", i, n)
		}
		before, _ := strconv.Atoi(jsonCountWith(t, bin, db, "home"))
		if before != 6 && before != 7 || answered && before != 7 {
			t.Errorf("round %d: home at %d after the kill (answered %v); want 6, or 7 if the hit committed", i, before, answered)
		}
		if _, errOut, err := runBin(t, bin, browserEnv(db, "home", "192.0.2.20")); err != nil {
			t.Fatalf("round %d: the next hit: %v\n%s", i, err, errOut)
		}
		if n := checkFile(t, bin, db); n != schemaNow {
			t.Errorf("round %d: schema %d after the next hit, want %d", i, n, schemaNow)
		}
		if got, _ := strconv.Atoi(jsonCountWith(t, bin, db, "home")); got != before+1 {
			t.Errorf("round %d: home at %d after the next hit, want %d", i, got, before+1)
		}
	}
	t.Logf("migration killed %d times (kill times up to %v): %d files left at version 1, %d migrated; every one checked and counted on", rounds, window.Round(time.Millisecond), stillV1, migrated)
	if stillV1 == 0 || migrated == 0 {
		t.Errorf("the kills all fell on one side of the migration's commit (%d v1, %d v2): the test proved nothing", stillV1, migrated)
	}
}

func slicesMedian(d []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(d))
	return s[len(s)/2]
}

// TestMigrateV3File is the version 3 release's file under this binary: it
// reads it, migrates it on its first hit with every counter as it was and
// the hit's costs kept, and the version 3 binary then refuses the migrated
// file, changing nothing.
func TestMigrateV3File(t *testing.T) {
	bin, old := buildCounter(t), v3Release.build(t)
	db := v3Release.copyFile(t)
	env := []string{"COUNTER_DB=" + db}
	listed, errOut, err := runBin(t, old, env, "list")
	if err != nil || !strings.Contains(listed, "blog") {
		t.Fatalf("the v3 binary's list of its own file: %v\n%s%s", err, listed, errOut)
	}
	if n := checkFile(t, bin, db); n != 3 {
		t.Errorf("check by the new binary, before any hit: schema %d, want 3", n)
	}
	if out, errOut, err := runBin(t, bin, env, "list"); err != nil || out != listed {
		t.Errorf("the new binary lists the v3 file otherwise (%v):\n%s%s\nthe v3 binary:\n%s", err, out, errOut, listed)
	}
	runDir := t.TempDir()
	hit := append(browserEnv(db, "home", "192.0.2.10"), "COUNTER_RUN_DIR="+runDir)
	out, errOut, err := runBin(t, bin, hit)
	if err != nil || !strings.HasPrefix(out, "Status: 200") || errOut != "" {
		t.Fatalf("first hit by the new binary: %v\n%.200q\n%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != schemaNow {
		t.Errorf("after the first hit: schema %d, want %d", n, schemaNow)
	}
	for name, want := range map[string]string{"home": "5", "blog": "3"} {
		if got := jsonCountWith(t, bin, db, name); got != want {
			t.Errorf("%s after the migration: %s, want %s", name, got, want)
		}
	}
	if out, _, err := runBin(t, bin, append(env, "COUNTER_RUN_DIR="+runDir), "costs"); err != nil || !strings.Contains(out, " hit ") {
		t.Errorf("costs after the first hit: %v\n%s", err, out)
	}
	before := fileSum(t, db)
	out, errOut, err = runBin(t, old, browserEnv(db, "home", "192.0.2.11"))
	if err != nil || strings.HasPrefix(out, "Status: 200") || !strings.Contains(errOut, "newer version of the counter") {
		t.Errorf("a hit by the v3 binary on the migrated file: %v\n%.200q\nstderr %s\nwant a refusal naming the newer version", err, out, errOut)
	}
	if fileSum(t, db) != before {
		t.Errorf("the v3 binary changed the migrated file")
	}
	if _, errOut, err := runBin(t, bin, env, "check"); err != nil {
		t.Errorf("check after all: %v\n%s", err, errOut)
	}
}

// TestMigrateV4File: the schema 4 release's file, read by this tree's
// binary as it was, moved to schema 5 by the first hit with no count
// changed and its crowded day trimmed, then refused by the old binary.
func TestMigrateV4File(t *testing.T) {
	bin, old := buildCounter(t), v4Release.build(t)
	db := v4Release.copyFile(t)
	env := []string{"COUNTER_DB=" + db}
	listed, errOut, err := runBin(t, old, env, "list")
	if err != nil || !strings.Contains(listed, "blog") {
		t.Fatalf("the v4 binary's list of its own file: %v\n%s%s", err, listed, errOut)
	}
	if n := checkFile(t, bin, db); n != 4 {
		t.Errorf("check by the new binary, before any hit: schema %d, want 4", n)
	}
	if out, errOut, err := runBin(t, bin, env, "list"); err != nil || out != listed {
		t.Errorf("the new binary lists the v4 file otherwise (%v):\n%s%s\nthe v4 binary:\n%s", err, out, errOut, listed)
	}
	pagesBefore, errOut, err := runBin(t, bin, env, "pages", "blog")
	if err != nil {
		t.Fatalf("pages blog: %v\n%s", err, errOut)
	}
	out, errOut, err := runBin(t, bin, browserEnv(db, "blog", "192.0.2.10"))
	if err != nil || !strings.HasPrefix(out, "Status: 200") {
		t.Fatalf("first hit by the new binary: %v\n%.200q\n%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != schemaNow {
		t.Errorf("after the first hit: schema %d, want %d", n, schemaNow)
	}
	if got := jsonCountWith(t, bin, db, "blog"); got != "408" {
		t.Errorf("blog after the migration and a hit: %s, want 408", got)
	}
	// Trimming the crowded day moves page days, never a page's total.
	if pagesAfter, _, _ := runBin(t, bin, env, "pages", "blog"); pagesAfter != pagesBefore {
		t.Errorf("pages blog after the migration:\n%s\nbefore:\n%s", pagesAfter, pagesBefore)
	}
	before := fileSum(t, db)
	out, errOut, err = runBin(t, old, browserEnv(db, "blog", "192.0.2.11"))
	if err != nil || strings.HasPrefix(out, "Status: 200") || !strings.Contains(errOut, "newer version of the counter") {
		t.Errorf("a hit by the v4 binary on the migrated file: %v\n%.200q\nstderr %s\nwant a refusal naming the newer version", err, out, errOut)
	}
	if fileSum(t, db) != before {
		t.Errorf("the v4 binary changed the migrated file")
	}
	if _, errOut, err := runBin(t, bin, env, "check"); err != nil {
		t.Errorf("check after all: %v\n%s", err, errOut)
	}
}

// TestMigrateV5File: the schema 5 release's file, read by this tree's
// binary as it was, moved to the current schema by the first hit with no
// count changed; a set added to it and made a counter's own; then refused by
// the old binary.
func TestMigrateV5File(t *testing.T) {
	bin, old := buildCounter(t), v5Release.build(t)
	db := v5Release.copyFile(t)
	env := []string{"COUNTER_DB=" + db}
	listed, errOut, err := runBin(t, old, env, "list")
	if err != nil || !strings.Contains(listed, "home") {
		t.Fatalf("the v5 binary's list of its own file: %v\n%s%s", err, listed, errOut)
	}
	if out, errOut, err := runBin(t, bin, env, "list"); err != nil || out != listed {
		t.Errorf("the new binary lists the v5 file otherwise (%v):\n%s%s\nthe v5 binary:\n%s", err, out, errOut, listed)
	}
	out, errOut, err := runBin(t, bin, browserEnv(db, "blog", "192.0.2.10"))
	if err != nil || !strings.HasPrefix(out, "Status: 200") {
		t.Fatalf("first hit by the new binary: %v\n%.200q\n%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != schemaNow {
		t.Errorf("after the first hit: schema %d, want %d", n, schemaNow)
	}
	if got := jsonCountWith(t, bin, db, "blog"); got != "409" {
		t.Errorf("blog after the migration and a hit: %s, want 409", got)
	}
	for _, args := range [][]string{{"theme", "add", "moe", digitFolder(t, true)}, {"config", "blog", "theme=moe"}} {
		if out, errOut, err := runBin(t, bin, env, args...); err != nil {
			t.Fatalf("%s on the migrated file: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
		}
	}
	out, errOut, err = runBin(t, bin, browserEnv(db, "blog", "192.0.2.11"))
	if err != nil || !strings.HasPrefix(out, "Status: 200") {
		t.Fatalf("a hit in the set: %v\n%.200q\n%s", err, out, errOut)
	}
	before := fileSum(t, db)
	out, errOut, err = runBin(t, old, browserEnv(db, "blog", "192.0.2.12"))
	if err != nil || strings.HasPrefix(out, "Status: 200") || !strings.Contains(errOut, "newer version of the counter") {
		t.Errorf("a hit by the v5 binary on the migrated file: %v\n%.200q\nstderr %s\nwant a refusal naming the newer version", err, out, errOut)
	}
	if fileSum(t, db) != before {
		t.Errorf("the v5 binary changed the migrated file")
	}
	if out, errOut, err := runBin(t, bin, env, "check"); err != nil || !strings.Contains(out, "1 digit set(s)") {
		t.Errorf("check after all: %v\n%s%s", err, out, errOut)
	}
}

// TestMigrateV6File: the schema 6 release's file, read by this tree's
// binary as it was, moved to schema 7 by the first hit with no count
// changed; titles stored for its site from Hugo's feed; then refused by
// the old binary, which would not see the sources' rows.
func TestMigrateV6File(t *testing.T) {
	bin, old := buildCounter(t), v6Release.build(t)
	db := v6Release.copyFile(t)
	env := []string{"COUNTER_DB=" + db}
	listed, errOut, err := runBin(t, old, env, "list")
	if err != nil || !strings.Contains(listed, "visits") {
		t.Fatalf("the v6 binary's list of its own file: %v\n%s%s", err, listed, errOut)
	}
	if out, errOut, err := runBin(t, bin, env, "list"); err != nil || out != listed {
		t.Errorf("the new binary lists the v6 file otherwise (%v):\n%s%s\nthe v6 binary:\n%s", err, out, errOut, listed)
	}
	site := jsonCountWith(t, bin, db, "site")
	out, errOut, err := runBin(t, bin, browserEnv(db, "home", "192.0.2.10"))
	if err != nil || !strings.HasPrefix(out, "Status: 200") {
		t.Fatalf("first hit by the new binary: %v\n%.200q\n%s", err, out, errOut)
	}
	if n := checkFile(t, bin, db); n != schemaNow {
		t.Errorf("after the first hit: schema %d, want %d", n, schemaNow)
	}
	if got := jsonCountWith(t, bin, db, "home"); got != "101" {
		t.Errorf("home after the migration and a hit: %s, want 101", got)
	}
	if got := jsonCountWith(t, bin, db, "site"); got != site {
		t.Errorf("site after the migration: %s, want %s as before", got, site)
	}
	feed := filepath.Join(repoRoot, "testdata", "feeds", "hugo-index.xml")
	if out, errOut, err := runBin(t, bin, env, "titles", "site", feed); err != nil || !strings.Contains(out, "site: 3 titles") {
		t.Fatalf("titles on the migrated file: %v\n%s%s", err, out, errOut)
	}
	before := fileSum(t, db)
	out, errOut, err = runBin(t, old, browserEnv(db, "home", "192.0.2.12"))
	if err != nil || strings.HasPrefix(out, "Status: 200") || !strings.Contains(errOut, "newer version of the counter") {
		t.Errorf("a hit by the v6 binary on the migrated file: %v\n%.200q\nstderr %s\nwant a refusal naming the newer version", err, out, errOut)
	}
	if fileSum(t, db) != before {
		t.Errorf("the v6 binary changed the migrated file")
	}
	if out, errOut, err := runBin(t, bin, env, "check"); err != nil {
		t.Errorf("check after all: %v\n%s%s", err, out, errOut)
	}
}

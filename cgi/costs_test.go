package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/meter"
	"hitcounter/cgi/testenv"
	"hitcounter/store"
)

// TestSlowCommitIsReported slows the database's commits on purpose and
// checks that the owner hears of it in the three places issue 17 names:
// one line in the error log, the statistics page's panel, and doctor.
//
// The commits are slowed from outside, on the real binary: strace delays
// the return of every fdatasync by 40 ms (an SD card on its last legs).
// The history holds the 14 days before, steady, folded as the counter
// folds them. The slow hits are today's; their day's file is then renamed
// to yesterday's, as if they had come yesterday, so that the next hit,
// the first of "today", folds it and judges it.
func TestSlowCommitIsReported(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		testenv.Need(t, "strace (apt-get install strace)")
	}
	dir := t.TempDir()
	db, runDir := filepath.Join(dir, "counter.db"), filepath.Join(dir, "run")
	if err := os.Mkdir(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := adminRun(t, db, "create", "slow", "reload=off"); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	now := time.Now().UTC()
	yesterday := now.AddDate(0, 0, -1).Format(time.DateOnly)
	// The 14 days before yesterday: commits of 1 ms, p99 3 ms.
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var steady []meter.Day
	for i := 15; i >= 2; i-- {
		d := meter.Day{Date: now.AddDate(0, 0, -i).Format(time.DateOnly), Build: "before"}
		d.Kinds[meter.Hit] = meter.Figures{Count: 400, Wall: [3]time.Duration{3 * time.Millisecond, 4 * time.Millisecond, 6 * time.Millisecond}}
		d.Kinds[meter.Commit] = meter.Figures{Count: 400, Wall: [3]time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}}
		steady = append(steady, d)
	}
	if _, err := s.FoldCosts(steady, now.AddDate(0, 0, -1)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	hit := func(i int, slow bool) string {
		env := cgiHitEnv(db, runDir, visitorN(i))
		env = append(env, "PATH_INFO=/slow.png", "REQUEST_URI=/cgi-bin/counter.cgi/slow.png")
		args := []string{counterBinary(t)}
		if slow {
			args = append([]string{strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=fdatasync,fsync",
				"-e", "inject=fdatasync,fsync:delay_exit=40000"}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = testenv.OwnRunDir(t, env)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil || !bytes.HasPrefix(out.Bytes(), []byte("Status: 200")) {
			t.Fatalf("hit %d: %v, %.80q, stderr %s", i, err, out.Bytes(), errOut.String())
		}
		return errOut.String()
	}
	for i := range 30 {
		hit(i, true)
	}
	today := filepath.Join(runDir, "costs-"+now.Format(time.DateOnly))
	if err := os.Rename(today, filepath.Join(runDir, "costs-"+yesterday)); err != nil {
		t.Fatalf("the slow day's file: %v", err)
	}
	// The first hit of the day folds yesterday's, and says so in the log.
	stderr := hit(100, false)
	t.Logf("the error log: %s", stderr)
	// Yesterday's warnings, in as few lines as the log's bound holds,
	// each line dated and pointing at doctor; one is the commit's p50.
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	commit := ""
	for _, l := range lines {
		if !strings.HasPrefix(l, "counter: costs: "+yesterday+": ") || !strings.HasSuffix(l, " (counter doctor)") || len(l)+1 > logline.MaxLine {
			t.Fatalf("the log after the fold:\n%s\nwant lines of yesterday's warnings", stderr)
		}
		if strings.Contains(l, "commit p50 was ") {
			commit = l
		}
	}
	if commit == "" || len(lines) > 4 {
		t.Fatalf("the log after the fold:\n%s\nwant yesterday's commit p50, in a few lines", stderr)
	}
	// Folded once: the next hit logs nothing more.
	if again := hit(101, false); strings.Contains(again, "costs") {
		t.Errorf("the next hit logged the warning again: %s", again)
	}
	// The warning kept, as the panel and doctor show it.
	_, msg, _ := strings.Cut(commit, "commit p50 was ")
	msg, _, _ = strings.Cut(msg, ";")
	msg = strings.TrimSuffix(msg, " (counter doctor)")
	msg = yesterday + ": commit p50 was " + msg

	// The statistics page: the panel, with the warning.
	env := cgiHitEnv(db, runDir, visitorN(200))
	env = append(env, "PATH_INFO=/slow/stats", "REQUEST_URI=/cgi-bin/counter.cgi/slow/stats")
	page, _ := runCGI(t, env)
	body := string(page.body)
	if page.status != 200 || !strings.Contains(body, "What this counter costs on this machine") {
		t.Fatalf("stats page %d without the costs panel", page.status)
	}
	if !strings.Contains(body, htmlEscape(msg)) {
		t.Errorf("the stats page does not show the warning %q", msg)
	}
	// doctor.
	cmd := exec.Command(counterBinary(t), "doctor", "-db", db, "-socket", filepath.Join(dir, "none.sock"))
	cmd.Env = []string{"COUNTER_RUN_DIR=" + runDir, "PATH=" + os.Getenv("PATH")}
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "WARNING: "+msg) || !strings.Contains(string(out), "commit p50") {
		t.Errorf("doctor does not report it:\n%s", out)
	}
	// And costs -json has the folded day.
	cmd = exec.Command(counterBinary(t), "costs", "-json", "-db", db)
	cmd.Env = []string{"COUNTER_RUN_DIR=" + runDir}
	js, err := cmd.Output()
	if err != nil || !bytes.Contains(js, []byte(`{"date":"`+yesterday+`","folded":true`)) || !bytes.Contains(js, []byte(`"commit":{"count":30,`)) {
		t.Errorf("costs -json: %v\n%s", err, js)
	}
}

// htmlEscape escapes s as the pages do.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/counter"
	"hitcounter/store"
)

// seedHistory fills the file at path with a plain counter "blog", made
// with a start a year ago, and a site "www" for blog.example, each with
// views, visitors, hits not counted of every kind and referrers over the
// last hundred days.
func seedHistory(t *testing.T, path string) {
	t.Helper()
	db, err := store.Open(path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC()
	if err := db.CreateWith("blog", 100, now.AddDate(-1, 0, 0), counter.DefaultSettings()); err != nil {
		t.Fatal(err)
	}
	site, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateWith("www", 0, now.AddDate(0, -4, 0), site); err != nil {
		t.Fatal(err)
	}
	kinds := append([]counter.Kind{counter.View, counter.View, counter.GitHub}, counter.NotCountedKinds[:]...)
	var visits []store.Visit
	for i := range 700 {
		at := now.AddDate(0, 0, -(i*7)%100).Add(-time.Duration(i) * time.Second)
		o := counter.Outcome{Kind: kinds[i%len(kinds)], NewVisitor: i%3 == 0, PageVisitor: i%3 == 0}
		o.NewVisitor = o.NewVisitor && o.Kind == counter.View
		ref := []string{"", "news.example", "blog.example", "forum.example"}[i%4]
		visits = append(visits,
			store.Visit{Name: "blog", Now: at, RefHost: ref, Outcome: o},
			store.Visit{Name: "www", Now: at, RefHost: "blog.example", Target: []string{"/", "/posts/caf%C3%A9/", "/a,b", "/about"}[i%4], Outcome: o})
	}
	for len(visits) > 0 {
		n := min(len(visits), 100)
		if _, err := db.VisitAll(visits[:n]); err != nil {
			t.Fatal(err)
		}
		visits = visits[n:]
	}
}

// get answers a GET of path from the binary run as CGI on the file db.
func get(t *testing.T, db, path string) []byte {
	t.Helper()
	ans, stderr := runCGI(t, append(hitEnv(t, db), "PATH_INFO="+path, "REQUEST_METHOD=GET", "QUERY_STRING="))
	if ans.status != 200 {
		t.Fatalf("GET %s: %d %s", path, ans.status, stderr)
	}
	return ans.body
}

// TestExportImportRoundTrip exports a plain counter and a site on one
// machine and imports them on another: the exports and the statistics
// pages come out byte for byte the same, and a second import changes
// nothing.
func TestExportImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "from", "counter.db"), filepath.Join(dir, "to", "counter.db")
	for _, d := range []string{filepath.Dir(from), filepath.Dir(to)} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seedHistory(t, from)
	// The site's hosts are its owner's to say on the new machine.
	if out, err := adminRun(t, to, "create", "www", "-site", "-hosts", "blog.example"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	for _, name := range []string{"blog", "www"} {
		exported := get(t, from, "/"+name+"/stats.json")
		file := filepath.Join(dir, name+"-daily.json")
		if err := os.WriteFile(file, exported, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := adminRun(t, to, "import", "-dry-run", file)
		if err != nil || !strings.Contains(out, "dry run: nothing changed") {
			t.Fatalf("import -dry-run %s: %v\n%s", name, err, out)
		}
		if again := get(t, to, "/www/stats.json"); name == "blog" && bytes.Contains(again, []byte(`"days":[{`)) {
			t.Fatalf("the dry run imported days")
		}
		if out, err := adminRun(t, to, "import", file); err != nil || !strings.Contains(out, "imported "+file) {
			t.Fatalf("import %s: %v\n%s", name, err, out)
		}
		if got := get(t, to, "/"+name+"/stats.json"); !bytes.Equal(got, exported) {
			t.Errorf("%s: stats.json after the round trip differs:\n%s\nwant\n%s", name, got, exported)
		}
		if got, want := get(t, to, "/"+name+"/stats"), get(t, from, "/"+name+"/stats"); !bytes.Equal(got, want) {
			t.Errorf("%s: the statistics page after the round trip differs", name)
		}
		if got, want := get(t, to, "/"+name+"/stats.csv"), get(t, from, "/"+name+"/stats.csv"); !bytes.Equal(got, want) {
			t.Errorf("%s: stats.csv after the round trip differs", name)
		}
		out, err = adminRun(t, to, "import", file)
		if err != nil || !strings.Contains(out, "nothing to change") {
			t.Errorf("second import of %s: %v\n%s", name, err, out)
		}
	}
	// The CSV alone carries the days, into a counter named on the command line.
	csv := filepath.Join(dir, "blog-daily.csv")
	if err := os.WriteFile(csv, get(t, from, "/blog/stats.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := adminRun(t, to, "import", "-name", "copy", csv); err != nil {
		t.Fatalf("import -name copy: %v\n%s", err, out)
	}
	if got, want := get(t, to, "/copy/stats.csv"), get(t, from, "/blog/stats.csv"); !bytes.Equal(got, want) {
		t.Errorf("stats.csv of the copy differs:\n%s\nwant\n%s", got, want)
	}
}

// TestImportCommand runs the import command on the formats that name no
// counter or many, and on files it must refuse whole.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	counterTxt := write("counter.txt", "\xef\xbb\xbf12345\r\n")
	counts := write("counts.txt", "# name count\r\nblog 700\r\nnews\t18446744073709551615\r\n")
	bad := write("bad.txt", "blog 800\nnews 5\nshop x\n")
	for _, tc := range []struct {
		args []string
		ok   bool
		out  string
	}{
		{[]string{"import", counterTxt}, false, "does not say which counter it is: add -name NAME"},
		{[]string{"import", "-name", "blog", "-dry-run", counterTxt}, true, "dry run: nothing changed"},
		{[]string{"import", "-name", "blog", counterTxt}, true, "views: 0 -> 12345"},
		{[]string{"import", "-name", "blog", counterTxt}, true, "nothing to change"},
		{[]string{"import", counts}, true, "views: 12345 -> 12345"},
		{[]string{"import", "-name", "x", counts}, false, "-name is for a file of one"},
		{[]string{"import", bad}, false, "line 3"},
		{[]string{"import", "-path", "/", counts}, false, "-path is for access logs"},
		{[]string{"import", "-log", counts, "-name", "blog", "blog"}, false, "not -name"},
		{[]string{"import", filepath.Join(dir, "missing.txt")}, false, "no such file"},
	} {
		out, err := adminRun(t, db, tc.args...)
		if (err == nil) != tc.ok || !strings.Contains(out, tc.out) {
			t.Errorf("counter.cgi %s: %v\n%s\nwant ok=%v and %q", strings.Join(tc.args, " "), err, out, tc.ok, tc.out)
		}
	}
	out, err := adminRun(t, db, "list")
	if err != nil || !strings.Contains(out, "news  18446744073709551615") || !strings.Contains(out, "blog  12345") {
		t.Errorf("list after the imports: %v\n%s", err, out)
	}
	// A refused file changes nothing: blog is not 800 and shop not made.
	if strings.Contains(out, "800") || strings.Contains(out, "shop") {
		t.Errorf("a refused file changed the database:\n%s", out)
	}
}

// TestImportQuotesNoUnreadableFile imports files with a bad line whose
// field starts with a terminal's escape sequences: the refusal names the
// line and quotes an escaped excerpt of the field, or, when the person
// who ran the command with sudo may not read the file, nothing of it.
func TestImportQuotesNoUnreadableFile(t *testing.T) {
	if os.Getuid() == 33 || os.Getgid() == 33 {
		t.Skip("the test runs as the user that stands for another, 33")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "counter.db")
	if out, err := adminRun(t, db, "create", "blog"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	field := "\x1b]0;owned\x07\x1b[2J" + strings.Repeat("x", 500)
	write := func(name, content string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	counts := "blog 1\nshop " + field + "\n"
	log := `198.51.100.1 - - [` + field + `] "GET / HTTP/1.1" 200 5 "-" "Mozilla/5.0"` + "\n"
	sudo := []string{"SUDO_UID=33", "SUDO_GID=33"} // www-data, who may not read a file of 0600
	for _, tc := range []struct {
		name  string
		args  []string
		env   []string
		stdin string
		line  string
		quote bool
	}{
		{"private, run with sudo", []string{"import", write("private.txt", counts, 0o600)}, sudo, "", "line 2: the count is not a whole number", false},
		{"private to another group", []string{"import", write("group.txt", counts, 0o640)}, sudo, "", "line 2: the count is not a whole number", false},
		{"private, run by its owner", []string{"import", write("own.txt", counts, 0o600)}, nil, "", "line 2: the count is not a whole number", true},
		{"for all, run with sudo", []string{"import", write("public.txt", counts, 0o644)}, sudo, "", "line 2: the count is not a whole number", true},
		{"stdin, run with sudo", []string{"import", "-"}, sudo, counts, "line 2: the count is not a whole number", true},
		{"a private log, run with sudo", []string{"import", "-log", write("access.log", log, 0o600), "-path", "/", "blog"}, sudo, "", "line 1: the time is not one like", false},
		{"a log for all, run with sudo", []string{"import", "-log", write("public.log", log, 0o644), "-path", "/", "blog"}, sudo, "", "line 1: the time is not one like", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(counterBinary(t), tc.args...)
			cmd.Env = testenv.OwnRunDir(t, append([]string{"COUNTER_DB=" + db}, tc.env...))
			cmd.Stdin = strings.NewReader(tc.stdin)
			b, err := cmd.CombinedOutput()
			out := string(b)
			if err == nil || !strings.Contains(out, tc.line) {
				t.Fatalf("%v\n%q\nwant a refusal of %s", err, out, tc.line)
			}
			if strings.ContainsAny(out, "\x1b\x07") {
				t.Errorf("the control characters of the file reached the output: %q", out)
			}
			// The excerpt: escaped, and cut at 40 bytes.
			excerpt := strings.Contains(out, `\x1b]0;owned\a\x1b[2Jxxx`) && strings.Contains(out, `xxx"...`)
			if excerpt != tc.quote || strings.Contains(out, strings.Repeat("x", 27)) {
				t.Errorf("quotes the excerpt: %v, want %v\n%s", excerpt, tc.quote, out)
			}
			if !tc.quote && (strings.Contains(out, "owned") || strings.Contains(out, "shop") || strings.Contains(out, "xxx")) {
				t.Errorf("quotes the file:\n%s", out)
			}
		})
	}
}

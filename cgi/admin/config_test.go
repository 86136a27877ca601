package admin

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/counter"
	"hitcounter/store"
)

var testNow = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// runAdmin runs an admin command on the database db, at testNow, and
// returns what it wrote to stdout.
func runAdmin(tb testing.TB, db string, args ...string) (string, error) {
	tb.Helper()
	getenv := func(k string) string {
		if k == "COUNTER_DB" {
			return db
		}
		return ""
	}
	cfg, errs := config.FromEnv(getenv)
	if len(errs) > 0 {
		tb.Fatalf("config: %v", errs)
	}
	cfg.Now = func() time.Time { return testNow }
	var stdout, stderr bytes.Buffer
	err := Run(cfg, getenv, args, Env{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Log: logline.New(&stderr),
	})
	return stdout.String(), err
}

func mustAdmin(tb testing.TB, db string, args ...string) string {
	tb.Helper()
	out, err := runAdmin(tb, db, args...)
	if err != nil {
		tb.Fatalf("counter.cgi %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// settingLines is config's printout of lines, with the theme= line that
// ends every printout (empty, unless lines give one).
func settingLines(lines ...string) string {
	if !strings.HasPrefix(lines[len(lines)-1], "theme=") {
		lines = append(lines, "theme=")
	}
	return strings.Join(lines, "\n") + "\n"
}

var defaultLines = settingLines("show=views", "reload=30m", "ignore=", "referrers=")

// errKind checks err against what a test wants: nil, a usage error of a
// setting, or a sentinel.
func errKind(t *testing.T, err, want error) {
	t.Helper()
	var u UsageError
	switch {
	case want == nil && err != nil:
		t.Errorf("got error %v, want none", err)
	case want == counter.ErrSetting && (!errors.As(err, &u) || !errors.Is(err, counter.ErrSetting)):
		t.Errorf("got error %v, want a usage error of a setting", err)
	case want != nil && !errors.Is(err, want):
		t.Errorf("got error %v, want %v", err, want)
	}
}

func TestConfig(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog")
	full := make([]string, counter.MaxListLen)
	for i := range full {
		full[i] = "10.0." + strconv.Itoa(i) + ".0/24"
	}
	fullLines := settingLines("show=views", "reload=30m", "ignore="+strings.Join(full, ","), "referrers=")
	tests := []struct {
		name string
		args []string
		want string // stdout; after a failure, what config then prints
		err  error
	}{
		{"print the defaults", []string{"blog"}, defaultLines, nil},
		{"set two", []string{"blog", "show=visitors", "reload=1h"},
			settingLines("show=visitors", "reload=1h", "ignore=", "referrers="), nil},
		{"add to a list", []string{"blog", "ignore+=192.0.2.0/24,2001:db8::1", "ignore+=198.51.100.7"},
			settingLines("show=visitors", "reload=1h", "ignore=192.0.2.0/24,2001:db8::1,198.51.100.7", "referrers="), nil},
		{"take from a list", []string{"blog", "ignore-=2001:db8::1"},
			settingLines("show=visitors", "reload=1h", "ignore=192.0.2.0/24,198.51.100.7", "referrers="), nil},
		{"set a list", []string{"blog", "referrers=example.org,*.example.org", "reload=off"},
			settingLines("show=visitors", "reload=off", "ignore=192.0.2.0/24,198.51.100.7", "referrers=example.org,*.example.org"), nil},
		{"print", []string{"blog"},
			settingLines("show=visitors", "reload=off", "ignore=192.0.2.0/24,198.51.100.7", "referrers=example.org,*.example.org"), nil},
		{"bad key", []string{"blog", "show=views", "colour=red"},
			settingLines("show=visitors", "reload=off", "ignore=192.0.2.0/24,198.51.100.7", "referrers=example.org,*.example.org"), counter.ErrSetting},
		{"bad value after good ones", []string{"blog", "ignore=", "show=views", "reload=25h"},
			settingLines("show=visitors", "reload=off", "ignore=192.0.2.0/24,198.51.100.7", "referrers=example.org,*.example.org"), counter.ErrSetting},
		{"bad entry", []string{"blog", "referrers+=exa mple.org"},
			settingLines("show=visitors", "reload=off", "ignore=192.0.2.0/24,198.51.100.7", "referrers=example.org,*.example.org"), counter.ErrSetting},
		{"no equals sign", []string{"blog", "show"},
			settingLines("show=visitors", "reload=off", "ignore=192.0.2.0/24,198.51.100.7", "referrers=example.org,*.example.org"), counter.ErrSetting},
		{"empty them", []string{"blog", "ignore=", "referrers=", "show=views", "reload=30m"}, defaultLines, nil},
		{"fill a list", []string{"blog", "ignore=" + strings.Join(full, ",")}, fullLines, nil},
		// Only the counter's own list shows this one too many, in the
		// transaction.
		{"one too many", []string{"blog", "show=visitors", "ignore+=192.0.2.1"}, fullLines, counter.ErrSetting},
		{"empty again", []string{"blog", "ignore="}, defaultLines, nil},
		{"unknown counter", []string{"nope"}, "", counter.ErrNotFound},
		{"unknown counter, set", []string{"nope", "show=visitors"}, "", counter.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runAdmin(t, db, append([]string{"config"}, tc.args...)...)
			errKind(t, err, tc.err)
			if tc.err != nil {
				if out != "" {
					t.Errorf("printed %q after an error, want nothing", out)
				}
				if tc.want == "" {
					return
				}
				out = mustAdmin(t, db, "config", tc.args[0]) // nothing changed
			}
			if out != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
}

// TestConfigRoundTrip gives config back what it printed: the same
// settings, on this counter or another.
func TestConfigRoundTrip(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, db, "create", "blog", "show=visitors", "reload=2h30m", "ignore=2001:db8::/32,192.0.2.9", "referrers=*.example.org")
	mustAdmin(t, db, "create", "home")
	printed := mustAdmin(t, db, "config", "blog")
	got := mustAdmin(t, db, append([]string{"config", "home"}, strings.Fields(printed)...)...)
	if got != printed {
		t.Errorf("home given blog's settings:\n%s\nwant\n%s", got, printed)
	}
	want := settingLines("show=visitors", "reload=2h30m", "ignore=2001:db8::/32,192.0.2.9", "referrers=*.example.org")
	if printed != want {
		t.Errorf("blog:\n%s\nwant\n%s", printed, want)
	}
}

func TestCreateWithSettings(t *testing.T) {
	db := filepath.Join(t.TempDir(), "counter.db")
	tests := []struct {
		args     []string // after create
		start    uint64
		settings string // config's output; "" when not made
		err      error
	}{
		{[]string{"a"}, 0, defaultLines, nil},
		{[]string{"b", "5", "show=visitors"}, 5,
			settingLines("show=visitors", "reload=30m", "ignore=", "referrers="), nil},
		{[]string{"c", "-start", "6", "reload=off", "ignore=10.0.0.1"}, 6,
			settingLines("show=views", "reload=off", "ignore=10.0.0.1", "referrers="), nil},
		{[]string{"d", "referrers=*.example.org", "-start", "7", "referrers+=example.org"}, 7,
			settingLines("show=views", "reload=30m", "ignore=", "referrers=*.example.org,example.org"), nil},
		{[]string{"e", "show=nope"}, 0, "", counter.ErrSetting},
		{[]string{"f", "reload=1h", "show=views", "size=9"}, 0, "", counter.ErrSetting},
		{[]string{"g", "5", "6"}, 0, "", UsageError{}},
		{[]string{"h", "-start", "5", "6"}, 0, "", UsageError{}},
		{[]string{"i", "show=views", "5"}, 0, "", UsageError{}},
		{[]string{"j", "five"}, 0, "", UsageError{}},
		{[]string{"b", "show=views"}, 0, "", counter.ErrExists},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := runAdmin(t, db, append([]string{"create"}, tc.args...)...)
			var u UsageError
			if _, ok := tc.err.(UsageError); ok {
				if !errors.As(err, &u) {
					t.Errorf("got error %v, want a usage error", err)
				}
			} else {
				errKind(t, err, tc.err)
			}
			if tc.settings == "" {
				if tc.err != counter.ErrExists {
					if _, err := runAdmin(t, db, "config", tc.args[0]); !errors.Is(err, counter.ErrNotFound) {
						t.Errorf("after a failed create, config: %v, want %v", err, counter.ErrNotFound)
					}
				}
				return
			}
			if want := fmt.Sprintf("created %s at %d, ", tc.args[0], tc.start); !strings.HasPrefix(out, want) {
				t.Errorf("got %q, want it to start %q", out, want)
			}
			if got := mustAdmin(t, db, "config", tc.args[0]); got != tc.settings {
				t.Errorf("settings:\n%s\nwant\n%s", got, tc.settings)
			}
			s, err := openDB(t, db).Counter(tc.args[0])
			if err != nil || s.Count != tc.start {
				t.Errorf("count %d, %v; want %d", s.Count, err, tc.start)
			}
		})
	}
}

func openDB(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// TestList pins the table list prints: the columns of old first, in their
// places, then what a counter shows, its visitors and which settings are
// its own, and who may read its statistics last.
func TestList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter.db")
	mustAdmin(t, path, "create", "blog", "100")
	mustAdmin(t, path, "create", "home", "show=visitors", "reload=1h", "ignore=192.0.2.0/24")
	mustAdmin(t, path, "create", "shop", "7", "referrers=*.example.org")
	mustAdmin(t, path, "create", "photos", "reload=30m", "referrers=")
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, newVisitor := range []bool{true, true, false} {
		_, err := db.Visit(store.Visit{Name: "home", Now: testNow, Outcome: counter.Outcome{Kind: counter.View, NewVisitor: newVisitor}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"NAME    COUNT  CREATED               SHOWS     VISITORS  SETTINGS       STATISTICS",
		"blog    100    2025-03-14 15:09 UTC  views     0         default        public",
		"home    3      2025-03-14 15:09 UTC  visitors  2         reload,ignore  public",
		"photos  0      2025-03-14 15:09 UTC  views     0         default        public",
		"shop    7      2025-03-14 15:09 UTC  views     0         referrers      public",
	}, "\n") + "\n"
	if got := mustAdmin(t, path, "list"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

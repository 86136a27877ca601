package test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// startApache starts Apache (apache2 -DFOREGROUND) on loopback with the
// shipped apache/counter.conf included, serving the counter.cgi in cgiDir
// as CGI (mod_cgid) with the database at dbPath.
func startApache(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	return startApacheWith(t, bin, cgiDir, dbPath, apacheCGI)
}

// startApacheFastCGI is startApache with apache/counter-fastcgi.conf:
// mod_fcgid starts counter.cgi as FastCGI and stops it when Apache stops.
func startApacheFastCGI(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	return startApacheWith(t, bin, cgiDir, dbPath, apacheFcgid)
}

// startApacheService is startApache with apache/counter-service.conf:
// mod_proxy_fcgi sends every request to the counter's FastCGI service,
// run as systemd would run it (counterService).
func startApacheService(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	return startApacheWith(t, bin, cgiDir, dbPath, apacheService)
}

// How Apache runs the counter.
type apacheMode int

const (
	apacheCGI     apacheMode = iota // mod_cgid, apache/counter.conf
	apacheFcgid                     // mod_fcgid, apache/counter-fastcgi.conf
	apacheService                   // mod_proxy_fcgi and the service, apache/counter-service.conf
)

// apacheFcgidModule is where Debian's libapache2-mod-fcgid puts mod_fcgid.
const apacheFcgidModule = apacheModuleDir + "/mod_fcgid.so"

const apacheModuleDir = "/usr/lib/apache2/modules"

func startApacheWith(t testing.TB, bin, cgiDir, dbPath string, mode apacheMode) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, cgiDir, dbPath)
	run := filepath.Join(dir, "run") // pid file, mutexes, mod_cgid's socket
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	var own []string                     // folders for Apache's user, besides the database's
	fcgid := filepath.Join(run, "fcgid") // mod_fcgid's sockets and process table
	if mode == apacheFcgid {
		if err := os.Mkdir(fcgid, 0o755); err != nil {
			t.Fatal(err)
		}
		own = append(own, fcgid)
	}
	user, group := apacheUser(t, dir, cgiDir, filepath.Dir(dbPath), own...)
	errorLog := filepath.Join(dir, "error.log")
	srv := &webServer{Name: "apache", CGILog: errorLog, cgiLine: apacheCGILine}
	stderrLog := filepath.Join(dir, "stderr.log")
	file, modules := "counter.conf", apacheModules
	replace := map[string]string{
		"/usr/lib/cgi-bin":            cgiDir,
		"/var/lib/counter/counter.db": dbPath,
		"/run/counter":                testenv.RunDirOf(dbPath),
	}
	// mod_cgid's socket, or mod_fcgid's sockets and process table.
	moduleFiles := fmt.Sprintf("ScriptSock \"%s/cgisock\"\n", run)
	withoutCGI := slices.DeleteFunc(slices.Clone(modules), func(m string) bool { return m == "cgid" })
	var svc *counterService
	switch mode {
	case apacheFcgid:
		srv.Name, file = "apache-fastcgi", "counter-fastcgi.conf"
		modules = slices.Concat(withoutCGI, []string{"fcgid"})
		moduleFiles = fmt.Sprintf("FcgidIPCDir \"%[1]s/sock\"\nFcgidProcessTableFile \"%[1]s/shm\"\n", fcgid)
	case apacheService:
		svc = newCounterService(t, dir, cgiDir, dbPath)
		srv.Name, file, srv.CGILog, srv.cgiLine, srv.service = "apache-service", "counter-service.conf", svc.log, nil, svc
		modules, moduleFiles = slices.Concat(withoutCGI, []string{"proxy", "proxy_fcgi"}), ""
		replace = map[string]string{"/usr/lib/cgi-bin": cgiDir, "/run/counter/fastcgi.sock": svc.sock}
	default:
		// Debian's serve-cgi-bin.conf, if this machine has it, would turn
		// off the snippet's own ScriptAlias, the one tested here.
		replace["/etc/apache2/conf-enabled/serve-cgi-bin.conf"] = filepath.Join(dir, "no-serve-cgi-bin.conf")
	}
	snippet := shippedSnippet(t, filepath.Join(kitDir, "apache", file), replace)
	snippetPath := filepath.Join(dir, file)
	if err := os.WriteFile(snippetPath, snippet, 0o644); err != nil {
		t.Fatal(err)
	}
	// An empty types file: the default, conf/mime.types, does not exist.
	typesPath := filepath.Join(dir, "mime.types")
	if err := os.WriteFile(typesPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var conf strings.Builder
	fmt.Fprintf(&conf, `ServerRoot "%[1]s"
DefaultRuntimeDir "%[2]s"
PidFile "%[2]s/apache2.pid"
Mutex file:%[2]s default
ErrorLog "%[3]s"
LogLevel warn
ServerName 127.0.0.1
Listen 127.0.0.1:${COUNTER_TEST_PORT}
`, dir, run, errorLog)
	if user != "" {
		fmt.Fprintf(&conf, "User %s\nGroup %s\n", user, group)
	}
	for _, m := range modules {
		fmt.Fprintf(&conf, "LoadModule %s_module %s/mod_%[1]s.so\n", m, apacheModuleDir)
	}
	fmt.Fprintf(&conf, `%[1]sTypesConfig "%[2]s"
AddType text/plain .txt

<Directory />
	Options None
	AllowOverride None
	Require all denied
</Directory>
DocumentRoot "%[3]s"
<Directory "%[3]s">
	Require all granted
</Directory>

Include "%[4]s"

# the alias of the README: /hits/counter.cgi/NAME.png; the snippet's
# <Directory> grants it and sets COUNTER_DB, whatever the URL
ScriptAlias /hits/ "%[5]s/"

# the rewrite shown in the snippet's comment, uncommented
%[6]s
`, moduleFiles, typesPath, htdocs, snippetPath, cgiDir, apacheRewrite(t, snippet))
	confPath := filepath.Join(dir, "apache2.conf")
	if err := os.WriteFile(confPath, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dumpOnFailure(t, errorLog, stderrLog, srv.CGILog)
	srv.URL = onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		// What systemd gives Apache on Debian, so that nothing of this
		// test's environment reaches the CGI; the port comes in as a
		// variable so that the config file is written once.
		env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C", fmt.Sprintf("COUNTER_TEST_PORT=%d", port)}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		check := exec.CommandContext(ctx, bin, "-t", "-f", confPath)
		check.Env = env
		if err := checkConfig(check); err != nil {
			return err
		}
		cmd := exec.Command(bin, "-DFOREGROUND", "-f", confPath)
		cmd.Env = env
		return runServer(t, cmd, stderrLog, baseURL, filepath.Join(cgiDir, "counter.cgi"))
	})
	if svc != nil {
		svc.start(t)
	}
	return srv
}

// apacheRewrite returns the RewriteEngine and RewriteRule lines that the
// shipped snippet shows in a comment, uncommented, so that the rule the
// owner copies is the rule tested.
func apacheRewrite(t testing.TB, snippet []byte) string {
	t.Helper()
	var lines []string
	for line := range strings.Lines(string(snippet)) {
		l := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if strings.HasPrefix(l, "RewriteEngine ") || strings.HasPrefix(l, "RewriteRule ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.Contains(lines[1], "^/counter/") {
		t.Fatalf("apache/counter.conf: got rewrite lines %q, want RewriteEngine and a RewriteRule for ^/counter/", lines)
	}
	return strings.Join(lines, "\n")
}

// apacheUser returns the User and Group that Apache runs its workers and
// the CGI as, and gives that user what the README's install steps give
// www-data. Apache started as root refuses to serve as root, so a root test
// runs them as www-data (nobody if there is none), lets that user into the
// test's temporary folders and hands it the database's folder (and own);
// admin then
// runs as that user too. Started as anyone else, Apache cannot switch
// users, so there are no User lines and nothing to hand over.
func apacheUser(t testing.TB, dir, cgiDir, dbDir string, own ...string) (user, group string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return "", ""
	}
	u, err := osuser.Lookup("www-data")
	if err != nil {
		if u, err = osuser.Lookup("nobody"); err != nil {
			t.Fatalf("no user for Apache to run as: %v", err)
		}
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatalf("user %s: %v", u.Username, err)
	}
	group = "#" + u.Gid
	if g, err := osuser.LookupGroupId(u.Gid); err == nil {
		group = g.Name
	}
	for _, d := range []string{dir, cgiDir, dbDir} {
		letTraverse(t, d)
	}
	for _, d := range append([]string{dbDir}, own...) {
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return u.Username, group
}

// letTraverse lets every user through dir and those of its parents that
// are inside the temporary folder (t.TempDir makes its top folder 0700).
func letTraverse(t testing.TB, dir string) {
	t.Helper()
	tmp := filepath.Clean(os.TempDir())
	for p := filepath.Clean(dir); strings.HasPrefix(p, tmp+string(filepath.Separator)); p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, fi.Mode().Perm()|0o001); err != nil {
			t.Fatal(err)
		}
	}
}

// apacheCGILine picks the CGI's stderr out of Apache's error log. Under
// mod_cgid, and under mod_fcgid too, the process's stderr is the error log
// itself, so its lines come through as written, among Apache's own lines,
// which start with "[time]".
// mod_cgi (under mpm_prefork) would wrap each as "[...] AH01215: LINE: SCRIPT".
func apacheCGILine(line string) (string, bool) {
	if _, rest, ok := strings.Cut(line, " AH01215: "); ok {
		if i := strings.LastIndex(rest, ": /"); i >= 0 {
			rest = rest[:i]
		}
		return rest, true
	}
	return line, !strings.HasPrefix(line, "[")
}

// noCacheHeaders are what every counter image must carry, exactly once each.
var noCacheHeaders = map[string]string{
	"Cache-Control":          "no-cache, no-store, must-revalidate, max-age=0",
	"Pragma":                 "no-cache",
	"Expires":                "0",
	"X-Content-Type-Options": "nosniff",
}

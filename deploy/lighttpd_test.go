package deploy

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// startLighttpd starts lighttpd (lighttpd -D) on loopback with the shipped
// lighttpd/counter.conf included, serving the counter.cgi in cgiDir with
// the database at dbPath. It runs as this test's user, and so does the CGI.
func startLighttpd(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, cgiDir, dbPath)
	srv := &webServer{Name: "lighttpd", CGILog: filepath.Join(dir, "breakage.log")}
	errorLog, stderrLog := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log")
	snippet := shippedSnippet(t, filepath.Join("lighttpd", "counter.conf"), map[string]string{
		"/usr/lib/cgi-bin/":              cgiDir + "/",
		"/var/lib/counter/counter.db":    dbPath,
		"/run/counter":                   runDirOf(dbPath),
		"/var/log/lighttpd/breakage.log": srv.CGILog,
	})
	snippetPath := filepath.Join(dir, "counter.conf")
	if err := os.WriteFile(snippetPath, snippet, 0o644); err != nil {
		t.Fatal(err)
	}
	dumpOnFailure(t, errorLog, srv.CGILog, stderrLog)
	srv.URL = onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, "lighttpd.conf")
		if err := os.WriteFile(conf, []byte(mainConfig(dir, htdocs, snippetPath, cgiDir, dbPath, port)), 0o644); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := checkConfig(exec.CommandContext(ctx, bin, "-tt", "-f", conf)); err != nil {
			return err
		}
		return runServer(t, exec.Command(bin, "-D", "-f", conf), stderrLog, baseURL)
	})
	return srv
}

// mainConfig is a minimal lighttpd.conf around the shipped snippet,
// plus the alias and the rewrite that the README documents.
func mainConfig(dir, htdocs, snippet, cgiDir, dbPath string, port int) string {
	return fmt.Sprintf(`server.modules       = ( "mod_rewrite" )
server.document-root = "%[2]s"
server.errorlog      = "%[1]s/error.log"
server.pid-file      = "%[1]s/lighttpd.pid"
server.bind          = "127.0.0.1"
server.port          = %[6]d

# lighttpd matches path and query, so $1 carries the query string along
url.rewrite-once = ( "^/counter/(.*)$" => "/cgi-bin/counter.cgi/$1" )

include "%[3]s"

$HTTP["url"] =~ "^/hits/counter\.cgi(/|$)" {
	alias.url += ( "/hits/" => "%[4]s/" )
	cgi.assign = ( ".cgi" => "" )
	setenv.add-environment = ( "COUNTER_DB" => "%[5]s" )
}
`, dir, htdocs, snippet, cgiDir, dbPath, port)
}

package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
)

// startLighttpd starts lighttpd (lighttpd -D) on loopback with the shipped
// lighttpd/counter.conf included, serving the counter.cgi in cgiDir as CGI
// with the database at dbPath. It runs as this test's user, and so does the
// CGI.
func startLighttpd(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	return startLighttpdWith(t, bin, cgiDir, dbPath, false, nil)
}

// startLighttpdFastCGI is startLighttpd with lighttpd/counter-fastcgi.conf:
// lighttpd starts counter.cgi once, as FastCGI, and stops it when it stops.
func startLighttpdFastCGI(t testing.TB, bin, cgiDir, dbPath string) *webServer {
	t.Helper()
	return startLighttpdWith(t, bin, cgiDir, dbPath, true, nil)
}

// startLighttpdWith starts lighttpd with the CGI or FastCGI snippet, with
// the snippet's further replacements in replace and global settings added
// to its main config in global.
func startLighttpdWith(t testing.TB, bin, cgiDir, dbPath string, fastCGI bool, replaceMore map[string]string, global ...string) *webServer {
	t.Helper()
	dir, htdocs := serverDir(t, cgiDir, dbPath)
	srv := &webServer{Name: "lighttpd", CGILog: filepath.Join(dir, "breakage.log")}
	errorLog, stderrLog := filepath.Join(dir, "error.log"), filepath.Join(dir, "stderr.log")
	file := "counter.conf"
	replace := map[string]string{
		"/usr/lib/cgi-bin/":              cgiDir + "/",
		"/var/lib/counter/counter.db":    dbPath,
		"/run/counter":                   testenv.RunDirOf(dbPath),
		"/var/log/lighttpd/breakage.log": srv.CGILog,
	}
	for old, repl := range replaceMore {
		replace[old] = repl
	}
	hits := lighttpdHitsCGI(cgiDir, dbPath)
	if fastCGI {
		srv.Name, file = "lighttpd-fastcgi", "counter-fastcgi.conf"
		sock := filepath.Join(dir, "counter-fastcgi.sock")
		replace["/run/lighttpd/counter-fastcgi.sock"] = sock
		hits = lighttpdHitsFastCGI(sock)
	}
	snippet := shippedSnippet(t, filepath.Join(kitDir, "lighttpd", file), replace)
	snippetPath := filepath.Join(dir, file)
	if err := os.WriteFile(snippetPath, snippet, 0o644); err != nil {
		t.Fatal(err)
	}
	dumpOnFailure(t, errorLog, srv.CGILog, stderrLog)
	srv.URL = onFreePort(t, []string{errorLog, stderrLog}, func(port int, baseURL string) error {
		conf := filepath.Join(dir, "lighttpd.conf")
		if err := os.WriteFile(conf, []byte(mainConfig(dir, htdocs, snippetPath, hits, port)+strings.Join(global, "\n")), 0o644); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := checkConfig(exec.CommandContext(ctx, bin, "-tt", "-f", conf)); err != nil {
			return err
		}
		return runServer(t, exec.Command(bin, "-D", "-f", conf), stderrLog, baseURL, filepath.Join(cgiDir, "counter.cgi"))
	})
	return srv
}

// mainConfig is a minimal lighttpd.conf around the shipped snippet and
// the shipped rewrite (deploy/lighttpd/counter-rewrite.conf), plus the
// /hits/ alias that deploy/lighttpd/counter-rewrite.conf describes.
func mainConfig(dir, htdocs, snippet, hits string, port int) string {
	shippedRewrite, err := filepath.Abs(filepath.Join(kitDir, "lighttpd", "counter-rewrite.conf"))
	if err != nil {
		panic(err) // only when the working directory is gone
	}
	return fmt.Sprintf(`server.document-root = "%[2]s"
server.errorlog      = "%[1]s/error.log"
server.pid-file      = "%[1]s/lighttpd.pid"
server.bind          = "127.0.0.1"
server.port          = %[5]d

include "%[6]s"
include "%[3]s"

$HTTP["url"] =~ "^/hits/counter\.cgi(/|$)" {
%[4]s
}
`, dir, htdocs, snippet, hits, port, shippedRewrite)
}

// lighttpdHitsCGI maps the README's alias, /hits/counter.cgi, to the CGI,
// with the test's own database and runtime directory, never the machine's.
func lighttpdHitsCGI(cgiDir, dbPath string) string {
	return fmt.Sprintf(`	alias.url += ( "/hits/" => "%[1]s/" )
	cgi.assign = ( ".cgi" => "" )
	setenv.add-environment = ( "COUNTER_DB" => "%[2]s", "COUNTER_RUN_DIR" => "%[3]s" )`, cgiDir, dbPath, testenv.RunDirOf(dbPath))
}

// lighttpdHitsFastCGI sends /hits/counter.cgi to the FastCGI process that
// the snippet started, on its socket. lighttpd binds a process it starts
// itself to the socket's name plus "-N", N counting from 0.
func lighttpdHitsFastCGI(sock string) string {
	return fmt.Sprintf(`	fastcgi.server = ( "/hits/counter.cgi" => ((
		"socket" => "%s-0",
		"check-local" => "disable",
	)))`, sock)
}

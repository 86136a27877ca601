// Command hit is counter.cgi as the web server runs it: the program a
// counted image execs. It serves GET and HEAD of /NAME.png, .gif and .svg,
// and of the script's /NAME.js and /NAME.count, under CGI itself, with the image server the full tool serves too
// (package cgi/imagehit), and links no net/http: a hit starts a smaller
// program. For anything else (another page or method, an environment it
// does not take whole, FastCGI, an admin command on a terminal) it execs
// the full tool (./cgi) with the same arguments, environment and stdin,
// before it has read or written anything.
//
// The full tool's path is fixed when the binary is built, never taken
// from the environment, which a visitor's request fills: by default
// ../counter/counter-tool from the folder this program runs from (the
// kernel's /proc/self/exe), which is /usr/lib/counter/counter-tool for
// /usr/lib/cgi-bin/counter.cgi as install.sh and the package lay them out,
// under any --root; or the path that -ldflags "-X main.toolPath=PATH"
// gives, absolute or relative likewise.
package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/gateway/cgiwire"
	"hitcounter/cgi/imagehit"
	"hitcounter/cgi/internal/config"
	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/internal/sibling"
	"hitcounter/cgi/internal/stack"
	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

// toolPath is the full tool, outside cgi-bin, where a ScriptAlias would
// run it as a CGI of its own: absolute, or relative to this program's
// folder.
var toolPath = "../counter/counter-tool"

func main() {
	started := time.Now()
	stack.Grow(0)
	os.Exit(run(started, os.Args, os.Environ(), os.Stdout, os.Stderr))
}

// run is the whole program, started at started: it serves an image
// request, or execs the full tool and comes back only when that fails,
// and returns the exit code.
func run(started time.Time, args, environ []string, stdout, stderr io.Writer) int {
	env := cgiwire.ReadEnv(environ)
	cgi := env["GATEWAY_INTERFACE"] != ""
	// A store in a cluster is the full tool's: this program links no
	// client for one.
	if cgi && !store.IsRemote(env["COUNTER_DB"]) {
		if r, file, ok := hitRequest(env); ok {
			if name, typ, ok := imagehit.Image(file); ok {
				serve(r, name, typ, env, started, stdout, stderr)
				return 0
			}
			if name, ext, ok := imagehit.ScriptPath(file); ok {
				serveScript(r, name, ext, env, started, stdout, stderr)
				return 0
			}
		}
	}
	err := sibling.Exec(sibling.Path(toolPath), args, environ)
	if err != nil {
		err = fmt.Errorf("the full tool %w (reinstall the counter)", err)
	}
	if cgi {
		failCGI(env, err, stdout, stderr)
	} else {
		fmt.Fprintln(stderr, "counter:", err)
	}
	return 1
}

// hitRequest reads the request env describes, if it is one this program
// may serve: a GET or HEAD of one clean path segment NAME.EXT, with no
// body, in an environment that the gateway would take whole (else the
// full tool answers, and refuses it as the gateway does). file is the
// segment, whose extension says whether this program serves it.
func hitRequest(env cgiwire.Env) (r imagehit.Request, file string, ok bool) {
	method := env["REQUEST_METHOD"]
	if method != "GET" && method != "HEAD" || cgiwire.Check(env) != nil {
		return r, "", false
	}
	if proto := env["SERVER_PROTOCOL"]; proto != "INCLUDED" {
		if _, _, ok := cgiwire.ParseVersion(proto); !ok {
			return r, "", false
		}
	}
	if env["CONTENT_LENGTH"] != "" && env["CONTENT_LENGTH"] != "0" {
		return r, "", false
	}
	// The URL the gateway builds, REQUEST_URI set aside, must parse.
	raw := env["SCRIPT_NAME"] + "/"
	if h := env["HTTP_HOST"]; h != "" {
		raw = "http://" + h + raw
	}
	if _, err := url.Parse(raw); err != nil {
		return r, "", false
	}
	p := env["PATH_INFO"]
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	file = p[1:]
	if file == "" || strings.Contains(file, "/") || path.Clean(p) != p {
		return r, "", false
	}
	r = imagehit.Request{
		Method: method, Path: p, RawQuery: env["QUERY_STRING"],
		Header: func(k string) string { v, _ := env.Header(k); return v },
		Values: func(k string) []string {
			if v, ok := env.Header(k); ok {
				return []string{v}
			}
			return nil
		},
		Peer: env.Peer(),
	}
	return r, file, true
}

// serve answers image request r, counting it, as the full tool's CGI
// does, and records its costs.
func serve(r imagehit.Request, name string, typ counter.ImageType, env cgiwire.Env, started time.Time, stdout, stderr io.Writer) {
	log := logline.New(stderr)
	cfg, errs := config.FromEnv(func(k string) string { return env[k] })
	for _, err := range errs {
		log.Printf("config: %v", err)
	}
	p := imagehit.NewProcess(cfg, log, false)
	ans := p.Serve(r, name, typ)
	p.Finished(meter.Hit, ans.Counted, started)
	if err := cgiwire.WriteAnswer(stdout, ans.Status, ans.Header, ans.Body...); err != nil {
		log.Printf("write response: %v", err)
	}
}

// serveScript answers the script (ext imagehit.ScriptExt) or its count
// (imagehit.CountExt) as the full tool's CGI does, and records a count's
// costs as a hit's.
func serveScript(r imagehit.Request, name, ext string, env cgiwire.Env, started time.Time, stdout, stderr io.Writer) {
	log := logline.New(stderr)
	cfg, errs := config.FromEnv(func(k string) string { return env[k] })
	for _, err := range errs {
		log.Printf("config: %v", err)
	}
	var ans imagehit.Answer
	if ext == imagehit.ScriptExt {
		// Nothing opened, nothing recorded: the script is a constant.
		ans = (&imagehit.Server{Cfg: cfg, Log: log}).ServeScript(r, name)
	} else {
		p := imagehit.NewProcess(cfg, log, false)
		ans = p.ServeCount(r, name)
		p.Finished(meter.Hit, ans.Counted, started)
	}
	if err := cgiwire.WriteAnswer(stdout, ans.Status, ans.Header, ans.Body...); err != nil {
		log.Printf("write response: %v", err)
	}
}

// failCGI answers a CGI request that the full tool should have answered
// but could not be run: a 500, as an image when an image was asked for.
func failCGI(env cgiwire.Env, err error, stdout, stderr io.Writer) {
	log := logline.New(stderr)
	cfg, _ := config.FromEnv(func(k string) string { return env[k] })
	_, typ, isImage := imagehit.Image(path.Base(env["PATH_INFO"]))
	if !isImage {
		log.Printf("%s %q: %v", env["REQUEST_METHOD"], env["PATH_INFO"], err)
		body := []byte("internal error\n")
		cgiwire.WriteAnswer(stdout, 500, []cgiwire.Field{
			{Key: "Content-Type", Value: "text/plain; charset=utf-8"},
			{Key: "Content-Length", Value: strconv.Itoa(len(body))},
		}, body)
		return
	}
	s := &imagehit.Server{Cfg: cfg, Log: log}
	r := imagehit.Request{Method: env["REQUEST_METHOD"], Path: env["PATH_INFO"], RawQuery: env["QUERY_STRING"]}
	ans := s.Refuse(r, typ, err)
	cgiwire.WriteAnswer(stdout, ans.Status, ans.Header, ans.Body...)
}

// Command counter is the counter's full tool: every page and endpoint over
// CGI, FastCGI and a local server, and every admin command, in one
// self-sufficient program (go run ./cgi serve runs the demo on its own).
// Installed, it is /usr/lib/counter/counter-tool, and the web server runs
// the hit binary (./cgi/hit) as counter.cgi instead: that small program
// serves a counted image itself and execs this one for everything else.
// Both set up a hit with imagehit.NewProcess. See deploy/README.md.
package main

import (
	"errors"
	"fmt"
	"os"

	"hitcounter/cgi/admin"
	"hitcounter/cgi/internal/stack"
)

func main() {
	stack.Grow(0)
	err := run(os.Args, os.Environ(), os.Stdin, os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "counter:", err)
	var u admin.UsageError
	if errors.As(err, &u) {
		os.Exit(2)
	}
	os.Exit(1)
}

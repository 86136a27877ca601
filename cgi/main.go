// Command counter.cgi is a hit counter for static web sites. Run by a web
// server as CGI it counts a hit and answers with the count as an image; run
// from a shell it is the owner's admin tool and a local server for trying it
// out. See the README for both.
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

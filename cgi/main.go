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
)

func main() {
	growStack(0)
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

// growStack grows the goroutine's stack to 32 KiB at once, while it holds
// two frames. A CGI hit's path grew it twice otherwise, from 8 KiB, deep
// in the gateway and again in the store, and each growth walks every frame
// on the stack through the binary's pclntab, faulting in pages all over it,
// 64 KiB around each with the kernel's fault-around: bench-breakdown.sh
// counted 26 pclntab faults a hit before and 19 after, of 409 and 387 in
// all, and /proc/PID/status a peak RSS of 6,572 kB before and 6,100 after.
// The array is read at an index the compiler cannot know, so it is kept
// and zeroed: 24 KiB of the 32 that the stack's use then reaches anyway.
//
//go:noinline
func growStack(i int) byte {
	var buf [24 << 10]byte
	return buf[i]
}

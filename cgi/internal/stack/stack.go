// Package stack grows a process's main goroutine stack once, at start,
// for both binaries' mains.
package stack

// Grow grows the goroutine's stack to 32 KiB at once, while it holds two
// frames; call it first thing in main with 0. A CGI hit's path grew it
// twice otherwise, from 8 KiB, deep in the gateway and again in the store,
// and each growth walks every frame on the stack through the binary's
// pclntab, faulting in pages all over it (bench-breakdown.sh counts them;
// deploy/bench/RESULTS.md has the figures). The array is read at an index
// the compiler cannot know, so it is kept and zeroed: 24 KiB of the 32
// that the stack's use then reaches anyway.
//
//go:noinline
func Grow(i int) byte {
	var buf [24 << 10]byte
	return buf[i]
}

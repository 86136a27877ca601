package main

// growStack grows the goroutine's stack to 32 KiB at once, while it holds
// two frames, as the full tool's does (cgi/main.go says what it saves: a
// hit grew the stack twice otherwise, and each growth walks every frame
// through the pclntab, faulting in pages all over the binary).
//
//go:noinline
func growStack(i int) byte {
	var buf [24 << 10]byte
	return buf[i]
}

package web

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// panicSummary describes a recovered panic for the log without its value:
// a value can hold anything in scope (a password, a session key), so only
// the runtime's own errors, which hold indices and types, are shown. The
// place it happened is what the owner needs for a bug report. It must be
// called from the deferred function that recovered.
func panicSummary(v any) string {
	what := fmt.Sprintf("a value of type %T", v)
	if err, ok := v.(runtime.Error); ok {
		what = err.Error()
	}
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s at %s (%s:%d)", what, f.Function, filepath.Base(f.File), f.Line)
		}
		if !more {
			return what
		}
	}
}

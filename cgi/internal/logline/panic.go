package logline

import (
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// PanicSummary describes a recovered panic for the log without its value:
// a value can hold anything in scope (a password, a session key), so only
// the runtime's own errors, which hold indices and types, are shown. Then
// comes the stack from where it happened, innermost first, functions and
// lines alone (no arguments): what the owner needs for a bug report, in
// one log line. A panic that another recovery passed on (store's, which
// keeps only bbolt's own) shows that frame too. It must be called from
// the deferred function that recovered.
func PanicSummary(v any) string {
	what := fmt.Sprintf("a value of type %T", v)
	if err, ok := v.(runtime.Error); ok {
		what = err.Error()
	}
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	var b strings.Builder
	b.WriteString(what)
	sep, n := " at ", 0
	for n < maxPanicFrames {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") {
			// Short, for the frames that matter to fit the log's line.
			fmt.Fprintf(&b, "%s%s (%s:%d)", sep, path.Base(f.Function), filepath.Base(f.File), f.Line)
			sep, n = " < ", n+1
		}
		if !more {
			break
		}
	}
	return b.String()
}

// maxPanicFrames bounds the stack a panic's log line shows.
const maxPanicFrames = 12

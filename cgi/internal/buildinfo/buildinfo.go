// Package buildinfo says which build of the counter is running: its
// version, commit and Go version, from the build information that go
// build embeds, for `counter.cgi version`, doctor, the FastCGI process's
// start-up line and the costs' build-change rule.
package buildinfo

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// Info is what the binary knows of its own build.
type Info struct {
	Version   string // the module's version, "(devel)" for a build from a checkout
	Commit    string // vcs.revision, "" if unknown
	Modified  bool   // vcs.modified: built from a checkout with changes
	Time      string // vcs.time, the commit's time
	GoVersion string
	// Binary names the executable file by its size and time, for a build
	// without version control information (go build -buildvcs=false, or
	// from a copy of the source without .git): "" otherwise.
	Binary string
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "unknown"}
	}
	i := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		case "vcs.time":
			i.Time = s.Value
		}
	}
	if i.Version == "" {
		i.Version = "unknown"
	}
	if i.Commit == "" {
		if exe, err := os.Executable(); err == nil {
			if fi, err := os.Stat(exe); err == nil {
				i.Binary = fmt.Sprintf("%d bytes of %s", fi.Size(), fi.ModTime().UTC().Format("2006-01-02T15:04:05Z"))
			}
		}
	}
	return i
}

// ID names the build in the costs' history: the version, and the commit's
// first 12 characters (with "+changes" for a checkout with changes), or
// without them the binary's size and time; two binaries of one ID are
// taken for one build.
func (i Info) ID() string {
	if i.Commit != "" {
		short := i.Commit[:min(12, len(i.Commit))]
		id := short
		if i.Modified {
			id += "+changes"
		}
		// A tagged version says more than a commit; a pseudo-version
		// holds the commit already.
		if i.Version != "(devel)" && !strings.Contains(i.Version, short) {
			id = i.Version + " " + id
		}
		return id
	}
	if i.Binary != "" {
		return i.Version + " " + i.Binary
	}
	return i.Version
}

// String is the one line `counter.cgi version` prints.
func (i Info) String() string {
	var b strings.Builder
	b.WriteString("counter.cgi " + i.Version)
	if i.Commit != "" {
		b.WriteString(", commit " + i.Commit)
		if i.Modified {
			b.WriteString(" (with changes)")
		}
		if i.Time != "" {
			b.WriteString(" of " + i.Time)
		}
	} else {
		b.WriteString(", commit unknown (built without version control information")
		if i.Binary != "" {
			b.WriteString("; the binary is " + i.Binary)
		}
		b.WriteString(")")
	}
	b.WriteString(", " + i.GoVersion)
	return b.String()
}

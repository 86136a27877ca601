// Package buildinfo says which build of the counter is running: its
// version, commit and Go version, from the build information that go
// build embeds, for `counter.cgi version`, doctor, the FastCGI process's
// start-up line and the costs' build-change rule.
package buildinfo

import (
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
	return i
}

// ID names the build in the costs' history: the version, and the commit's
// first 12 characters (with "+changes" for a checkout with changes); two
// binaries of one ID are taken for one build.
func (i Info) ID() string {
	id := i.Version
	if i.Commit != "" {
		id += " " + i.Commit[:min(12, len(i.Commit))]
		if i.Modified {
			id += "+changes"
		}
	}
	return id
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
	}
	b.WriteString(", " + i.GoVersion)
	return b.String()
}

// Command breakdown reads `perf script` output of counted CGI hits
// (deploy/bench/bench-breakdown.sh records it) and prints where their CPU
// time and their page faults go: by phase of the hit, found in each
// sample's call chain, and for the faults by what was touched (the
// binary's sections, the stacks, anonymous memory, the database's
// mapping) and, in the binary's text, by package.
//
// It expects two events, cpu-clock with a fixed period and page-faults
// with a period of 1, recorded with -g (Go keeps frame pointers) and -d,
// printed with -F comm,tid,time,event,ip,sym,addr,dso.
package main

import (
	"bufio"
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	comm := flag.String("comm", "", "the command name of the hit's process (perf's comm: the binary's base name, at most 15 bytes)")
	bin := flag.String("bin", "", "the binary that ran (not stripped), for its sections")
	runs := flag.Int("runs", 1, "how many hits were recorded")
	period := flag.Float64("period-us", 10, "the cpu-clock period in microseconds")
	flag.Parse()
	if *comm == "" || *bin == "" {
		flag.Usage()
		os.Exit(2)
	}
	secs, err := sections(*bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "breakdown:", err)
		os.Exit(1)
	}
	t := newTally()
	if err := readSamples(os.Stdin, *comm, func(s sample) { t.add(s, secs) }); err != nil {
		fmt.Fprintln(os.Stderr, "breakdown:", err)
		os.Exit(1)
	}
	t.print(os.Stdout, float64(*runs), *period)
}

// sample is one event of perf script: its kind, the address a page fault
// touched (with perf's symbol and object for it) and the call chain, leaf
// first.
type sample struct {
	event  string // "cpu-clock" or "page-faults"
	addr   uint64
	addrAt string // perf's "sym (dso)" for addr
	chain  []frame
}

type frame struct {
	sym, dso string
	kernel   bool
}

var (
	headRE  = regexp.MustCompile(`^(\S.*?)\s+(\d+)\s+[\d.]+:\s+(\S+?)(?:/[^:]*/)?:\s*(.*)$`)
	frameRE = regexp.MustCompile(`^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$`)
)

// readSamples calls f for each sample of comm in perf script's output r.
func readSamples(r io.Reader, comm string, f func(sample)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur *sample
	flush := func() {
		if cur != nil {
			f(*cur)
		}
		cur = nil
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if m := headRE.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "\t") {
			flush()
			if m[1] != comm {
				continue
			}
			s := sample{event: m[3]}
			if s.event == "page-faults" {
				a, at, _ := strings.Cut(strings.TrimSpace(m[4]), " ")
				s.addr, _ = strconv.ParseUint(a, 16, 64)
				s.addrAt = strings.TrimSpace(at)
			}
			cur = &s
			continue
		}
		if cur == nil {
			continue
		}
		if m := frameRE.FindStringSubmatch(line); m != nil {
			cur.chain = append(cur.chain, frame{sym: m[2], dso: m[3], kernel: m[3] == "[kernel.kallsyms]"})
		}
	}
	flush()
	return sc.Err()
}

// section is one allocated section of the binary.
type section struct {
	name       string
	start, end uint64
}

func sections(bin string) ([]section, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []section
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Size > 0 {
			out = append(out, section{s.Name, s.Addr, s.Addr + s.Size})
		}
	}
	return out, nil
}

// phases are the parts of a hit, tried in this order against a sample's
// call chain: the first whose function prefix any user frame has wins.
// Page faults and CPU in the kernel on behalf of a user frame count for
// that frame's phase. The names are the hit binary's (cgi/hit: main.main,
// cgi/imagehit, cgi/gateway/cgiwire) and the full tool's (cgi/web,
// cgi/gateway), so either can be taken apart. The build's ID
// (cgi/internal/buildinfo) is read on a hit for the cost meter alone.
var phases = []struct{ name, prefixes string }{
	{"cost meter (cgi/meter, the build's ID)", "hitcounter/cgi/meter. hitcounter/cgi/internal/buildinfo. hitcounter/cgi/imagehit.MeterHooks main.serve.MeterHooks hitcounter/cgi/web.(*App).recordCommit hitcounter/cgi/web.(*App).newMeter"},
	{"visitor table (cgi/seen)", "hitcounter/cgi/seen."},
	{"locks (flock)", "syscall.Flock golang.org/x/sys/unix.Flock syscall.FcntlFlock"},
	{"commit: fdatasync", "syscall.Fdatasync golang.org/x/sys/unix.Fdatasync"},
	{"commit: write pages", "go.etcd.io/bbolt.(*Tx).Commit"},
	{"open and map the file", "hitcounter/store.Open go.etcd.io/bbolt.Open"},
	{"close the file", "hitcounter/store.(*DB).Close go.etcd.io/bbolt.(*DB).Close"},
	{"read transaction (HitFacts)", "hitcounter/store.(*DB).HitFacts"},
	{"write transaction (Visit)", "hitcounter/store.(*DB).Visit"},
	{"drawing a digit set (its read and drawing)", "hitcounter/store.(*DB).DigitSet hitcounter/cgi/imagehit.(*Server).drawSet"},
	{"encoding (PNG)", "hitcounter/counter/draw.(*Drawing).Encode"},
	{"drawing", "hitcounter/counter/draw. golang.org/x/image/"},
	{"configuration", "hitcounter/cgi/internal/config."},
	{"judging, handler (cgi/imagehit, cgi/web)", "hitcounter/cgi/imagehit. hitcounter/cgi/web."},
	{"request and answer (cgi/gateway/cgiwire)", "hitcounter/cgi/gateway/cgiwire. hitcounter/cgi/gateway. main.imageRequest main.fields"},
	{"package inits", "runtime.doInit1"},
	// Before main.main: the hit binary's main calls os.Exit. Not
	// runtime.exitsyscall, on the way back from any system call.
	{"exit (the kernel unmaps the process)", "runtime.exit.abi0 os.Exit"},
	{"main, other", "main.main"},
	{"runtime start", "runtime.rt0_go runtime.schedinit _rt0_amd64 runtime.main"},
	{"GC and scheduler", "runtime.gcBgMarkWorker runtime.bgsweep runtime.bgscavenge runtime.sysmon runtime.mstart runtime.mcall runtime.morestack runtime.forcegchelper runtime.gcStart"},
}

// phaseOf names the phase of chain, and for package inits the package
// whose init it is.
func phaseOf(chain []frame) (phase, initPkg string) {
	var user []frame
	for _, f := range chain {
		if !f.kernel && f.sym != "[unknown]" {
			user = append(user, f)
		}
	}
	if len(user) == 0 {
		if len(chain) > 0 && hasKernel(chain, "execve") {
			return "kernel: exec", ""
		}
		if hasKernel(chain, "exit") {
			return "kernel: exit and teardown", ""
		}
		return "kernel, no user frame", ""
	}
	for _, p := range phases {
		for _, pre := range strings.Fields(p.prefixes) {
			for i, f := range user {
				if !strings.HasPrefix(f.sym, pre) {
					continue
				}
				if pre == "runtime.doInit1" && i > 0 {
					return p.name, pkgOf(user[i-1].sym)
				}
				return p.name, ""
			}
		}
	}
	root := user[len(user)-1].sym
	if strings.HasPrefix(root, "runtime.goexit") && len(user) > 1 {
		// Another goroutine: named by its function.
		return "goroutine " + pkgOf(user[len(user)-2].sym), ""
	}
	return "other runtime", ""
}

func hasKernel(chain []frame, word string) bool {
	for _, f := range chain {
		if f.kernel && strings.Contains(f.sym, word) {
			return true
		}
	}
	return false
}

// pkgOf is the package of Go symbol sym.
func pkgOf(sym string) string {
	slash := strings.LastIndex(sym, "/")
	if dot := strings.Index(sym[slash+1:], "."); dot >= 0 {
		return sym[:slash+1+dot]
	}
	return sym
}

// tally adds up the samples.
type tally struct {
	cpu, faults           map[string]int // by phase
	initCPU, initFaults   map[string]int // by package, for package inits
	segFaults, textFaults map[string]int // by what was touched; text by package
	totalCPU, totalFaults int
}

func newTally() *tally {
	return &tally{cpu: map[string]int{}, faults: map[string]int{}, initCPU: map[string]int{},
		initFaults: map[string]int{}, segFaults: map[string]int{}, textFaults: map[string]int{}}
}

func (t *tally) add(s sample, secs []section) {
	phase, pkg := phaseOf(s.chain)
	switch s.event {
	case "cpu-clock":
		t.totalCPU++
		t.cpu[phase]++
		if pkg != "" {
			t.initCPU[pkg]++
		}
	case "page-faults":
		t.totalFaults++
		t.faults[phase]++
		if pkg != "" {
			t.initFaults[pkg]++
		}
		seg := segmentOf(s, secs)
		t.segFaults[seg]++
		if seg == "binary .text" {
			sym, _, _ := strings.Cut(s.addrAt, " (")
			t.textFaults[pkgOf(strings.TrimSuffix(sym, ".abi0"))]++
		}
	}
}

// segmentOf says what a page fault touched.
func segmentOf(s sample, secs []section) string {
	for _, sec := range secs {
		if s.addr >= sec.start && s.addr < sec.end {
			return "binary " + sec.name
		}
	}
	switch {
	case strings.Contains(s.addrAt, "[stack]"):
		return "main thread's stack"
	case strings.Contains(s.addrAt, "[vdso]"), strings.Contains(s.addrAt, "[vvar]"):
		return "vdso"
	case strings.Contains(s.addrAt, ".db)"):
		return "the database's mapping"
	case strings.Contains(s.addrAt, "seen-"), strings.Contains(s.addrAt, "costs-"):
		return "the run directory's files"
	}
	return "anonymous (heap, goroutine stacks, runtime)"
}

func (t *tally) print(w io.Writer, runs, periodUS float64) {
	if t.totalCPU > 0 {
		fmt.Fprintf(w, "CPU a hit by phase (%d samples of %.0f us in %.0f hits)\n", t.totalCPU, periodUS, runs)
		for _, k := range keysBy(t.cpu, nil) {
			fmt.Fprintf(w, "  %-40s %7.0f us %5.1f%%\n", k, float64(t.cpu[k])*periodUS/runs, pct(t.cpu[k], t.totalCPU))
		}
		fmt.Fprintf(w, "  %-40s %7.0f us\n", "all", float64(t.totalCPU)*periodUS/runs)
		fmt.Fprintln(w, "package inits, the costliest, CPU a hit:")
		for i, k := range keysBy(t.initCPU, nil) {
			if i == 12 {
				break
			}
			fmt.Fprintf(w, "  %-40s %7.0f us\n", k, float64(t.initCPU[k])*periodUS/runs)
		}
	}
	if t.totalFaults == 0 {
		return
	}
	fmt.Fprintf(w, "page faults a hit by phase (%d faults in %.0f hits)\n", t.totalFaults, runs)
	for _, k := range keysBy(t.faults, nil) {
		fmt.Fprintf(w, "  %-40s %7.1f %5.1f%%\n", k, float64(t.faults[k])/runs, pct(t.faults[k], t.totalFaults))
	}
	fmt.Fprintf(w, "  %-40s %7.1f\n", "all", float64(t.totalFaults)/runs)
	fmt.Fprintln(w, "package inits, the most page faults a hit:")
	for i, k := range keysBy(t.initFaults, nil) {
		if i == 12 {
			break
		}
		fmt.Fprintf(w, "  %-40s %7.1f\n", k, float64(t.initFaults[k])/runs)
	}
	fmt.Fprintln(w, "page faults a hit, by what they touched:")
	for _, k := range keysBy(t.segFaults, nil) {
		fmt.Fprintf(w, "  %-40s %7.1f\n", k, float64(t.segFaults[k])/runs)
	}
	fmt.Fprintln(w, "page faults a hit in the binary's text, by the package of the code touched (the most):")
	for i, k := range keysBy(t.textFaults, nil) {
		if i == 15 {
			break
		}
		fmt.Fprintf(w, "  %-40s %7.1f\n", k, float64(t.textFaults[k])/runs)
	}
}

func pct(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

// keysBy returns the keys of a and b, largest a (then b) first.
func keysBy(a, b map[string]int) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]int{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if a[keys[i]] != a[keys[j]] {
			return a[keys[i]] > a[keys[j]]
		}
		if b[keys[i]] != b[keys[j]] {
			return b[keys[i]] > b[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

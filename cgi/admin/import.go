package admin

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/term"

	"hitcounter/counter"
	"hitcounter/counter/imports"
	"hitcounter/store"
)

// importFlags are the flags of the import command.
type importFlags struct {
	name    string   // -name: the counter a file of one counter goes into
	logs    []string // -log: access logs, in the order given
	path    string   // -path: the page an access log's requests count for
	dryRun  bool
	replace bool
	// capped is the cap another program's export was read under, nil
	// for none: what it folded is in the summary.
	capped *imports.PageCap
}

func importCommand() command {
	return command{"[-dry-run] [-replace] [-name NAME] FILE | -log FILE [-log FILE ...] [-path PATH] NAME", 1, 1,
		func(fs *flag.FlagSet, e *cmdEnv) {
			f := &e.imp
			fs.StringVar(&f.name, "name", "", "the `counter` a file of one counter's history goes into")
			fs.Func("log", "a web server's access `log` (combined format, gzip'd or not) to read; give it again for more", func(v string) error {
				f.logs = append(f.logs, v)
				return nil
			})
			fs.StringVar(&f.path, "path", "", "the page `path` whose requests in the logs count, such as /index.html")
			fs.BoolVar(&f.dryRun, "dry-run", false, "say what the import would change, and change nothing")
			fs.BoolVar(&f.replace, "replace", false, "make each day the file's even where the file's is lower, and the total the file's")
		}, runImport}
}

// importGCPercent is the garbage collector's GOGC while an import runs.
// What an import keeps grows with the page days it reads, a few bytes
// each, and it makes garbage of every line:
// at Go's default of 100 the heap grows to twice what it keeps before a
// collection. At 25 it stays within a quarter more, for a quarter more
// CPU time; on a Pi of 512 MB that is the difference.
const importGCPercent = 25

// importWait is the longest an import's step waits for the hits before it.
const importWait = 30 * time.Second

// importRoom is the part of COUNTER_MAX_DB_SIZE an import leaves to the
// hits: its staged copy may take as much again as the counter it changes,
// and past this it fails, changing nothing, rather than leave the hits no
// room.
const importRoom = 8

// runImport brings a history from a file into the database, all of it or
// nothing, never lowering a figure unless told to replace.
func runImport(e *cmdEnv, args []string) error {
	defer debug.SetGCPercent(debug.SetGCPercent(importGCPercent))
	f := e.imp
	var imps []counter.Imported
	var from string
	var err error
	if len(f.logs) > 0 {
		if f.name != "" {
			return usagef("import: with -log, the counter is the NAME after the flags, not -name")
		}
		from = strings.Join(f.logs, ", ")
		imps, err = e.readLogs(args[0])
	} else {
		if f.path != "" {
			return usagef("import: -path is for access logs, given with -log")
		}
		from = args[0]
		imps, err = e.readHistory(args[0])
	}
	if err != nil {
		return err
	}
	// A step at a time, each in its own open: the hits meanwhile wait
	// for a step, not for the whole import. The import waits for them
	// longer than a hit would: it is the one that can.
	open := func() (*store.DB, error) {
		return store.Open(e.cfg.DB, store.Options{Create: true, Wait: max(e.cfg.Wait, importWait), MaxSize: e.cfg.MaxDBSize - e.cfg.MaxDBSize/importRoom, Remote: e.cfg.Remote})
	}
	if err := e.update(true, func(*store.DB) error { return nil }); err != nil {
		return err // the owner's warnings, and a file made for a first import
	}
	changes, stats, err := store.ImportInSteps(open, imps, store.ImportOptions{Replace: f.replace, DryRun: f.dryRun, Now: e.cfg.Now()}, 0)
	if errors.Is(err, store.ErrImportNeedsSite) {
		return fmt.Errorf("import: %w", err)
	}
	if err != nil {
		return err
	}
	changed := false
	for _, c := range changes {
		changed = changed || c.Changed()
		writeChange(e.stdout, c)
	}
	if pc := e.imp.capped; pc != nil && pc.Folded() > 0 {
		fmt.Fprintf(e.stdout, "  past max-pages: %d of the file's page rows counted under %s\n", pc.Folded(), counter.OtherPages)
	}
	for _, imp := range imps {
		for _, l := range imp.LeftOut {
			fmt.Fprintf(e.stdout, "left out: %s\n", l)
		}
	}
	switch {
	case f.dryRun && changed:
		fmt.Fprintf(e.stdout, "dry run: nothing changed; run it again without -dry-run to import %s\n", from)
	case f.dryRun || !changed:
		fmt.Fprintf(e.stdout, "nothing to change: the database already holds all that %s gives\n", from)
	default:
		fmt.Fprintf(e.stdout, "imported %s\n", from)
	}
	last := "the last, which made the import visible"
	if f.dryRun {
		last = "the last, which threw its work away"
	}
	fmt.Fprintf(e.stdout, "held the database %d times, at most %v at a time; %s, %v\n",
		stats.Steps, stats.Longest.Round(time.Millisecond), last, stats.Last.Round(time.Millisecond))
	return nil
}

// writeChange says in a few lines what an import did to one counter.
func writeChange(w io.Writer, c store.ImportChange) {
	verb := "changes"
	if c.Made {
		verb = "made"
	} else if !c.Changed() {
		verb = "unchanged"
	}
	fmt.Fprintf(w, "%s: %s\n", c.Name, verb)
	if n := c.DaysNew + c.DaysRaised + c.DaysLowered + c.DaysSame + c.DaysHigher; n > 0 {
		fmt.Fprintf(w, "  days: %d new, %d raised, %d lowered, %d the same", c.DaysNew, c.DaysRaised, c.DaysLowered, c.DaysSame)
		if c.DaysHigher > 0 {
			fmt.Fprintf(w, ", %d higher here than in the file (kept; -replace takes the file's)", c.DaysHigher)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  views: %d -> %d; visitors: %d -> %d\n", c.TotalBefore, c.Total, c.VisitorsBefore, c.Visitors)
	if c.PageDays+c.PagesNew+c.PagesOther > 0 {
		fmt.Fprintf(w, "  pages: %d days changed, %d new pages", c.PageDays, c.PagesNew)
		if c.PagesOther > 0 {
			fmt.Fprintf(w, ", %d days of pages past max-pages under %s", c.PagesOther, counter.OtherPages)
		}
		fmt.Fprintln(w)
	}
	if c.PagesDropped > 0 {
		fmt.Fprintf(w, "  %d days of pages not kept: %s is not a site (make it one with create -site to keep them)\n", c.PagesDropped, c.Name)
	}
	if c.Referrers > 0 {
		fmt.Fprintf(w, "  referring hosts: %d changed\n", c.Referrers)
	}
	if c.Sources > 0 {
		fmt.Fprintf(w, "  sources (where readers came from): %d changed\n", c.Sources)
	}
	if !c.Created.Equal(c.CreatedBefore) && !c.Made {
		fmt.Fprintf(w, "  counting since %s, not %s\n", c.Created.Format(time.DateOnly), c.CreatedBefore.Format(time.DateOnly))
	}
}

// readHistory reads FILE ("-" for stdin) in whichever format it is,
// gzip'd or not.
func (e *cmdEnv) readHistory(file string) ([]counter.Imported, error) {
	in, readable, closeIn, err := e.openInput(file)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(512)
	format := sniff(head)
	if format == formatGzip {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("import: %s: a damaged gzip file: %w", file, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
		head, _ = br.Peek(512)
		if format = sniff(head); format == formatGzip || format == formatZIP {
			return nil, fmt.Errorf("import: %s is gzip'd twice or holds a ZIP file: unwrap it first", file)
		}
	}
	var imp counter.Imported
	var imps []counter.Imported
	switch format {
	case formatZIP:
		f, ok := in.(*os.File)
		var size int64
		if ok {
			if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
				size = fi.Size()
			}
		}
		if size == 0 {
			return nil, usagef("import: a ZIP file is read from a file, not from standard input or a pipe: give its name")
		}
		pc, perr := e.pageCap()
		if perr != nil {
			return nil, perr
		}
		imp, format, err = imports.ExportZIP(f, size, pc)
		if err == nil && len(imp.Days) > 0 {
			imp.TalliedSince = mustDate(imp.Days[0].Date)
		}
	case formatLog:
		return nil, usagef("import: %s looks like an access log: use import -log %s -path PATH NAME", file, file)
	case formatOwnJSON:
		// The file names its counter; -name, when given, takes its place.
		imp, err = imports.OwnJSONCapped(br, func(named string) (*imports.PageCap, error) {
			if e.imp.name != "" {
				return e.pageCap()
			}
			return e.pageCapOf(named)
		})
	case formatOwnCSV:
		pc, perr := e.pageCap()
		if perr != nil {
			return nil, perr
		}
		imp, err = imports.OwnCSVCapped(br, pc)
	case formatGoatCounter:
		pc, perr := e.pageCap()
		if perr != nil {
			return nil, perr
		}
		imp, err = imports.GoatCounterCSV(br, pc)
		if err == nil && len(imp.Days) > 0 {
			// GoatCounter told visitors apart on every day it kept.
			imp.TalliedSince = mustDate(imp.Days[0].Date)
		}
	default:
		imps, err = imports.Counts(br)
	}
	if imps == nil {
		imps = []counter.Imported{imp}
	}
	if err != nil {
		return nil, fmt.Errorf("import: %s (%s): %w", file, format, withoutQuote(err, readable))
	}
	return e.named(imps, file)
}

// pageCap is the cap on the pages of an export that goes into the -name
// counter: the pages of the site and its room for more, so that what the
// reader keeps is bounded by the site's pages rather than by the file's
// (nil, a new site's, for a counter not yet a site).
func (e *cmdEnv) pageCap() (*imports.PageCap, error) { return e.pageCapOf(e.imp.name) }

// pageCapOf is pageCap for the counter name.
func (e *cmdEnv) pageCapOf(name string) (*imports.PageCap, error) {
	if name == "" || checkedName(name) != nil {
		return nil, nil // refused later, with the reason
	}
	var pc *imports.PageCap
	err := e.view(func(db *store.DB) error {
		info, err := db.Counter(name)
		if err != nil || !info.Settings.IsSite() {
			return err
		}
		pages, err := db.Pages(name, time.Time{})
		if err != nil {
			return err
		}
		known := make([]string, 0, len(pages))
		for _, p := range pages {
			if p.Page != counter.OtherPages {
				known = append(known, p.Page)
			}
		}
		pc = imports.NewPageCap(known, info.Settings.Site.MaxPages-len(known))
		return nil
	})
	if err != nil && !errors.Is(err, counter.ErrNotFound) && !errors.Is(err, store.ErrMissing) {
		return nil, err
	}
	e.imp.capped = pc
	return pc, nil
}

// named gives the histories that name no counter the -name one, and
// refuses a -name for a file of several.
func (e *cmdEnv) named(imps []counter.Imported, file string) ([]counter.Imported, error) {
	name := e.imp.name
	if name != "" {
		if err := checkedName(name); err != nil {
			return nil, err
		}
		if len(imps) != 1 {
			return nil, usagef("import: %s holds %d counters, each named: -name is for a file of one", file, len(imps))
		}
		imps[0].Name = name
	}
	for _, imp := range imps {
		if imp.Name == "" {
			return nil, usagef("import: %s does not say which counter it is: add -name NAME", file)
		}
	}
	return imps, nil
}

// readLogs reads the -log files into a history for counter name, judged
// by its settings (those of a new counter if it has none yet).
func (e *cmdEnv) readLogs(name string) ([]counter.Imported, error) {
	if err := checkedName(name); err != nil {
		return nil, err
	}
	s := counter.DefaultSettings()
	err := e.view(func(db *store.DB) error {
		info, err := db.Counter(name)
		if err == nil {
			s = info.Settings
		}
		return err
	})
	if err != nil && !errors.Is(err, counter.ErrNotFound) && !errors.Is(err, store.ErrMissing) {
		return nil, err
	}
	if e.imp.path == "" && !s.IsSite() {
		return nil, usagef("import: -path is needed: which page's requests count for %s? (a site counts every page of its hosts)", name)
	}
	lr, err := imports.NewLogReader(imports.LogOptions{Path: e.imp.path, Settings: s})
	if err != nil {
		return nil, usagef("import: %v", err)
	}
	for _, file := range e.imp.logs {
		if err := e.readLog(lr, file); err != nil {
			return nil, err
		}
	}
	imp := lr.Result()
	imp.Name = name
	if len(imp.Days) > 0 {
		// The logs told visitors apart on every day they hold.
		imp.TalliedSince = mustDate(imp.Days[0].Date)
	}
	return []counter.Imported{imp}, nil
}

// readLog reads one access log, with a progress line on a terminal.
func (e *cmdEnv) readLog(lr *imports.LogReader, file string) error {
	in, readable, closeIn, err := e.openInput(file)
	if err != nil {
		return err
	}
	defer closeIn()
	p := newProgress(e.stderr, file, in)
	err = lr.Read(p)
	p.done()
	if err != nil {
		return fmt.Errorf("import: %s: %w", file, withoutQuote(err, readable))
	}
	return nil
}

// openInput opens file for reading, or stdin for "-", and says whether
// the person who ran the command may read it (stdin is theirs).
func (e *cmdEnv) openInput(file string) (in io.Reader, readable bool, closeIn func(), err error) {
	if file == "-" {
		return e.stdin, true, func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, false, nil, fmt.Errorf("import: %w", err)
	}
	return f, e.runnerMayRead(f), func() { f.Close() }, nil
}

// withoutQuote is a refusal of a file without what it quotes of the file
// when the person who ran the command may not read the file: the line
// and what is wrong, no more.
func withoutQuote(err error, readable bool) error {
	var ie *counter.ImportError
	if readable || !errors.As(err, &ie) {
		return err
	}
	quiet := *ie
	quiet.Quote = ""
	return &quiet
}

func mustDate(date string) time.Time {
	t, _ := time.Parse(time.DateOnly, date)
	return t
}

// The formats import tells apart by a file's first bytes.
const (
	formatCounts      = "NAME COUNT lines or a number"
	formatOwnJSON     = "this counter's stats.json"
	formatOwnCSV      = "this counter's stats.csv"
	formatGoatCounter = "GoatCounter's CSV export"
	formatGzip        = "gzip"
	formatZIP         = "ZIP"
	formatLog         = "access log"
)

// sniff tells a file's format from its first bytes.
func sniff(head []byte) string {
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		return formatGzip
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return formatZIP
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	line, _, _ := bytes.Cut(head, []byte("\n"))
	switch {
	case bytes.HasPrefix(head, []byte("{")):
		return formatOwnJSON
	case bytes.HasPrefix(line, []byte("date,")):
		return formatOwnCSV
	case goatHeader(line):
		return formatGoatCounter
	case bytes.Contains(line, []byte(`] "`)) && bytes.Contains(line, []byte(" [")):
		return formatLog
	}
	return formatCounts
}

// goatHeader reports whether line is the header of GoatCounter's CSV
// export: its version followed by Path, as GoatCounter writes it ("2Path,"
// or, in 2020, "1Path,"), or as its help page shows it ("2,Path,").
func goatHeader(line []byte) bool {
	for _, p := range []string{"2Path,", "1Path,", "2,Path,", "1,Path,"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// progress counts the bytes read from a file and, when the output is a
// terminal, shows how far it has got at most a few times a second.
type progress struct {
	r     io.Reader
	w     io.Writer // nil when not a terminal
	file  string
	size  int64
	read  int64
	shown time.Time
}

func newProgress(out io.Writer, file string, r io.Reader) *progress {
	p := &progress{r: r, file: file}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.w = out
		if in, ok := r.(*os.File); ok {
			if fi, err := in.Stat(); err == nil && fi.Mode().IsRegular() {
				p.size = fi.Size()
			}
		}
	}
	return p
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	if p.w != nil {
		if now := time.Now(); now.Sub(p.shown) >= 200*time.Millisecond {
			p.shown = now
			p.show()
		}
	}
	return n, err
}

func (p *progress) show() {
	const mb = 1 << 20
	if p.size > 0 {
		fmt.Fprintf(p.w, "\rreading %s: %d of %d MB (%d%%) ", p.file, p.read/mb, p.size/mb, p.read*100/p.size)
	} else {
		fmt.Fprintf(p.w, "\rreading %s: %d MB ", p.file, p.read/mb)
	}
}

// done ends the progress line.
func (p *progress) done() {
	if p.w != nil {
		p.show()
		fmt.Fprintln(p.w)
	}
}

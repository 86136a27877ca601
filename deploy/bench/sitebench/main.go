// Command sitebench measures what a site of 10,000 pages with three years
// of history costs: a hit on it beside a hit on a single counter, as CGI
// processes and under FastCGI, and its statistics page. deploy/bench/bench-site.sh
// builds the binary, starts lighttpd and runs it; see there.
//
//	sitebench gen -big FILE -small FILE [-per-day N]
//	sitebench run -bin counter.cgi -big FILE -small FILE [-n N] [-url BASE ...]
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"hitcounter/counter"
	"hitcounter/store"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sitebench:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: sitebench gen|run [flags]")
	}
	fs := flag.NewFlagSet("sitebench "+args[0], flag.ContinueOnError)
	big := fs.String("big", "", "the database with the site and single")
	small := fs.String("small", "", "the database with single alone")
	perDay := fs.Int("per-day", 2500, "gen: views a day on average")
	bin := fs.String("bin", "", "run: the counter binary")
	n := fs.Int("n", 100, "run: rounds of direct CGI runs, each kind of hit once a round")
	statsN := fs.Int("stats-n", 20, "run: rounds of statistics pages")
	base := fs.String("url", "", "run: base URL of lighttpd serving the binary as FastCGI on -big (empty: no FastCGI part)")
	requests := fs.Int("requests", 1000, "run: FastCGI hits per run")
	rounds := fs.Int("rounds", 3, "run: FastCGI rounds")
	conns := fs.String("conns", "4,16", "run: FastCGI concurrent clients, comma-separated")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *big == "" || *small == "" {
		return errors.New("-big and -small are needed")
	}
	switch args[0] {
	case "gen":
		return generate(*big, *small, *perDay, 1)
	case "run":
		if *bin == "" {
			return errors.New("run: -bin is needed")
		}
		if err := hits(*bin, *big, *small, *n); err != nil {
			return err
		}
		if err := statsPages(*bin, *big, *statsN); err != nil {
			return err
		}
		if *base == "" {
			return nil
		}
		var cs []int
		for _, f := range strings.Split(*conns, ",") {
			c, err := strconv.Atoi(f)
			if err != nil || c < 1 {
				return fmt.Errorf("-conns: %q is not a number of connections", f)
			}
			cs = append(cs, c)
		}
		return fastCGI(*base, *requests, *rounds, cs)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// hits times counted hits as direct CGI runs: single in each file, and
// the site on a popular and on a rarely viewed page.
func hits(bin, big, small string, n int) error {
	ref := func(rank int) string { return "https://" + siteHost + pagePath(rank) }
	smallRun, bigRun := filepath.Join(filepath.Dir(small), "run-small"), filepath.Join(filepath.Dir(big), "run-big")
	runs := []cgiRun{
		{"(a) single, small file", bin, cgiEnv(small, smallRun, "/single.png", "", ref(popularRank)), "image/png", true},
		{"(b) single, big file", bin, cgiEnv(big, bigRun, "/single.png", "", ref(popularRank)), "image/png", true},
		{"(c) site, popular page " + pageKey(popularRank), bin, cgiEnv(big, bigRun, "/site.png", "", ref(popularRank)), "image/png", true},
		{"(d) site, rare page " + pageKey(rareRank), bin, cgiEnv(big, bigRun, "/site.png", "", ref(rareRank)), "image/png", true},
	}
	before, err := totals(big, small)
	if err != nil {
		return err
	}
	res, err := interleave(runs, n)
	if err != nil {
		return err
	}
	after, err := totals(big, small)
	if err != nil {
		return err
	}
	// Every run counted, the timed ones and those under GNU time.
	each := uint64(n + (n+rssEvery-1)/rssEvery)
	for i, want := range []uint64{each, each, 2 * each} {
		if got := after[i] - before[i]; got != want {
			return fmt.Errorf("direct runs: %s grew by %d, want %d: not every hit counted", totalNames[i], got, want)
		}
	}
	fmt.Printf("counted hits as direct CGI runs, %d rounds interleaved, each hit a new visitor (peak RSS every %dth round)\n", n, rssEvery)
	printTimed(runs, res)
	for _, p := range [][2]int{{2, 0}, {3, 0}, {2, 1}, {3, 1}} {
		c, a := res[p[0]], res[p[1]]
		fmt.Printf("  ratio %s/%s: p50 %.3f, p90 %.3f, peak RSS %.2f (target <= 1.1)\n",
			runs[p[0]].label[:3], runs[p[1]].label[:3], c.p50/a.p50, c.p90/a.p90, float64(c.peakRSS)/float64(a.peakRSS))
	}
	return nil
}

// totalNames are what totals reads.
var totalNames = [...]string{"single in the small file", "single in the big file", "site"}

// totals reads the views of totalNames.
func totals(big, small string) ([3]uint64, error) {
	var out [3]uint64
	for i, c := range []struct{ file, name string }{{small, "single"}, {big, "single"}, {big, "site"}} {
		db, err := store.Open(c.file, store.Options{ReadOnly: true})
		if err != nil {
			return out, err
		}
		info, err := db.Counter(c.name)
		db.Close()
		if err != nil {
			return out, err
		}
		out[i] = info.Count
	}
	return out, nil
}

// statsPages times the statistics pages as direct CGI runs, and gives
// what they would take on a Pi.
func statsPages(bin, big string, n int) error {
	run := filepath.Join(filepath.Dir(big), "run-big")
	pages := []struct{ path, query string }{
		{"/single/stats", ""},
		{"/site/stats", ""},
		{"/site/stats", "period=90"},
		{"/site/stats", "period=all"},
		{"/site/stats", "page=" + pageKey(popularRank)},
	}
	var runs []cgiRun
	for _, p := range pages {
		label := "GET " + p.path
		if p.query != "" {
			label += "?" + p.query
		}
		runs = append(runs, cgiRun{label, bin, cgiEnv(big, run, p.path, p.query, ""), "text/html", false})
	}
	res, err := interleave(runs, n)
	if err != nil {
		return err
	}
	fmt.Printf("statistics pages as direct CGI runs, %d rounds interleaved (target: the site's within 100 ms)\n", n)
	printTimed(runs, res)
	here, err := bcryptCost10()
	if err != nil {
		return err
	}
	scale := float64(piBcrypt) / float64(here)
	for i, r := range runs {
		fmt.Printf("  on a Pi: %-38s about %4.0f ms\n", r.label, res[i].p50*scale)
	}
	fmt.Printf("  (this machine's bcrypt cost 10 took %.1f ms, a Pi's %.0f ms: x%.1f)\n", ms(here), ms(piBcrypt), scale)
	return nil
}

// piBcrypt is a bcrypt check at cost 10 on a Raspberry Pi, as measured
// (DESIGN.md).
const piBcrypt = 138 * time.Millisecond

// bcryptCost10 times a password check at the pinned cost here the way
// counter.cgi doctor does: the median of counter.TimeHash's.
func bcryptCost10() (time.Duration, error) {
	d, err := counter.TimeHash(counter.PasswordCost, 5)
	if err != nil {
		return 0, err
	}
	slices.Sort(d)
	return d[len(d)/2], nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

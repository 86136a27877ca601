package admin

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"hitcounter/cgi/health"
	"hitcounter/cgi/internal/buildinfo"
	"hitcounter/counter"
	"hitcounter/store"
)

// defaultMaxHash is the doctor's default limit for one hash at the pinned
// cost: past it, a login flood would hurt the rest of the site.
const defaultMaxHash = 250 * time.Millisecond

// doctorRuns is how many hashes the doctor times for its median.
const doctorRuns = 5

// runDoctor measures what a password check costs here, lists stored hashes
// at other costs, and checks the database and the runtime directory. It
// exits non-zero when a check fails: this is the warning that no upgrade
// gives when a cost becomes too slow for the hardware.
func runDoctor(e *cmdEnv, _ []string) error {
	d := doctor{w: e.stdout}
	fmt.Fprintln(d.w, buildinfo.Read())
	times, err := counter.TimeHash(counter.PasswordCost, doctorRuns)
	if err != nil {
		return err
	}
	median := medianOf(times)
	fmt.Fprintf(d.w, "bcrypt at the pinned cost %d: %s a check (median of %d here, %s to %s)\n",
		counter.PasswordCost, ms(median), len(times), ms(slices.Min(times)), ms(slices.Max(times)))
	fmt.Fprintf(d.w, "  a flood of wrong passwords gets at most %.0f checks a second per core; %d may run at once (COUNTER_BCRYPT_SLOTS)\n",
		float64(time.Second)/float64(median), e.cfg.BcryptSlots)
	if median > e.maxHash {
		d.problem("a check takes %s, over the limit of %s: this machine is too slow for cost %d", ms(median), ms(e.maxHash), counter.PasswordCost)
	}
	d.costTable(median)
	list, owner := d.database(e)
	d.hashes(list, owner, median)
	d.runDir(e.cfg.RunDir, e.cfg.DB)
	d.fastCGISocket(e.socket)
	d.decoder()
	if list != nil {
		d.costs(e)
	}
	if d.problems > 0 {
		return fmt.Errorf("doctor: %d problem(s)", d.problems)
	}
	fmt.Fprintln(d.w, "all good")
	return nil
}

// doctor prints findings and counts problems.
type doctor struct {
	w        io.Writer
	problems int
}

func (d *doctor) problem(format string, args ...any) {
	d.problems++
	fmt.Fprintf(d.w, "PROBLEM: "+format+"\n", args...)
}

// database checks the database file and lists its counters, with the
// owner's password hash (nil when none is set). On a cluster there is no
// file: it asks the members how they are, and checks the store's records
// (schema, counts) as the check command does.
func (d *doctor) database(e *cmdEnv) ([]counter.Info, []byte) {
	path, remote := e.cfg.DB, store.IsRemote(e.cfg.DB)
	wait := time.Second
	if remote {
		wait = max(e.cfg.Wait, store.DefaultWait)
	} else {
		var r health.Report
		there := r.Database(path)
		d.print(r)
		if !there {
			return nil, nil
		}
	}
	db, err := store.Open(path, store.Options{ReadOnly: true, Wait: wait, Remote: e.cfg.Remote})
	if err != nil {
		d.problem("%v", err)
		return nil, nil
	}
	defer db.Close()
	if remote {
		c, _, err := db.Cluster()
		var r health.Report
		r.Cluster(path, c, err)
		d.print(r)
		if cr, err := store.CheckWith(path, store.Options{Wait: wait, Remote: e.cfg.Remote}); err != nil {
			d.problem("%v", err)
		} else {
			fmt.Fprintf(d.w, "store %s: ok, schema %d, %d view(s) in all\n", path, cr.Schema, cr.Hits)
		}
	}
	list, err := db.List()
	if err != nil {
		d.problem("%v", err)
	}
	fmt.Fprintf(d.w, "  %d counter(s)\n", len(list))
	o, err := db.OwnerLogin()
	if err != nil {
		d.problem("%v", err)
	}
	return list, o.PasswordHash
}

// print prints the findings of package health's checks.
func (d *doctor) print(r health.Report) {
	for _, l := range r.Lines {
		if l.Problem {
			d.problem("%s", l.Text)
		} else {
			fmt.Fprintln(d.w, l.Text)
		}
	}
}

// hashes lists stored hashes whose cost is not the pinned one, with what
// checking each costs here: the counters' and the owner's.
func (d *doctor) hashes(list []counter.Info, owner []byte, pinned time.Duration) {
	for _, c := range list {
		if c.Protected() {
			d.hash(c.Name, c.Name, c.PasswordHash, pinned)
		}
	}
	if owner != nil {
		d.hash("the owner's login", "-owner", owner, pinned)
	}
}

// hash reports the stored hash of what, which counter passwd args sets
// anew, if its cost is not the pinned one.
func (d *doctor) hash(what, args string, hash []byte, pinned time.Duration) {
	cost, err := counter.HashCost(hash)
	switch {
	case errors.Is(err, counter.ErrHashTooCostly):
		d.problem("%s: hash at cost %d is never checked (about %s a try here): counter passwd %s",
			what, cost, ms(pinned<<(cost-counter.PasswordCost)), args)
	case err != nil:
		d.problem("%s: the stored hash is not a bcrypt hash: counter passwd %s", what, args)
	case cost != counter.PasswordCost:
		t, err := counter.TimeHash(cost, 1)
		if err != nil {
			d.problem("%s: %v", what, err)
			return
		}
		fmt.Fprintf(d.w, "%s: hash at cost %d takes %s a check here; the next good login makes it cost %d\n",
			what, cost, ms(t[0]), counter.PasswordCost)
	}
}

// decoder shows the rights and limits digitset add's decoder runs with, as
// it reports them itself: run by root, it must have dropped them.
func (d *doctor) decoder() {
	bin, err := findDecoder()
	if err != nil {
		fmt.Fprintf(d.w, "digit set decoder: %v\n", err) // digitset add's only
		return
	}
	line, err := decoderStatus(bin)
	if err != nil {
		d.problem("digit set decoder %s: %v", bin, err)
		return
	}
	fmt.Fprintf(d.w, "digit set decoder %s: %s\n", bin, line)
	if strings.HasPrefix(line, "Uid=0,") || !strings.Contains(line, "CapEff=0000000000000000") || !strings.Contains(line, "NoNewPrivs=1") {
		d.problem("digit set decoder %s keeps privileges it must drop: %s", bin, line)
	}
}

// runDir checks the runtime directory, and that this user may make
// files in it.
func (d *doctor) runDir(dir, db string) {
	var r health.Report
	r.RunDir(dir, db, true)
	d.print(r)
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

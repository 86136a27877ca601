package store

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"hitcounter/counter"
	"hitcounter/store/kv"
)

// An import in steps holds the database for a short transaction at a
// time, so that the hits that come meanwhile wait a step, not the import.
// It stays all or nothing: it works on a copy of each counter it changes,
// staged in the file where nothing else reads it, and makes the import
// visible in one last transaction that moves the copy's big buckets (days,
// tally, page-days) into the counter in place of the file's. What the
// hits counted meanwhile is kept: they change only a counter's totals,
// its pages' and referrers' records and the rows of its last days, which
// the last transaction takes from the file as it is then, each moved by
// what the import changed. The import's changes thus count as made when
// it copied the counter, and the hits since on top of them.
//
// The last transaction's work is bounded by a counter's pages, referrers
// and the rows of its last few days, whatever the size of the import.

// ImportStep is how long one step of an import holds the database, about:
// a hit waits for it (as long as COUNTER_WAIT at the most, 2 s by
// default), and the commit adds its own time.
const ImportStep = 50 * time.Millisecond

// importRecentDays is how many days before the import's own the last
// transaction takes again from the file: the days a hit may still write
// (a hit that waited past midnight for its batch).
const importRecentDays = 2

// importPieceRows is how many days or page days a step gives importCounter
// at a time, between looks at the clock.
const importPieceRows = 2000

// bigBuckets are a counter's buckets that grow with its history: an import
// copies them a step at a time, and the last transaction moves them.
var bigBuckets = [][]byte{bucketDays, bucketTally, bucketPageDays}

// ErrImportInterrupted reports an import whose staged work another import
// removed: only one import runs at a time; it changed nothing.
var ErrImportInterrupted = errors.New("another import began while this one ran: this one changed nothing; run it again")

// ErrImportRaced reports a counter that an owner's command deleted, made,
// or merged a page of while an import of it ran: the import changed
// nothing.
var ErrImportRaced = errors.New("the counter was deleted, made or had a page merged while the import ran: the import changed nothing; run it again")

// ImportStats says how an import in steps held the database.
type ImportStats struct {
	Steps int // transactions
	// Longest is the longest any step held the database, from its open
	// to its close; Last that of the step that made the import visible.
	Longest, Last time.Duration
}

// ImportInSteps merges the histories imps as DB.Import does, all of them
// or none, in short transactions, each on a DB that open opens and that is
// closed after it, so that the hits meanwhile get their turn. step is how
// long a step holds the database, about; 0 means ImportStep.
func ImportInSteps(open func() (*DB, error), imps []counter.Imported, o ImportOptions, step time.Duration) ([]ImportChange, ImportStats, error) {
	return importInSteps(open, imps, o, step, importPieceRows)
}

// importInSteps is ImportInSteps with pieces of pieceRows rows.
func importInSteps(open func() (*DB, error), imps []counter.Imported, o ImportOptions, step time.Duration, pieceRows int) ([]ImportChange, ImportStats, error) {
	if step <= 0 {
		step = ImportStep
	}
	im := &stepImport{
		open: open, step: step, imps: imps, o: o,
		id:         encodeUint64(uint64(time.Now().UnixNano())),
		recentFrom: dayKey(o.Now.AddDate(0, 0, -importRecentDays)),
		changes:    make([]ImportChange, len(imps)),
		pieceRows:  pieceRows,
	}
	err := im.run()
	if err != nil {
		if im.begun {
			// Best effort: the next import removes what is left.
			im.update(func(tx kv.Tx, _ time.Time) error { return im.discard(tx) })
		}
		return nil, im.stats, fmt.Errorf("store: import: %w", err)
	}
	return im.changes, im.stats, nil
}

// stepImport is an import in steps under way.
type stepImport struct {
	open       func() (*DB, error)
	step       time.Duration
	imps       []counter.Imported
	o          ImportOptions
	id         []byte
	recentFrom []byte
	begun      bool
	changes    []ImportChange
	stats      ImportStats
	pieceRows  int
	carry      pageCarry // of the history being merged
	room       int       // the writes one commit of the engine takes; 0 for any
}

// stepFull says whether tx's writes fill one commit of its engine (an
// etcd cluster's --max-txn-ops): the step ends there, so that it commits
// at once. Only the first and last steps, whose work cannot be cut, may
// need the engine's commit in steps.
func stepFull(tx kv.Tx) bool {
	f, ok := tx.(interface{ Full() bool })
	return ok && f.Full()
}

// engineRoom is how many writes one commit of db's engine takes at once;
// 0 when it takes any number.
func engineRoom(db *DB) int {
	if m, ok := db.eng.(interface{ MaxOps() int }); ok {
		return m.MaxOps()
	}
	return 0
}

func (im *stepImport) run() error {
	if err := im.update(im.begin); err != nil {
		return err
	}
	im.begun = true
	for done := false; !done; {
		if err := im.update(func(tx kv.Tx, until time.Time) (err error) {
			done, err = im.copyOld(tx, until)
			return err
		}); err != nil {
			return err
		}
	}
	if im.room > 0 {
		// A piece writes a few keys a row: a step of one piece or
		// more commits at once (stepFull).
		im.pieceRows = max(min(im.pieceRows, im.room/4), 1)
	}
	for p := (piecer{imps: im.imps, rows: im.pieceRows}); !p.done(); {
		if err := im.update(func(tx kv.Tx, until time.Time) error {
			return im.merge(tx, &p, until)
		}); err != nil {
			return err
		}
	}
	if im.o.DryRun {
		return im.update(func(tx kv.Tx, _ time.Time) error { return im.discard(tx) })
	}
	return im.update(im.finish)
}

// update runs fn in one write transaction on a database opened for it
// and closed after, and keeps how long it held the database.
func (im *stepImport) update(fn func(tx kv.Tx, until time.Time) error) error {
	if im.stats.Steps > 0 {
		// Let the hits that queued for the lock during the last step
		// take it: the import, awake and ready, would win the race.
		time.Sleep(im.step / 2)
	}
	db, err := im.open()
	if err != nil {
		return err
	}
	im.room = engineRoom(db)
	start := time.Now()
	err = db.update(func(tx kv.Tx) error { return fn(tx, start.Add(im.step)) })
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	held := time.Since(start)
	im.stats.Steps++
	im.stats.Longest = max(im.stats.Longest, held)
	im.stats.Last = held
	return err
}

// work is the import's staging bucket, nil when another import took it.
func (im *stepImport) work(tx kv.Tx) (ib, staged, base, trash kv.Bucket, err error) {
	ib = tx.Bucket(bucketImporting)
	if ib == nil || !bytes.Equal(ib.Get(keyImportID), im.id) {
		return nil, nil, nil, nil, ErrImportInterrupted
	}
	return ib, ib.Bucket(bucketStaged), ib.Bucket(bucketBase), ib.Bucket(bucketTrash), nil
}

// begin removes what an interrupted import left and copies, of each
// counter the import changes, all but the big buckets' rows before
// recentFrom, twice: the staged copy the import changes, and the base
// the last step compares it with. A site's days before today are folded
// first, as its next hit would: the hits meanwhile then fold nothing the
// import changes, unless a day ends.
func (im *stepImport) begin(tx kv.Tx, _ time.Time) error {
	if err := initSchema(tx); err != nil {
		return err
	}
	if tx.Bucket(bucketImporting) != nil {
		if err := tx.DeleteBucket(bucketImporting); err != nil {
			return err
		}
	}
	ib, err := tx.CreateBucket(bucketImporting)
	if err != nil {
		return err
	}
	if err := ib.Put(keyImportID, im.id); err != nil {
		return err
	}
	var parts [3]kv.Bucket
	for i, name := range [][]byte{bucketStaged, bucketBase, bucketTrash} {
		if parts[i], err = ib.CreateBucket(name); err != nil {
			return err
		}
	}
	all := tx.Bucket(bucketCounters)
	for _, imp := range im.imps {
		name := []byte(imp.Name)
		if err := counter.CheckName(imp.Name); err != nil {
			return fmt.Errorf("%s: %w", imp.Name, err)
		}
		live := all.Bucket(name)
		if live == nil {
			if imp.HasPageDays() {
				return fmt.Errorf("%s: %w", imp.Name, ErrImportNeedsSite)
			}
			continue
		}
		if parts[0].Bucket(name) != nil {
			continue // named twice
		}
		if err := foldBefore(live, dayKey(im.o.Now)); err != nil {
			return fmt.Errorf("%s: %w", imp.Name, err)
		}
		for _, to := range parts[:2] {
			if err := im.copyRecent(to, live, name); err != nil {
				return fmt.Errorf("%s: %w", imp.Name, err)
			}
		}
	}
	return nil
}

// foldBefore folds a site's page days before day into its pages' records.
func foldBefore(b kv.Bucket, day []byte) error {
	s, err := readSettings(b)
	if err != nil || s.Site == nil {
		return err
	}
	pages, days := b.Bucket(bucketPages), b.Bucket(bucketPageDays)
	if pages == nil || days == nil {
		return nil
	}
	_, err = foldPages(b, pages, days, day, s.Site.MaxPages)
	return err
}

// copyRecent copies the counter src into a new bucket name in parent: its
// keys and small buckets whole, and of its big buckets the rows from
// recentFrom on.
func (im *stepImport) copyRecent(parent, src kv.Bucket, name []byte) error {
	dst, err := parent.CreateBucket(name)
	if err != nil {
		return err
	}
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			return dst.Put(k, v)
		}
		sub, err := dst.CreateBucket(k)
		if err != nil {
			return err
		}
		from := []byte(nil)
		if isBig(k) {
			from = im.recentFrom
		}
		return copyRows(sub, src.Bucket(k), from)
	})
}

func isBig(name []byte) bool {
	for _, b := range bigBuckets {
		if bytes.Equal(name, b) {
			return true
		}
	}
	return false
}

// copyRows copies the keys of src from from on (all for nil) into dst,
// and its buckets whole.
func copyRows(dst, src kv.Bucket, from []byte) error {
	c := src.Cursor()
	for k, v := c.Seek(from); k != nil; k, v = c.Next() {
		if v != nil {
			if err := dst.Put(k, v); err != nil {
				return err
			}
			continue
		}
		sub, err := dst.CreateBucket(k)
		if err != nil {
			return err
		}
		if err := copyRows(sub, src.Bucket(k), nil); err != nil {
			return err
		}
	}
	return nil
}

// copyOld copies into the staged counters the rows before recentFrom of
// the file's big buckets, which no hit writes, from where the last step
// stopped until until; done says it has copied them all. Where it stopped
// is what the staged bucket holds before recentFrom: its last key.
func (im *stepImport) copyOld(tx kv.Tx, until time.Time) (done bool, err error) {
	_, staged, _, _, err := im.work(tx)
	if err != nil {
		return false, err
	}
	all := tx.Bucket(bucketCounters)
	n := 0
	err = staged.ForEachBucket(func(name []byte) error {
		live, dst := all.Bucket(name), staged.Bucket(name)
		if live == nil {
			return fmt.Errorf("%s: %w", name, ErrImportRaced)
		}
		for _, big := range bigBuckets {
			src, to := live.Bucket(big), dst.Bucket(big)
			if src == nil || to == nil {
				continue
			}
			// Resume after the last old row copied: the staged bucket's
			// rows before recentFrom are all copies, in order.
			tc := to.Cursor()
			last, _ := tc.Seek(im.recentFrom)
			if last != nil {
				last, _ = tc.Prev()
			} else {
				last, _ = tc.Last()
			}
			c := src.Cursor()
			k, v := c.First()
			if last != nil {
				if k, v = c.Seek(last); bytes.Equal(k, last) {
					k, v = c.Next()
				}
			}
			for ; k != nil && bytes.Compare(k, im.recentFrom) < 0; k, v = c.Next() {
				if n++; n > 1 && stepFull(tx) || n%256 == 0 && time.Now().After(until) {
					return errStepDone
				}
				if v == nil {
					continue
				}
				if err := to.Put(k, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if errors.Is(err, errStepDone) {
		return false, nil
	}
	return err == nil, err
}

// errStepDone ends a step whose time is up.
var errStepDone = errors.New("step done")

// piecer cuts the histories into pieces that importCounter merges one at a
// time: days and page days by the importPieceRows (a date's page days may
// be cut: a pageCarry adds up what its pieces bring), each history's last
// piece with what is not by day.
type piecer struct {
	imps       []counter.Imported
	rows       int // of a piece, about
	i          int // the history
	day, page  int // where its next piece begins
	lastDate   string
	gaveOneFor bool // a piece of imps[i] has been given
	// read reads imps[i]'s PageRows, when it has them.
	read func(n int) []counter.PageDay
}

func (p *piecer) done() bool { return p.i >= len(p.imps) }

// next returns the next piece, the history it is of, and whether it is
// that history's first piece.
func (p *piecer) next() (piece counter.Imported, i int, first bool, err error) {
	imp := p.imps[p.i]
	piece, i, first = imp, p.i, !p.gaveOneFor
	dayEnd := min(p.day+p.rows, len(imp.Days))
	piece.Days = imp.Days[p.day:dayEnd]
	pageDays := len(imp.PageDays)
	if imp.PageRows != nil {
		if p.read == nil {
			p.read = imp.PageRows.Open()
		}
		pageDays, piece.PageRows = imp.PageRows.Len(), nil
		piece.PageDays = p.read(p.rows)
	} else {
		piece.PageDays = imp.PageDays[p.page:min(p.page+p.rows, pageDays)]
	}
	pageEnd := p.page + len(piece.PageDays)
	if len(piece.PageDays) > 0 {
		if d := piece.PageDays[0].Date; d < p.lastDate {
			return piece, i, first, fmt.Errorf("%s: page days out of order: %s after %s", imp.Name, d, p.lastDate)
		}
		p.lastDate = piece.PageDays[len(piece.PageDays)-1].Date
	}
	p.day, p.page, p.gaveOneFor = dayEnd, pageEnd, true
	if p.day < len(imp.Days) || p.page < pageDays && len(piece.PageDays) > 0 {
		// Not the last piece: what is not by day comes with the last.
		piece.HasTotal, piece.HasVisitors, piece.Referrers, piece.Sources = false, false, nil, nil
		return piece, i, first, nil
	}
	p.i, p.day, p.page, p.lastDate, p.gaveOneFor, p.read = p.i+1, 0, 0, "", false, nil
	return piece, i, first, nil
}

// merge merges pieces into the staged counters until until.
func (im *stepImport) merge(tx kv.Tx, p *piecer, until time.Time) error {
	_, staged, _, _, err := im.work(tx)
	if err != nil {
		return err
	}
	for !p.done() {
		piece, i, first, err := p.next()
		if err != nil {
			return err
		}
		if first {
			im.carry = pageCarry{}
		}
		c, err := importCounter(staged, piece, im.o, &im.carry)
		if err != nil {
			return fmt.Errorf("%s: %w", piece.Name, err)
		}
		im.changes[i].add(c, first)
		if time.Now().After(until) || stepFull(tx) {
			return nil
		}
	}
	return nil
}

// add adds to c the change of a piece of its history.
func (c *ImportChange) add(p ImportChange, first bool) {
	if first {
		*c = ImportChange{Name: p.Name, Made: p.Made, TotalBefore: p.TotalBefore, VisitorsBefore: p.VisitorsBefore, CreatedBefore: p.CreatedBefore}
	}
	c.DaysNew += p.DaysNew
	c.DaysRaised += p.DaysRaised
	c.DaysLowered += p.DaysLowered
	c.DaysSame += p.DaysSame
	c.DaysHigher += p.DaysHigher
	c.PageDays += p.PageDays
	c.PagesNew += p.PagesNew
	c.PagesOther += p.PagesOther
	c.PagesDropped += p.PagesDropped
	c.Referrers += p.Referrers
	c.Sources += p.Sources
	c.Total, c.Visitors, c.Created = p.Total, p.Visitors, p.Created
}

// discard removes the import's work.
func (im *stepImport) discard(tx kv.Tx) error {
	if _, _, _, _, err := im.work(tx); err != nil {
		return nil // another import's, or none
	}
	return tx.DeleteBucket(bucketImporting)
}

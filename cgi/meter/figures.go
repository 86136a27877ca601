package meter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Kind is a kind of work whose cost is kept apart.
type Kind uint8

const (
	Hit     Kind = iota // an image that counted a hit
	JSON                // NAME.json or NAME.shields.json
	Stats               // a statistics page or its export
	Login               // a login that checked a password (bcrypt)
	Refused             // a login refused without a check
	Commit              // a database commit: its writes and fsyncs
	NumKinds
)

var kindNames = [NumKinds]string{"hit", "json", "stats", "login", "refused", "commit"}

// String is the kind's name in the history, the JSON and the warnings.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind%d", k)
}

// Kinds are every kind, in order.
func Kinds() []Kind {
	k := make([]Kind, NumKinds)
	for i := range k {
		k[i] = Kind(i)
	}
	return k
}

// Buckets is the number of buckets of a histogram. Bucket i holds the
// times from 2^(i/4) to 2^((i+1)/4) microseconds (a step of 19 %): bucket
// 0 everything under 1.19 µs, the last everything from about 14 s.
const Buckets = 96

// Bucket returns the bucket that holds d.
func Bucket(d time.Duration) int {
	us := float64(d) / float64(time.Microsecond)
	if us < 1 {
		return 0
	}
	return min(int(4*math.Log2(us)), Buckets-1)
}

// Middle is the time a bucket stands for: its geometric middle.
func Middle(i int) time.Duration {
	return time.Duration(math.Exp2((float64(i)+0.5)/4) * float64(time.Microsecond))
}

// Histogram counts times in Buckets.
type Histogram [Buckets]uint32

// Count is the number of times in h.
func (h *Histogram) Count() uint64 {
	var n uint64
	for _, c := range h {
		n += uint64(c)
	}
	return n
}

// Quantile is the time under which a fraction q of h's times fall, to
// the precision of a bucket, or 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h {
		if seen += uint64(c); seen >= rank {
			return Middle(i)
		}
	}
	return Middle(Buckets - 1)
}

// Quantiles are the fractions a day keeps: p50, p90 and p99.
var Quantiles = [3]float64{0.50, 0.90, 0.99}

// Figures are the figures of one kind over a day, or over a build's first
// requests.
type Figures struct {
	Count uint32
	Wall  [3]time.Duration // p50, p90, p99
	CPU   [3]time.Duration // p50, p90, p99; zero for commits
}

// FiguresOf returns the figures of a kind's wall and CPU histograms.
func FiguresOf(wall, cpu *Histogram) Figures {
	f := Figures{Count: uint32(min(wall.Count(), math.MaxUint32))}
	for i, q := range Quantiles {
		f.Wall[i], f.CPU[i] = wall.Quantile(q), cpu.Quantile(q)
	}
	return f
}

// P50 and P99 are the figures' median and 99th percentile of wall time.
func (f Figures) P50() time.Duration { return f.Wall[0] }
func (f Figures) P99() time.Duration { return f.Wall[2] }

// Day is one UTC day of the history: the figures of each kind, and the
// build that served the day's last request folded.
type Day struct {
	Date  string // YYYY-MM-DD
	Build string
	Kinds [NumKinds]Figures
}

// ErrRecord is a history record that cannot be read.
var ErrRecord = errors.New("meter: bad record")

const (
	recordVersion = 1
	maxBuildLen   = 100
	figuresSize   = 4 * 7 // count, then six times in microseconds
)

// Encode is the day's record in the database: a version byte, the build
// (a length byte, then the text), then per kind the count and the wall
// and CPU p50, p90 and p99 in microseconds, each a big-endian uint32; a
// later version may add kinds at the end, which this one skips.
func (d Day) Encode() []byte {
	build := d.Build[:min(len(d.Build), maxBuildLen)]
	b := make([]byte, 0, 2+len(build)+int(NumKinds)*figuresSize)
	b = append(b, recordVersion, byte(len(build)))
	b = append(b, build...)
	for _, f := range d.Kinds {
		b = binary.BigEndian.AppendUint32(b, f.Count)
		for _, t := range append(f.Wall[:], f.CPU[:]...) {
			b = binary.BigEndian.AppendUint32(b, micros(t))
		}
	}
	return b
}

// DecodeDay reads the record of date.
func DecodeDay(date string, b []byte) (Day, error) {
	d := Day{Date: date}
	if len(b) < 2 || b[0] < recordVersion || len(b) < 2+int(b[1]) {
		return d, fmt.Errorf("%w: day %s of %d bytes", ErrRecord, date, len(b))
	}
	d.Build, b = string(b[2:2+int(b[1])]), b[2+int(b[1]):]
	if len(b)%figuresSize != 0 {
		return d, fmt.Errorf("%w: day %s: %d bytes of figures", ErrRecord, date, len(b))
	}
	for k := 0; k < int(NumKinds) && len(b) > 0; k++ {
		f := &d.Kinds[k]
		f.Count = binary.BigEndian.Uint32(b)
		for i := range 3 {
			f.Wall[i] = time.Duration(binary.BigEndian.Uint32(b[4+4*i:])) * time.Microsecond
			f.CPU[i] = time.Duration(binary.BigEndian.Uint32(b[16+4*i:])) * time.Microsecond
		}
		b = b[figuresSize:]
	}
	return d, nil
}

func micros(t time.Duration) uint32 {
	return uint32(min(max(t/time.Microsecond, 0), math.MaxUint32))
}

// Replaces says whether d takes the place of old, the record of its date
// already in the history: a day folded twice (a fold that failed half
// way, or a file put back) keeps the record with more hits, and a record
// that cannot be read is replaced.
func (d Day) Replaces(old []byte) bool {
	o, err := DecodeDay(d.Date, old)
	return err != nil || o.Kinds[Hit].Count < d.Kinds[Hit].Count
}

// Encode is the build's record in the database: a Day's, whose build is
// the build's ID and whose date is none.
func (b Build) Encode() []byte { return Day{Build: b.ID, Kinds: b.Kinds}.Encode() }

// DecodeBuild reads a build's record; no record is no build.
func DecodeBuild(rec []byte) (Build, error) {
	if rec == nil {
		return Build{}, nil
	}
	d, err := DecodeDay("", rec)
	if err != nil {
		return Build{}, err
	}
	return Build{ID: d.Build, Kinds: d.Kinds}, nil
}

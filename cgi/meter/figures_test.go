package meter

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBucketAndMiddle(t *testing.T) {
	for _, d := range []time.Duration{0, 500 * time.Nanosecond, time.Microsecond, 37 * time.Microsecond,
		time.Millisecond, 3 * time.Millisecond, 80 * time.Millisecond, 2 * time.Second, 12 * time.Second} {
		i := Bucket(d)
		if i < 0 || i >= Buckets {
			t.Fatalf("Bucket(%v) = %d", d, i)
		}
		// The middle of d's bucket is within a bucket's step of d.
		if d >= 2*time.Microsecond {
			if m := Middle(i); float64(m) < float64(d)/1.2 || float64(m) > float64(d)*1.2 {
				t.Errorf("Middle(Bucket(%v)) = %v, more than a step away", d, m)
			}
		}
	}
	if got := Bucket(1000 * time.Hour); got != Buckets-1 {
		t.Errorf("Bucket(1000h) = %d, want the last", got)
	}
}

func TestQuantile(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 {
		t.Errorf("the empty histogram's p50 is %v, want 0", h.Quantile(0.5))
	}
	// 98 fast requests, 2 slow ones: p50 fast, p99 slow.
	for range 98 {
		h[Bucket(2*time.Millisecond)]++
	}
	h[Bucket(200*time.Millisecond)] += 2
	if got := h.Quantile(0.5); Bucket(got) != Bucket(2*time.Millisecond) {
		t.Errorf("p50 = %v, want about 2ms", got)
	}
	if got := h.Quantile(0.99); Bucket(got) != Bucket(200*time.Millisecond) {
		t.Errorf("p99 = %v, want about 200ms", got)
	}
	if h.Count() != 100 {
		t.Errorf("count %d, want 100", h.Count())
	}
}

func TestDayRecordRoundTrip(t *testing.T) {
	d := Day{Date: "2026-12-04", Build: "v1.2.3 abc1234"}
	for _, k := range Kinds() {
		d.Kinds[k] = Figures{Count: uint32(100 + k),
			Wall: [3]time.Duration{time.Duration(k+1) * time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond},
			CPU:  [3]time.Duration{time.Duration(k+1) * 100 * time.Microsecond, 0, 7 * time.Microsecond}}
	}
	b := d.Encode()
	if len(b) > 300 {
		t.Errorf("a day's record is %d bytes, want a few hundred at most", len(b))
	}
	got, err := DecodeDay(d.Date, b)
	if err != nil || got != d {
		t.Fatalf("DecodeDay(Encode(d)) = %+v, %v; want %+v", got, err, d)
	}
	// A later version's extra kind at the end is skipped.
	if got, err := DecodeDay(d.Date, append(b, make([]byte, figuresSize)...)); err != nil || got != d {
		t.Errorf("a record with a kind more: %+v, %v", got, err)
	}
	for _, bad := range [][]byte{nil, {1}, {1, 9, 'a'}, b[:len(b)-1]} {
		if _, err := DecodeDay(d.Date, bad); err == nil {
			t.Errorf("DecodeDay(%q) took it", bad)
		}
	}
}

// history returns days of hits, oldest first, each of n requests with the
// p50 and p99 that f gives for the day's index.
func history(days, n int, f func(i int) (p50, p99 time.Duration)) []Day {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var out []Day
	for i := range days {
		p50, p99 := f(i)
		d := Day{Date: start.AddDate(0, 0, i).Format(time.DateOnly)}
		d.Kinds[Hit] = Figures{Count: uint32(n), Wall: [3]time.Duration{p50, (p50 + p99) / 2, p99}}
		out = append(out, d)
	}
	return out
}

func TestCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noisy := func(base time.Duration) time.Duration {
		return time.Duration(float64(base) * (0.7 + 0.6*rng.Float64())) // ±30 %
	}
	for _, tc := range []struct {
		name string
		days []Day // the last one is judged
		want []string
	}{
		{"steady", history(15, 500, func(int) (time.Duration, time.Duration) { return 3 * time.Millisecond, 9 * time.Millisecond }), nil},
		{"noise of 30 % either way", history(15, 500, func(int) (time.Duration, time.Duration) {
			return noisy(3 * time.Millisecond), noisy(9 * time.Millisecond)
		}), nil},
		{"p99 doubled and more", history(15, 500, func(i int) (time.Duration, time.Duration) {
			if i == 14 {
				return 3 * time.Millisecond, 25 * time.Millisecond
			}
			return 3 * time.Millisecond, 9 * time.Millisecond
		}), []string{"2026-11-15: hit p99 was 25ms, 2.8 times its median of 9ms over the 14 days before"}},
		{"p50 doubled and more", history(15, 500, func(i int) (time.Duration, time.Duration) {
			if i == 14 {
				return 7 * time.Millisecond, 10 * time.Millisecond
			}
			return 3 * time.Millisecond, 9 * time.Millisecond
		}), []string{"2026-11-15: hit p50 was 7ms, 2.3 times its median of 3ms over the 14 days before"}},
		{"just under twice", history(15, 500, func(i int) (time.Duration, time.Duration) {
			if i == 14 {
				return 5900 * time.Microsecond, 17 * time.Millisecond
			}
			return 3 * time.Millisecond, 9 * time.Millisecond
		}), nil},
		{"too few samples that day", history(15, 500, func(i int) (time.Duration, time.Duration) {
			if i == 14 {
				return 30 * time.Millisecond, 90 * time.Millisecond
			}
			return 3 * time.Millisecond, 9 * time.Millisecond
		})[:14:14], nil},
		{"too few days before", history(6, 500, func(i int) (time.Duration, time.Duration) {
			if i == 5 {
				return 30 * time.Millisecond, 90 * time.Millisecond
			}
			return 3 * time.Millisecond, 9 * time.Millisecond
		}), nil},
		{"days before with too few samples", history(15, 10, func(i int) (time.Duration, time.Duration) {
			return time.Duration(i+1) * time.Millisecond, time.Duration(i+1) * 10 * time.Millisecond
		}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			days := tc.days
			day := days[len(days)-1]
			if tc.name == "too few samples that day" {
				day = Day{Date: "2026-11-15"}
				day.Kinds[Hit] = Figures{Count: MinSamples - 1, Wall: [3]time.Duration{time.Second, time.Second, time.Second}}
			} else {
				days = days[:len(days)-1]
			}
			got := Check(day, days)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Check = %q, want %q", got, tc.want)
			}
		})
	}
	// Days outside the window do not count: 14 old slow days, 7 recent
	// steady ones.
	old := history(30, 500, func(i int) (time.Duration, time.Duration) {
		if i < 20 {
			return 50 * time.Millisecond, 90 * time.Millisecond
		}
		return 3 * time.Millisecond, 9 * time.Millisecond
	})
	day := old[29]
	day.Kinds[Hit].Wall = [3]time.Duration{7 * time.Millisecond, 8 * time.Millisecond, 9 * time.Millisecond}
	if got := Check(day, old[:29]); len(got) != 1 || !strings.Contains(got[0], "hit p50 was 7ms") {
		t.Errorf("Check with old slow days outside the window = %q, want the p50 warning", got)
	}
}

func TestCheckBuild(t *testing.T) {
	build := func(id string, n uint32, p50 time.Duration) Build {
		b := Build{ID: id}
		b.Kinds[Hit] = Figures{Count: n, Wall: [3]time.Duration{p50, p50, p50}}
		return b
	}
	for _, tc := range []struct {
		name      string
		prev, cur Build
		warn      bool
	}{
		{"slower by 1.6", build("a", 100, 2*time.Millisecond), build("b", 100, 3200*time.Microsecond), true},
		{"slower by 1.4", build("a", 100, 2*time.Millisecond), build("b", 100, 2800*time.Microsecond), false},
		{"faster", build("a", 100, 2*time.Millisecond), build("b", 100, time.Millisecond), false},
		{"same build", build("a", 100, 2*time.Millisecond), build("a", 100, 9*time.Millisecond), false},
		{"no previous build", Build{}, build("b", 100, 9*time.Millisecond), false},
		{"previous build had too few", build("a", 50, 2*time.Millisecond), build("b", 100, 9*time.Millisecond), false},
		{"new build has too few yet", build("a", 100, 2*time.Millisecond), build("b", 99, 9*time.Millisecond), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, warn := CheckBuild("2026-12-04", tc.prev, tc.cur, Hit)
			if warn != tc.warn {
				t.Errorf("CheckBuild = %q, %v; want a warning: %v", line, warn, tc.warn)
			}
			if warn && !strings.Contains(line, "hit p50 over the first 100 of build b was 3.2ms, 1.6 times build a's 2ms") {
				t.Errorf("warning %q", line)
			}
		})
	}
}

// TestRecordsAsStored: a day replaces a record of its date only with more
// hits, or a record that cannot be read; a build's record reads back; the
// warnings record drops what is past WarningDays.
func TestRecordsAsStored(t *testing.T) {
	day := func(hits uint32) Day {
		d := Day{Date: "2026-12-03", Build: "v1"}
		d.Kinds[Hit] = Figures{Count: hits, Wall: [3]time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}}
		return d
	}
	for _, tc := range []struct {
		name string
		old  []byte
		want bool
	}{
		{"fewer hits kept", day(5).Encode(), true},
		{"as many hits kept", day(10).Encode(), false},
		{"more hits kept", day(11).Encode(), false},
		{"unreadable", []byte{0}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := day(10).Replaces(tc.old); got != tc.want {
				t.Errorf("Replaces = %v, want %v", got, tc.want)
			}
		})
	}

	b := Build{ID: "v2", Kinds: day(100).Kinds}
	if got, err := DecodeBuild(b.Encode()); err != nil || got != b {
		t.Errorf("DecodeBuild(Encode()) = %+v, %v; want %+v", got, err, b)
	}
	if got, err := DecodeBuild(nil); err != nil || got != (Build{}) {
		t.Errorf("DecodeBuild(nil) = %+v, %v; want no build", got, err)
	}
	if _, err := DecodeBuild([]byte{1, 9}); !errors.Is(err, ErrRecord) {
		t.Errorf("DecodeBuild(short) = %v, want ErrRecord", err)
	}

	now := time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC)
	kept := []byte("2026-11-30: old\n2026-12-01: kept")
	rec := KeepWarnings(kept, []string{"2026-12-31: new"}, now)
	if got, want := DecodeWarnings(rec), []string{"2026-12-01: kept", "2026-12-31: new"}; !slices.Equal(got, want) {
		t.Errorf("KeepWarnings = %q, want %q", got, want)
	}
	if got := DecodeWarnings(nil); got != nil {
		t.Errorf("DecodeWarnings(nil) = %q, want none", got)
	}
}

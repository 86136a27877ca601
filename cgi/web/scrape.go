package web

import (
	"math"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
	"hitcounter/store"
)

// A scrape is the metrics of one answer to /metrics, in the shape of
// Prometheus's data model (families of samples), for writeMetrics.
type scrape struct {
	families []family
}

// family is a metric family: its samples share a name, a help text and a
// type.
type family struct {
	name, help string
	typ        metricType
	samples    []sample
}

type metricType string

const (
	counterType metricType = "counter"
	gauge       metricType = "gauge"
	histogram   metricType = "histogram"
)

// sample is one series: its labels, sorted by name, and a value, or a
// histogram's buckets.
type sample struct {
	labels []label
	value  float64
	hist   *histogramValue
}

type label struct{ name, value string }

// histogramValue is a histogram's cumulative counts at each upper bound
// (le), its count and sum.
type histogramValue struct {
	bounds     []float64 // seconds, ascending, without +Inf
	cumulative []uint64  // per bound
	count      uint64
	sum        float64
}

func (s *scrape) add(f family) {
	if len(f.samples) > 0 {
		s.families = append(s.families, f)
	}
}

// newScrape returns the figures of the file: each counter's views,
// visitors and hits not counted of all time, as counters, so that rate()
// and increase() hold across days, and the file's size against its cap.
func newScrape(m store.Metrics, maxSize int) *scrape {
	s := &scrape{}
	views := family{name: "counter_views_total", typ: counterType,
		help: "Views counted, since the counter was made (an owner's set or import may move it)."}
	visitors := family{name: "counter_visitors_total", typ: counterType,
		help: "Unique visitors, each UTC day's added up."}
	skipped := family{name: "counter_not_counted_total", typ: counterType,
		help: "Hits not counted, by reason, since the file began to keep them."}
	for _, c := range m.Counters {
		kind := "counter"
		if c.Site {
			kind = "site"
		}
		who := []label{{"counter", c.Name}, {"kind", kind}}
		views.samples = append(views.samples, sample{labels: who, value: float64(c.Views)})
		visitors.samples = append(visitors.samples, sample{labels: who, value: float64(c.Visitors)})
		for i, k := range counter.NotCountedKinds {
			skipped.samples = append(skipped.samples, sample{
				labels: []label{who[0], who[1], {"reason", k.String()}}, value: float64(c.NotCounted[i])})
		}
	}
	s.add(views)
	s.add(visitors)
	s.add(skipped)
	s.add(family{name: "counter_database_size_bytes", typ: gauge, help: "Size of the counter's file.",
		samples: []sample{{value: float64(m.Size)}}})
	if !m.LastBackup.IsZero() {
		s.add(family{name: "counter_last_backup_timestamp_seconds", typ: gauge, help: "When counter backup last wrote a checked copy of the file, Unix seconds.",
			samples: []sample{{value: float64(m.LastBackup.Unix())}}})
	}
	s.add(family{name: "counter_database_max_size_bytes", typ: gauge, help: "Size past which the file does not grow (COUNTER_MAX_DB_SIZE).",
		samples: []sample{{value: float64(maxSize)}}})
	return s
}

// durationBounds are the histograms' upper bounds, in seconds: a power of
// two microseconds each, every fourth of the meter's buckets, from 2 µs
// to about 8 s.
func durationBounds() []float64 {
	b := make([]float64, 0, 23)
	for j := 1; j <= 23; j++ {
		b = append(b, math.Ldexp(1e-6, j))
	}
	return b
}

// addDurations adds today's wall times by kind, from the meter's
// histograms (wall, indexed by meter.Kind). The meter keeps a UTC day's
// times, so the counts start again at midnight, which Prometheus takes
// as a counter's reset; the sum is the buckets' middles added up.
func (s *scrape) addDurations(wall *[meter.NumKinds]meter.Histogram) {
	f := family{name: "counter_request_duration_seconds", typ: histogram,
		help: "Wall time of the UTC day's requests by kind, from the cost meter (it starts again at midnight; the sum is estimated from its buckets)."}
	bounds := durationBounds()
	for _, k := range meter.Kinds() {
		h := &wall[k]
		v := &histogramValue{bounds: bounds, cumulative: make([]uint64, len(bounds))}
		for i, n := range h {
			v.count += uint64(n)
			v.sum += float64(n) * meter.Middle(i).Seconds()
			// Meter bucket i ends at 2^((i+1)/4) µs: it is under every
			// bound 2^j µs with 4j >= i+1.
			for j := range bounds {
				if 4*(j+1) >= i+1 {
					v.cumulative[j] += uint64(n)
				}
			}
		}
		f.samples = append(f.samples, sample{labels: []label{{"kind", k.String()}}, hist: v})
	}
	s.add(f)
}

//go:build !promlib

package web

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"hitcounter/cgi/meter"
	"hitcounter/store"
)

// TestMetricsTextIsPrometheus holds writeMetrics to Prometheus's own
// code (prometheus/common's expfmt, the text format 0.0.4): its parser
// reads every family of a scrape with the type and the values written,
// and its encoder writes each family back to the very same bytes.
func TestMetricsTextIsPrometheus(t *testing.T) {
	m := store.Metrics{Size: 1 << 20, LastBackup: time.Unix(1796665563, 0), Counters: []store.CounterTotals{
		{Name: "blog", Views: 1234, Visitors: 456, NotCounted: [6]uint64{1, 2, 3, 4, 5, 6}},
		{Name: "my.site-2_x", Site: true, Views: 1 << 60, Visitors: 0},
	}}
	s := newScrape(m, 1<<30)
	var wall [meter.NumKinds]meter.Histogram
	for i, d := range []time.Duration{500 * time.Nanosecond, 3 * time.Microsecond, 700 * time.Microsecond, 2 * time.Millisecond, 2 * time.Millisecond, 90 * time.Millisecond, 20 * time.Second} {
		wall[meter.Kind(i%int(meter.NumKinds))][meter.Bucket(d)]++
		wall[meter.Hit][meter.Bucket(d)]++
	}
	s.addDurations(&wall)
	s.add(family{name: "counter_bcrypt_check_seconds", typ: gauge, help: `a help with a \ and a "quote"
and a line`, samples: []sample{{labels: []label{{"cost", "10"}}, value: 0.138}}})
	var b bytes.Buffer
	if err := writeMetrics(&b, s); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := p.TextToMetricFamilies(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("expfmt cannot read it: %v\n%s", err, b.Bytes())
	}
	if len(parsed) != len(s.families) {
		t.Errorf("expfmt read %d families, want %d", len(parsed), len(s.families))
	}
	for _, f := range s.families {
		pf, ok := parsed[f.name]
		if !ok {
			t.Errorf("expfmt read no %s", f.name)
			continue
		}
		if got := strings.ToLower(pf.GetType().String()); got != string(f.typ) {
			t.Errorf("%s: expfmt reads type %s, want %s", f.name, got, f.typ)
		}
		if len(pf.Metric) != len(f.samples) {
			t.Errorf("%s: expfmt reads %d samples, want %d", f.name, len(pf.Metric), len(f.samples))
		}
		var mine, theirs bytes.Buffer
		single := &scrape{families: []family{f}}
		writeMetrics(&mine, single)
		if _, err := expfmt.MetricFamilyToText(&theirs, pf); err != nil {
			t.Fatal(err)
		}
		if mine.String() != theirs.String() {
			t.Errorf("%s: written\n%s\nexpfmt writes what it read as\n%s", f.name, mine.Bytes(), theirs.Bytes())
		}
	}
	hits := parsed["counter_request_duration_seconds"].Metric[meter.Hit].Histogram
	if got := hits.GetSampleCount(); got != 9 { // every time, and kind 0's own twice
		t.Errorf("hit histogram count %d, want 9", got)
	}
	if got := hits.Bucket[0].GetCumulativeCount(); got != 2 { // 0.5 µs twice: under 2 µs
		t.Errorf("hit histogram's first bucket (le=%g) %d, want 2", hits.Bucket[0].GetUpperBound(), got)
	}
}

//go:build promlib

package web

import (
	"bytes"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// writeMetrics writes s with Prometheus's client library: a registry of
// one collector of constant metrics, encoded by expfmt. Built only with
// -tags promlib, for deploy/bench/bench-metrics.sh to weigh it against
// the few lines of metricstext.go, which the full tool uses.
func writeMetrics(b *bytes.Buffer, s *scrape) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(collector{s}); err != nil {
		return err
	}
	families, err := reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}

// collector hands a scrape's samples to the registry.
type collector struct{ s *scrape }

func (c collector) descs() []*prometheus.Desc {
	var ds []*prometheus.Desc
	for _, f := range c.s.families {
		var names []string
		for _, l := range f.samples[0].labels {
			names = append(names, l.name)
		}
		ds = append(ds, prometheus.NewDesc(f.name, f.help, names, nil))
	}
	return ds
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs() {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for i, d := range c.descs() {
		f := c.s.families[i]
		for _, smp := range f.samples {
			values := make([]string, len(smp.labels))
			for j, l := range smp.labels {
				values[j] = l.value
			}
			switch {
			case smp.hist != nil:
				buckets := make(map[float64]uint64, len(smp.hist.bounds))
				for j, le := range smp.hist.bounds {
					buckets[le] = smp.hist.cumulative[j]
				}
				ch <- prometheus.MustNewConstHistogram(d, smp.hist.count, smp.hist.sum, buckets, values...)
			case f.typ == counterType:
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, smp.value, values...)
			default:
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, smp.value, values...)
			}
		}
	}
}

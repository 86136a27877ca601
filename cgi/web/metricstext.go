//go:build !promlib

package web

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// writeMetrics writes s in Prometheus's text format 0.0.4, as
// Prometheus's own encoder (expfmt.MetricFamilyToText) writes it, which a
// test holds it to: the client library would add to the full tool more
// than these few lines do (deploy/bench/bench-metrics.sh, RESULTS.md).
func writeMetrics(b *bytes.Buffer, s *scrape) error {
	for _, f := range s.families {
		b.WriteString("# HELP ")
		b.WriteString(f.name)
		b.WriteByte(' ')
		helpEscaper.WriteString(b, f.help)
		b.WriteString("\n# TYPE ")
		b.WriteString(f.name)
		b.WriteByte(' ')
		b.WriteString(string(f.typ))
		b.WriteByte('\n')
		for _, smp := range f.samples {
			if smp.hist == nil {
				writeSample(b, f.name, smp.labels, "", 0, smp.value)
				continue
			}
			h := smp.hist
			for i, le := range h.bounds {
				writeSample(b, f.name+"_bucket", smp.labels, "le", le, float64(h.cumulative[i]))
			}
			writeSample(b, f.name+"_bucket", smp.labels, "le", math.Inf(1), float64(h.count))
			writeSample(b, f.name+"_sum", smp.labels, "", 0, h.sum)
			writeSample(b, f.name+"_count", smp.labels, "", 0, float64(h.count))
		}
	}
	return nil
}

// The escapes of the format: a help text escapes backslashes and line
// feeds, a label value double quotes too.
var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// writeSample writes one line: name, the labels and, if extra is not "",
// the label extra="extraValue" last, then value.
func writeSample(b *bytes.Buffer, name string, labels []label, extra string, extraValue, value float64) {
	b.WriteString(name)
	if len(labels) > 0 || extra != "" {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l.name)
			b.WriteString(`="`)
			labelEscaper.WriteString(b, l.value)
			b.WriteByte('"')
		}
		if extra != "" {
			if len(labels) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(extra)
			b.WriteString(`="`)
			writeFloat(b, extraValue)
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	writeFloat(b, value)
	b.WriteByte('\n')
}

// writeFloat writes f as the format does: the shortest form that reads
// back as f, and +Inf.
func writeFloat(b *bytes.Buffer, f float64) {
	switch {
	case math.IsInf(f, 1):
		b.WriteString("+Inf")
	case math.IsInf(f, -1):
		b.WriteString("-Inf")
	case math.IsNaN(f):
		b.WriteString("NaN")
	default:
		b.Write(strconv.AppendFloat(b.AvailableBuffer(), f, 'g', -1, 64))
	}
}

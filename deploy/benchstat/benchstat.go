// Package benchstat holds the arithmetic the benchmark programs under
// deploy/ share.
package benchstat

import (
	"slices"
	"time"
)

// Percentile returns the p-th percentile (0..100) of d, by nearest rank.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

package main

import (
	"slices"
	"time"
)

// percentile returns the p-th percentile (0..100) of d, nearest rank.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func walls(s []sample) []time.Duration {
	d := make([]time.Duration, len(s))
	for i, x := range s {
		d[i] = x.wall
	}
	return d
}

func peakRSS(s []sample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.maxRSS)
	}
	return m
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

package main

import (
	"time"

	"hitcounter/deploy/bench/benchstat"
)

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

var (
	percentile = benchstat.Percentile
	ms         = benchstat.Ms
)

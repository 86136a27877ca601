package main

import "hitcounter/deploy/bench/benchstat"

var (
	percentile = benchstat.Percentile
	ms         = benchstat.Ms
	walls      = benchstat.Walls
	peakRSS    = benchstat.MaxRSS
)

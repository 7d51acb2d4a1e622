package cputime

import (
	"runtime"
	"testing"
)

type metrics map[string]float64

func (m metrics) ReportMetric(n float64, unit string) { m[unit] = n }

// TestMeterCountsWork burns CPU and checks that a Meter sees it and reports a
// finite positive rate (where the system reports CPU time at all).
func TestMeterCountsWork(t *testing.T) {
	if _, ok := Process(); !ok {
		t.Skip("no CPU time on " + runtime.GOOS)
	}
	m := Start()
	x := 0.0
	for i := 0; m.Seconds() < 0.02; i++ {
		x += float64(i % 7)
	}
	if x < 0 {
		t.Fatal("unreachable")
	}
	got := metrics{}
	m.Rate(got, 1000, "things-per-cpu-s")
	r, ok := got["things-per-cpu-s"]
	if !ok || !(r > 0) || r > 1000/0.02 {
		t.Fatalf("rate %v (reported %v), want in (0, %v]", r, ok, 1000/0.02)
	}
}

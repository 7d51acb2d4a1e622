// Package cputime reads the CPU time (user + system) the process has used, for
// throughput figures that do not depend on what else the machine runs: on a
// shared machine the wall clock counts the time other processes took.
package cputime

import "time"

// A Meter measures the CPU time used since Start.
type Meter struct {
	start time.Duration
	ok    bool
}

// Start returns a Meter started now.
func Start() Meter {
	t, ok := Process()
	return Meter{start: t, ok: ok}
}

// Seconds returns the CPU seconds used since Start, or 0 where the system does
// not report CPU time.
func (m Meter) Seconds() float64 {
	t, ok := Process()
	if !ok || !m.ok {
		return 0
	}
	return (t - m.start).Seconds()
}

// Reporter is what Rate reports to (a *testing.B).
type Reporter interface {
	ReportMetric(n float64, unit string)
}

// Rate reports n per CPU second since Start as unit, when the CPU time is known
// and not zero.
func (m Meter) Rate(r Reporter, n float64, unit string) {
	if s := m.Seconds(); s > 0 {
		r.ReportMetric(n/s, unit)
	}
}

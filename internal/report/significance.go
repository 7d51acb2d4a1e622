package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/taglens/taglens/ml/eval"
)

// metricValue returns a model's mean and standard error of metric (map or auc).
func metricValue(m *eval.ModelReport, metric string) (float64, float64) {
	if metric == "auc" {
		return m.AUC, m.AUCSE
	}
	return m.MAP, m.MAPSE
}

// comparison is ours against the others on one metric of one report.
type comparison struct {
	ours, other       string  // best of ours, best of the others ("" if none)
	oursVal, otherVal float64 // their means
	winner            string  // best model overall
	oursRank          int     // 1-based rank of the best of ours among all models
	p                 float64 // Student's t-test between ours and other over the trials; NaN if unavailable
}

// perTrial returns a model's per-trial values of metric (map or auc).
func perTrial(m *eval.ModelReport, metric string) []float64 {
	x := make([]float64, len(m.PerTrial))
	for i, t := range m.PerTrial {
		x[i] = t.MAP
		if metric == "auc" {
			x[i] = t.AUC
		}
	}
	return x
}

// compareOurs finds the best of the models named in ours and the best of the
// others on metric; ties go to the earlier model.
func compareOurs(r *Report, ours []string, metric string) (comparison, bool) {
	c := comparison{}
	vals := make([]float64, len(r.Models))
	bestOurs := -1
	for i := range r.Models {
		m := &r.Models[i]
		vals[i], _ = metricValue(m, metric)
		if slices.Contains(ours, m.Name) {
			if bestOurs < 0 || vals[i] > c.oursVal {
				bestOurs, c.ours, c.oursVal = i, m.Name, vals[i]
			}
		} else if c.other == "" || vals[i] > c.otherVal {
			c.other, c.otherVal = m.Name, vals[i]
		}
	}
	if bestOurs < 0 {
		return c, false
	}
	c.oursRank = 1
	best := 0
	for i, v := range vals {
		if v > vals[bestOurs] {
			c.oursRank++
		}
		if v > vals[best] {
			best = i
		}
	}
	c.winner = r.Models[best].Name
	c.p = math.NaN()
	if c.other != "" {
		x, y := perTrial(r.model(c.ours), metric), perTrial(r.model(c.other), metric)
		// A degenerate test (no variance in either sample) is no evidence.
		if _, p, ok := eval.StudentTTest(x, y); ok && !(constantValues(x) && constantValues(y)) {
			c.p = p
		}
	}
	return c, true
}

// constantValues reports whether every value of x is the same.
func constantValues(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// fmtP formats c.p.
func (c comparison) fmtP() string {
	if math.IsNaN(c.p) {
		return "n/a"
	}
	return fmt.Sprintf("%.2g", c.p)
}

// margins returns ours over the best other model in percent of the other
// (relative) and in points of the metric ×100 (absolute).
func (c comparison) margins() (rel, abs float64) {
	abs = 100 * (c.oursVal - c.otherVal)
	rel = math.NaN()
	if c.otherVal > 0 {
		rel = 100 * (c.oursVal - c.otherVal) / c.otherVal
	}
	return rel, abs
}

// fmtMargin writes "+12.3 % (+4.5 pts)".
func (c comparison) fmtMargin() string {
	if c.other == "" {
		return "n/a (no other model)"
	}
	rel, abs := c.margins()
	if math.IsNaN(rel) {
		return fmt.Sprintf("%+.1f pts", abs)
	}
	return fmt.Sprintf("%+.1f %% (%+.1f pts)", rel, abs)
}

func pm(m, se float64) string { return fmt.Sprintf("%.3f ± %.3f", m, se) }

// pValue formats the p-value of metric in r, with who it compares.
func pValue(r *Report, metric string) string {
	pv, ok := r.PValues[metric]
	if !ok {
		return "n/a"
	}
	if pv.P == nil {
		return fmt.Sprintf("n/a (%s vs %s)", pv.Best, pv.RunnerUp)
	}
	return fmt.Sprintf("%.2g (%s vs %s)", *pv.P, pv.Best, pv.RunnerUp)
}

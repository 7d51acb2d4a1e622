package eval

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MeanSE returns the mean of x and its standard error s/√n, with s the sample
// standard deviation (denominator n−1). The standard error of fewer than two values
// is undefined and returned as 0. It panics if x is empty.
func MeanSE(x []float64) (mean, se float64) {
	if len(x) == 0 {
		panic("eval: MeanSE: no values")
	}
	for _, v := range x {
		mean += v
	}
	n := float64(len(x))
	mean /= n
	if len(x) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

// StudentTTest is Student's two-sample t-test with pooled variance:
//
//	s_p² = ((n_x−1)s_x² + (n_y−1)s_y²) / (n_x+n_y−2)
//	t    = (x̄ − ȳ) / (s_p·√(1/n_x + 1/n_y)),  df = n_x + n_y − 2
//	p    = 2·(1 − F_t(|t|; df))               (two-sided)
//
// with F_t the CDF of Student's t distribution (gonum distuv.StudentsT). When both
// samples have zero variance, t is ±Inf and p = 0 if the means differ, t = 0 and
// p = 1 if they are equal. ok is false when df < 1 (fewer than three values in all,
// or an empty sample): no p-value is available.
func StudentTTest(x, y []float64) (t, p float64, ok bool) {
	nx, ny := len(x), len(y)
	if nx < 1 || ny < 1 || nx+ny < 3 {
		return 0, 0, false
	}
	mx, _ := MeanSE(x)
	my, _ := MeanSE(y)
	ss := 0.0
	for _, v := range x {
		ss += (v - mx) * (v - mx)
	}
	for _, v := range y {
		ss += (v - my) * (v - my)
	}
	df := float64(nx + ny - 2)
	sp := math.Sqrt(ss / df)
	se := sp * math.Sqrt(1/float64(nx)+1/float64(ny))
	if se == 0 {
		if mx == my {
			return 0, 1, true
		}
		return math.Copysign(math.Inf(1), mx-my), 0, true
	}
	t = (mx - my) / se
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	p = 2 * dist.Survival(math.Abs(t))
	return t, min(p, 1), true
}

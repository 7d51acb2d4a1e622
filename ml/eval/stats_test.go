package eval

import (
	"math"
	"testing"
)

func TestMeanSE(t *testing.T) {
	// x = 1,2,3,4: mean 2.5, sample variance 5/3, SE = √(5/3/4) (hand computation).
	m, se := MeanSE([]float64{1, 2, 3, 4})
	if !closeTo(m, 2.5, tol) || !closeTo(se, math.Sqrt(5.0/12), tol) {
		t.Errorf("got %v ± %v, want 2.5 ± %v", m, se, math.Sqrt(5.0/12))
	}
	if m, se := MeanSE([]float64{7}); m != 7 || se != 0 {
		t.Errorf("one value: got %v ± %v, want 7 ± 0", m, se)
	}
}

// twoSidedP4 is the closed form of Student's t CDF for 4 degrees of freedom (an
// independent check of distuv): with θ = atan(t/2), P(|T| < t) = sinθ·(1 + cos²θ/2)
// (Abramowitz & Stegun 26.7.3, even ν).
func twoSidedP4(t float64) float64 {
	th := math.Atan(math.Abs(t) / 2)
	c := math.Cos(th)
	return 1 - math.Sin(th)*(1+c*c/2)
}

func TestStudentTTest(t *testing.T) {
	tests := []struct {
		name  string
		x, y  []float64
		wantT float64
	}{
		// R: t.test(c(1,2,3), c(4,5,6), var.equal=TRUE): t = -3.6742, df = 4, p = 0.02131.
		{"R example", []float64{1, 2, 3}, []float64{4, 5, 6}, -3 / math.Sqrt(2.0/3)},
		// x̄ = 0.6, ȳ = 0.5333…; SS = 0.02 + 0.046666… = 0.2/3; s_p² = SS/4.
		{"unequal", []float64{0.5, 0.6, 0.7}, []float64{0.4, 0.5, 0.7}, (0.6 - 1.6/3) / math.Sqrt(0.2/3/4*(2.0/3))},
	}
	for _, tt := range tests {
		got, p, ok := StudentTTest(tt.x, tt.y)
		if !ok {
			t.Fatalf("%s: no p-value", tt.name)
		}
		if !closeTo(got, tt.wantT, 1e-9) {
			t.Errorf("%s t: got %v, want %v", tt.name, got, tt.wantT)
		}
		if want := twoSidedP4(tt.wantT); !closeTo(p, want, 1e-9) {
			t.Errorf("%s p: got %v, want %v", tt.name, p, want)
		}
	}
	if _, p, _ := StudentTTest([]float64{1, 2, 3}, []float64{4, 5, 6}); !closeTo(p, 0.02131, 5e-6) {
		t.Errorf("R example p: got %v, want 0.02131", p)
	}
	if _, p, ok := StudentTTest([]float64{1, 1}, []float64{2, 2}); !ok || p != 0 {
		t.Errorf("zero variance, different means: got p %v ok %v, want 0 true", p, ok)
	}
	if _, p, ok := StudentTTest([]float64{1, 1}, []float64{1, 1}); !ok || p != 1 {
		t.Errorf("identical: got p %v ok %v, want 1 true", p, ok)
	}
	if _, _, ok := StudentTTest([]float64{1}, []float64{2}); ok {
		t.Error("one trial each: got ok, want no p-value")
	}
}

package eval_test

import (
	"fmt"

	"github.com/taglens/taglens/ml/eval"
)

// Two models' MAP over three trials, compared with Student's two-sample t-test
// as the reports do.
func ExampleStudentTTest() {
	ours := []float64{0.720, 0.714, 0.726}
	other := []float64{0.668, 0.668, 0.669}
	m, se := eval.MeanSE(ours)
	fmt.Printf("ours %.3f ± %.3f\n", m, se)
	t, p, ok := eval.StudentTTest(ours, other)
	fmt.Printf("t = %.1f, p = %.4f, %v\n", t, p, ok)
	// Output:
	// ours 0.720 ± 0.003
	// t = 14.8, p = 0.0001, true
}

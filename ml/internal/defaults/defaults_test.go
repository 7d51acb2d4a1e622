package defaults

import (
	"math"
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	i := 0
	Positive(&i, 7)
	j := -3
	Positive(&j, 7)
	k := 2
	Positive(&k, 7)
	if i != 7 || j != 7 || k != 2 {
		t.Errorf("ints: got %d, %d, %d, want 7, 7, 2", i, j, k)
	}
	f, nan := 0.0, math.NaN()
	Positive(&f, 0.5)
	Positive(&nan, 0.5)
	if f != 0.5 || !math.IsNaN(nan) {
		t.Errorf("floats: got %v, %v, want 0.5, NaN", f, nan)
	}
	var d time.Duration
	Positive(&d, time.Second)
	if d != time.Second {
		t.Errorf("duration: got %v, want 1s", d)
	}
}

package ce

import (
	"testing"
	"time"
)

// TestPairTime checks the stage-2 rate of the time estimate: the measured one
// when there is one, else two stage-1 examples (no probe up to 1,000 terms),
// so that the estimate during stage 1 counts stage 2's pairs.
func TestPairTime(t *testing.T) {
	tr := &trainer{}
	tr.clk.ex1 = 3 * time.Microsecond
	if got := tr.pairTime(); got != 6*time.Microsecond {
		t.Errorf("pairTime before stage 2 = %v, want two stage-1 examples, 6µs", got)
	}
	if got, want := tr.epoch2Time(1000), 6*time.Millisecond; got != want {
		t.Errorf("epoch2Time(1000) before stage 2 = %v, want %v", got, want)
	}
	tr.clk.pair = 5 * time.Microsecond
	if got := tr.pairTime(); got != 5*time.Microsecond {
		t.Errorf("pairTime measured = %v, want 5µs", got)
	}
}

// TestPilotCount checks that the time estimate counts the pilots stage 2 runs:
// its α × λ grid plus the pilot of Stage2Choose, none for a grid of one, and
// for the completion form, which has no λ, its α values alone.
func TestPilotCount(t *testing.T) {
	for _, c := range []struct {
		loss, start string
		alpha       float64
		want        int
	}{
		{Stage2Eq6, Stage2Best, 0, 4},
		{Stage2Eq6, Stage2Choose, 0, 5},
		{Stage2Eq6, Stage2Best, 0.2, 2},
		{Stage2Completion, Stage2Choose, 0, 0}, // one α by default: no pilots
		{Stage2Ranking, Stage2Best, 0, 4},
	} {
		cfg := Config{Stage2Loss: c.loss, Stage2Start: c.start, Alpha: c.alpha}.withDefaults()
		cfg.Stage2Start = c.start
		tr := &trainer{cfg: cfg}
		if got := tr.pilotCount(); got != c.want {
			t.Errorf("%s, start %s, α %g: %d pilots expected, want %d", c.loss, c.start, c.alpha, got, c.want)
		}
		alphas, lambdas := cfg.stage2Grid()
		if n := len(alphas) * len(lambdas); (n > 1) != (c.want > 0) {
			t.Errorf("%s: the grid has %d points but %d pilots are counted", c.loss, n, c.want)
		}
	}
	cfg := Config{Stage2Loss: Stage2Completion, AlphaGrid: []float64{0.05, 0.2}}.withDefaults()
	cfg.Stage2Start = Stage2Best
	if got := (&trainer{cfg: cfg}).pilotCount(); got != 2 {
		t.Errorf("completion with two α: %d pilots expected, want 2 (λ is not tried)", got)
	}
}

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

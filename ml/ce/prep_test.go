package ce

import (
	"testing"
	"time"
)

// TestPrepLeft checks the estimate of the term features' and LDA's time left:
// none before both have a rate, LDA's sweeps left at the rate of those done,
// the PCA's products left at theirs, the longer of the two, then the topic
// mixtures (a tenth of LDA's sweeps).
func TestPrepLeft(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := &prepState{step: "counts"}
	if _, ok := p.left(t0); ok {
		t.Error("an estimate before LDA's first sweeps")
	}
	p.ldaStart, p.sweeps, p.ofSweeps = t0, 30, 150 // 30 sweeps in 60 s: 2 s a sweep
	now := t0.Add(60 * time.Second)
	if _, ok := p.left(now); ok {
		t.Error("an estimate while the term features count (no PCA product timed)")
	}
	// Two of ten products in 20 s, the last ended 4 s ago: 9 products (8 and
	// the projection) at 10 s, less the 4 s of the running one.
	p.step, p.stepDone, p.stepTotal = "pca", 2, 10
	p.pcaStart, p.pcaLast = now.Add(-24*time.Second), now.Add(-4*time.Second)
	got, ok := p.left(now)
	lda, terms, mix := 120*2*time.Second, 9*10*time.Second-4*time.Second, 15*2*time.Second
	if want := max(lda, terms) + mix; !ok || got != want {
		t.Errorf("left %v (%v), want LDA's %v (the longer) and the mixtures' %v", got, ok, lda, mix)
	}
	p.ldaDone, p.ldaEnd = true, now // 150 sweeps in 60 s: 0.4 s a sweep
	got, _ = p.left(now)
	if want := terms + 15*400*time.Millisecond; got != want {
		t.Errorf("LDA done: left %v, want the features' %v and the mixtures'", got, want)
	}
	p.termsDone = true
	if got, _ = p.left(now); got != 6*time.Second {
		t.Errorf("both done: left %v, want the mixtures' 6 s", got)
	}
}

package baselines

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestCRBMDecay checks the lazy update of a condition column: n batches
// without data gradient applied at once equal n single steps of
// Δ ← μΔ − ηp·w, w ← w + Δ.
func TestCRBMDecay(t *testing.T) {
	dec := crbmDecay{eta: 0.1, mu: 0.5, p: 0.3}
	for _, n := range []int{0, 1, 2, 7, 64, 255} {
		w, vel := []float32{1.5, -0.25}, []float32{0.5, 0.125}
		want, wantVel := []float64{1.5, -0.25}, []float64{0.5, 0.125}
		for range n {
			for j := range want {
				wantVel[j] = dec.mu*wantVel[j] - dec.eta*dec.p*want[j]
				want[j] += wantVel[j]
			}
		}
		dec.apply(w, vel, n)
		for j := range w {
			if math.Abs(float64(w[j])-want[j]) > 1e-6 || math.Abs(float64(vel[j])-wantVel[j]) > 1e-6 {
				t.Errorf("n=%d: (w, Δ)[%d] = (%v, %v), want (%v, %v)", n, j, w[j], vel[j], want[j], wantVel[j])
			}
		}
	}
}

// TestCRBMDecayAdvance checks the lazy advance of an idle column with the
// running sum of the averaging window: n idle batches after batch from move
// (w, Δ) as n single steps do, and add to the sum the values of w after the
// batches beyond winStart, whether the window starts before, inside or after
// the idle run.
func TestCRBMDecayAdvance(t *testing.T) {
	dec := crbmDecay{eta: 0.1, mu: 0.5, p: 0.3}
	for _, c := range []struct{ from, n, winStart int }{
		{0, 5, 0}, {3, 7, 5}, {3, 7, 20}, {10, 1, 10}, {10, 1, 11}, {2, 200, 150}, {50, 255, 0}, {4, 0, 0},
	} {
		w, vel, sum := []float32{1.5, -0.25}, []float32{0.5, 0.125}, []float32{0.75, 0}
		want, wantVel, wantSum := []float64{1.5, -0.25}, []float64{0.5, 0.125}, []float64{0.75, 0}
		for b := c.from + 1; b <= c.from+c.n; b++ {
			for j := range want {
				wantVel[j] = dec.mu*wantVel[j] - dec.eta*dec.p*want[j]
				want[j] += wantVel[j]
				if b > c.winStart {
					wantSum[j] += want[j]
				}
			}
		}
		dec.advance(w, vel, sum, c.from, c.n, c.winStart)
		for j := range w {
			if math.Abs(float64(w[j])-want[j]) > 1e-6 || math.Abs(float64(vel[j])-wantVel[j]) > 1e-6 || math.Abs(float64(sum[j])-wantSum[j]) > 1e-5 {
				t.Errorf("%+v: (w, Δ, sum)[%d] = (%v, %v, %v), want (%v, %v, %v)", c, j, w[j], vel[j], sum[j], want[j], wantVel[j], wantSum[j])
			}
		}
	}
}

// TestCRBMAverageLast checks MatRBM's averaging of the last epochs: with one
// batch per epoch, the model averaged over the last 3 of 8 epochs has the mean
// parameters of the models trained, with the same seed and no averaging, for
// 6, 7 and 8 epochs (the same trajectory stopped earlier).
func TestCRBMAverageLast(t *testing.T) {
	docs := plantedCorpus(3)[:60]
	train := func(epochs, avg int) *CRBM {
		m, err := FitCRBM(context.Background(), docs, plantedV, CRBMOptions{BatchSize: 100, Epochs: epochs, AverageLast: avg, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	got := train(8, 3)
	runs := []*CRBM{train(6, -1), train(7, -1), train(8, -1)}
	check := func(name string, g float64, xs []float64) {
		t.Helper()
		want := (xs[0] + xs[1] + xs[2]) / 3
		if math.Abs(g-want) > 1e-5*(1+math.Abs(want)) {
			t.Errorf("%s: averaged %v, mean of the runs %v (runs %v)", name, g, want, xs)
		}
	}
	for i := range got.u {
		check(fmt.Sprintf("U[%d]", i), got.u[i], []float64{runs[0].u[i], runs[1].u[i], runs[2].u[i]})
	}
	for i := range got.d {
		check(fmt.Sprintf("d[%d]", i), got.d[i], []float64{runs[0].d[i], runs[1].d[i], runs[2].d[i]})
	}
	for i := range got.c {
		check(fmt.Sprintf("c[%d]", i), got.c[i], []float64{runs[0].c[i], runs[1].c[i], runs[2].c[i]})
	}
	for i := range got.cond {
		check(fmt.Sprintf("cond[%d]", i), float64(got.cond[i]), []float64{float64(runs[0].cond[i]), float64(runs[1].cond[i]), float64(runs[2].cond[i])})
	}
	if last := runs[2]; slices.Equal(got.u, last.u) {
		t.Errorf("the averaged U equals the last iterate's")
	}
}

// TestCRBMConditionStep checks the size of MatRBM's condition update: a
// column of W moves by at most η/|B| per batch of its document, times
// 1/(1−μ) through momentum, so after E epochs |W| ≤ E·η/(|B|(1−μ)) (the
// penalty only shrinks it). The earlier per-document step (ConditionStep =
// BatchSize) grows it |B| times faster, beyond that bound.
func TestCRBMConditionStep(t *testing.T) {
	docs := plantedCorpus(3)
	maxW := func(cfg CRBMOptions) float64 {
		cfg.Seed = 11
		m, err := FitCRBM(context.Background(), docs, plantedV, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, x := range m.cond {
			s = max(s, math.Abs(float64(x)))
		}
		return s
	}
	def := CRBMOptions{}.withDefaults()
	bound := float64(def.Epochs) * def.LearningRate / (float64(def.BatchSize) * (1 - def.Momentum))
	if got := maxW(CRBMOptions{}); got > bound || got == 0 {
		t.Errorf("defaults: max |W| = %v, want in (0, %v]", got, bound)
	}
	if got := maxW(CRBMOptions{ConditionStep: float64(def.BatchSize)}); got <= bound {
		t.Errorf("per-document step: max |W| = %v, want above %v", got, bound)
	}
}

package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSGNSGradient checks sgnsLoss's analytic gradient against central finite
// differences of its loss.
func TestSGNSGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const d, n = 6, 4
	x := make([]float64, d)
	ys := make([][]float64, n)
	gy := make([][]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for k := range ys {
		ys[k] = make([]float64, d)
		gy[k] = make([]float64, d)
		for i := range ys[k] {
			ys[k][i] = rng.NormFloat64()
		}
	}
	gx := make([]float64, d)
	sgnsLoss(x, ys, gx, gy)
	const h = 1e-6
	scratch := make([]float64, d)
	f := func() float64 { return sgnsLoss(x, ys, scratch, nil) }
	fd := func(p *float64) float64 {
		old := *p
		*p = old + h
		up := f()
		*p = old - h
		down := f()
		*p = old
		return (up - down) / (2 * h)
	}
	for i := range x {
		if want := fd(&x[i]); math.Abs(gx[i]-want) > 1e-7 {
			t.Errorf("∂ℓ/∂x[%d]: got %v, want %v", i, gx[i], want)
		}
	}
	for k := range ys {
		for i := range ys[k] {
			if want := fd(&ys[k][i]); math.Abs(gy[k][i]-want) > 1e-7 {
				t.Errorf("∂ℓ/∂y[%d][%d]: got %v, want %v", k, i, gy[k][i], want)
			}
		}
	}
	// Loss value by hand for one positive pair at z = 0: −log σ(0) = log 2.
	if got := sgnsLoss([]float64{0}, [][]float64{{1}}, []float64{0}, nil); math.Abs(got-math.Ln2) > 1e-15 {
		t.Errorf("loss at z=0: got %v, want log 2", got)
	}
}

func TestSkipGramPlanted(t *testing.T) {
	const per = 5
	docs := globalPlanted(6, 300, per)
	m, err := FitSkipGram(context.Background(), docs, 2*per, &SkipGramOptions{Dim: 8, Seed: 1, TuneDocs: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grid) != len(SkipGramWindows) || !slices.Contains(SkipGramWindows, m.Window) {
		t.Errorf("grid %v, window %d", m.Grid, m.Window)
	}
	checkGroupsSeparated(t, m, per)
}

func TestSkipGramDeterministic(t *testing.T) {
	docs := globalPlanted(7, 100, 4)
	opt := &SkipGramOptions{Dim: 4, Window: 3, Seed: 9, Epochs: 3}
	a, err := FitSkipGram(context.Background(), docs, 8, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitSkipGram(context.Background(), docs, 8, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Unit, b.Unit) {
		t.Error("same seed gave different vectors")
	}
	opt.Seed = 10
	c, _ := FitSkipGram(context.Background(), docs, 8, opt)
	if slices.Equal(a.Unit, c.Unit) {
		t.Error("different seeds gave identical vectors")
	}
}

func TestSkipGramCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitSkipGram(ctx, globalPlanted(8, 50, 4), 8, &SkipGramOptions{Dim: 2, Window: 1}); err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

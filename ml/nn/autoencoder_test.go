package nn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestAutoEncoderLossFD(t *testing.T) {
	for _, cfg := range []AEConfig{{}, {Sparsity: 0.3, SparsityEps: 0.01, WeightDecay: 0.5}} {
		rng := rand.New(rand.NewPCG(9, 10))
		ae := NewAutoEncoder(5, 3, cfg, rng)
		x := randDense(6, 5, 0.9, rng)
		p := append([]float64(nil), ae.Net.Params...)
		for i := range p {
			p[i] += 0.1 * rng.NormFloat64()
		}
		got := make([]float64, len(p))
		ae.Loss(p, x, got)
		want := numGrad(p, func() float64 { return ae.Loss(p, x, nil) })
		checkGrad(t, "A.1", got, want, 1e-6)
	}
}

// TestPretrainReducesLoss trains the auto-encoders of a small network on structured
// data (rows on a 2-D subspace) and checks each layer's objective went down, the
// output layer is left as initialised, and the run is deterministic.
func TestPretrainReducesLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randDense(200, 8, 1, rng)
	for i := 0; i < 200; i++ {
		r := x.RawRowView(i)
		for j := 2; j < 8; j++ {
			r[j] = 0.5*r[0]*float64(j%3-1) + 0.3*r[1]
		}
	}
	cfg := AEConfig{MaxIterations: 40, Sparsity: 0.1}
	ae := NewAutoEncoder(8, 4, cfg, rand.New(rand.NewPCG(1, 1)))
	before := ae.Loss(ae.Net.Params, x, nil)
	after, err := ae.Train(context.Background(), x, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !(after < 0.5*before) {
		t.Errorf("auto-encoder loss %v after training, want < half of %v", after, before)
	}
	sizes := []int{8, 6, 4, 3}
	a, err := Pretrain(context.Background(), x, sizes, cfg, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Pretrain(context.Background(), x, sizes, cfg, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Params {
		if a.Params[i] != b.Params[i] {
			t.Fatalf("Pretrain not deterministic at %d: %v vs %v", i, a.Params[i], b.Params[i])
		}
	}
	init := NewMLP(sizes, rand.New(rand.NewPCG(5, 5)))
	l := a.Layout()
	for i, v := range l.Layer(a.Params, 3) {
		if v != l.Layer(init.Params, 3)[i] {
			t.Fatalf("output layer changed by Pretrain")
		}
	}
	changed := false
	for i, v := range l.Layer(a.Params, 1) {
		if math.Abs(v-l.Layer(init.Params, 1)[i]) > 1e-9 {
			changed = true
		}
	}
	if !changed {
		t.Errorf("layer 1 not trained")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Pretrain(ctx, x, sizes, cfg, rand.New(rand.NewPCG(5, 5))); err == nil {
		t.Errorf("cancelled Pretrain: got nil error")
	}
}

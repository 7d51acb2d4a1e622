package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func gatherCols(full *mat.Dense, cols []int) *mat.Dense {
	K, _ := full.Dims()
	out := mat.NewDense(K, len(cols), nil)
	for k := 0; k < K; k++ {
		for c, j := range cols {
			out.Set(k, c, full.At(k, j))
		}
	}
	return out
}

func TestSampledPredictionLossFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const K, G = 4, 15
	ts := randTargets(rng, K, G)
	for k := range ts {
		ts[k].Idx = ts[k].Idx[:min(3, len(ts[k].Idx))]
	}
	var s ColumnSample
	s.Draw(ts, G, 4, rng)
	yhat := randDense(K, len(s.Cols), 0.9, rng)
	grad := mat.NewDense(K, len(s.Cols), nil)
	SampledPredictionLoss(yhat, &s, ts, grad)
	fd := numGrad(yhat.RawMatrix().Data, func() float64 { return SampledPredictionLoss(yhat, &s, ts, nil) })
	checkGrad(t, "sampled Eq. 5", grad.RawMatrix().Data, fd, 1e-6)

	// With M = |Γ| the estimate is Eq. 5 exactly.
	full := randDense(K, G, 0.9, rng)
	s.Draw(ts, G, G, rng)
	got := SampledPredictionLoss(gatherCols(full, s.Cols), &s, ts, nil)
	want := PredictionLoss(full, ts, nil)
	if math.Abs(got-want) > 1e-13 {
		t.Errorf("M = |Γ|: got %v, want %v", got, want)
	}
}

// TestSampledPredictionLossUnbiased checks E[L̂] = L_P and E[∂L̂/∂ŷ] = ∂L_P/∂ŷ by
// Monte Carlo: the mean over many draws must lie within 5 standard errors of the
// exact Eq. 5 value (PredictionLoss).
func TestSampledPredictionLossUnbiased(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo test")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	const K, G, M, draws = 3, 20, 5, 40000
	ts := []Target{{Idx: []int{1, 7}}, {Idx: []int{3}, Complement: true}, {Idx: []int{0, 19, 4}}}
	full := randDense(K, G, 0.95, rng)
	exactG := mat.NewDense(K, G, nil)
	exact := PredictionLoss(full, ts, exactG)
	n := 1 + K*G
	sum := make([]float64, n)
	sum2 := make([]float64, n)
	var s ColumnSample
	for range draws {
		s.Draw(ts, G, M, rng)
		y := gatherCols(full, s.Cols)
		g := mat.NewDense(K, len(s.Cols), nil)
		v := make([]float64, n)
		v[0] = SampledPredictionLoss(y, &s, ts, g)
		for k := 0; k < K; k++ {
			for c, j := range s.Cols {
				v[1+k*G+j] += g.At(k, c)
			}
		}
		for i, x := range v {
			sum[i] += x
			sum2[i] += x * x
		}
	}
	want := append([]float64{exact}, exactG.RawMatrix().Data...)
	for i := range sum {
		mean := sum[i] / draws
		se := math.Sqrt(math.Max(sum2[i]/draws-mean*mean, 0) / draws)
		if math.Abs(mean-want[i]) > 5*se+1e-12 {
			t.Errorf("entry %d: Monte Carlo mean %v ± %v, exact %v", i, mean, se, want[i])
		}
	}
}

func TestColumnSampleDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	var s ColumnSample
	ts := []Target{{Idx: []int{2, 9}}, {Idx: []int{9, 11}, Complement: true}}
	s.Draw(ts, 12, 4, rng)
	seen := map[int]bool{}
	for _, j := range s.Cols {
		if seen[j] {
			t.Fatalf("unit %d twice in %v", j, s.Cols)
		}
		seen[j] = true
	}
	for _, j := range []int{2, 9, 11} {
		if !seen[j] {
			t.Errorf("listed unit %d missing from %v", j, s.Cols)
		}
	}
	if s.M != 4 || len(s.Cols) < 4 || len(s.Cols) > 7 {
		t.Errorf("got M=%d, %d columns, want M=4 and 4..7 columns", s.M, len(s.Cols))
	}
}

// sampledLossByColumn is sampledPredictionLoss written as one pass over the
// columns in order, each classed by a lookup of the row's listed units: the
// definition the faster form must reproduce bit for bit.
func sampledLossByColumn(yhat *mat.Dense, s *ColumnSample, targets []Target, grad *mat.Dense) float64 {
	K, _ := yhat.Dims()
	G := s.NOut
	inv := 1 / (float64(K) * float64(G))
	scale := float64(G) / float64(s.M)
	var loss float64
	for k := 0; k < K; k++ {
		t := targets[k]
		wPos, wNeg := t.Weights(G)
		wPos, wNeg = wPos*inv, wNeg*inv
		listed := map[int]bool{}
		for _, j := range t.Idx {
			listed[int(s.pos[j])] = true
		}
		var arg, coef []float64
		for c := range s.Cols {
			v := yhat.At(k, c)
			var w float64
			switch {
			case listed[c]:
				w = 1
			case c < s.M:
				w = scale
			default:
				if grad != nil {
					grad.Set(k, c, 0)
				}
				continue
			}
			v = clampY(v)
			if listed[c] != t.Complement {
				arg, coef = append(arg, 1+v), append(coef, w*wPos)
				if grad != nil {
					grad.Set(k, c, -w*wPos/(1+v))
				}
			} else {
				arg, coef = append(arg, 1-v), append(coef, w*wNeg)
				if grad != nil {
					grad.Set(k, c, w*wNeg/(1-v))
				}
			}
		}
		for i, a := range arg {
			loss -= coef[i] * math.Log(a)
		}
	}
	return loss
}

// TestKernelSampledLossBits checks the sampled Eq. 5 (its loss and every
// gradient entry) against sampledLossByColumn bit for bit, with complements,
// both class weightings, outputs past the clamp and listed units outside U.
func TestKernelSampledLossBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for trial := range 40 {
		K, G := 1+rng.IntN(12), 5+rng.IntN(200)
		ts := randTargets(rng, K, G)
		for k := range ts {
			ts[k].Complement = rng.IntN(4) == 0
			ts[k].Balanced = rng.IntN(2) == 0
		}
		var s ColumnSample
		s.Draw(ts, G, 1+rng.IntN(G), rng)
		yhat := randDense(K, len(s.Cols), 1.2, rng) // some entries past ±(1−Eps)
		got, want := mat.NewDense(K, len(s.Cols), nil), mat.NewDense(K, len(s.Cols), nil)
		for i := range got.RawMatrix().Data {
			got.RawMatrix().Data[i] = 7 // stale values must be overwritten
			want.RawMatrix().Data[i] = 7
		}
		lg := SampledPredictionLoss(yhat, &s, ts, got)
		lw := sampledLossByColumn(yhat, &s, ts, want)
		if math.Float64bits(lg) != math.Float64bits(lw) {
			t.Fatalf("trial %d: loss %v, want %v", trial, lg, lw)
		}
		for i, v := range got.RawMatrix().Data {
			if w := want.RawMatrix().Data[i]; math.Float64bits(v) != math.Float64bits(w) {
				t.Fatalf("trial %d: gradient entry %d is %v, want %v", trial, i, v, w)
			}
		}
		if l := SampledPredictionLoss(yhat, &s, ts, nil); math.Float64bits(l) != math.Float64bits(lw) {
			t.Fatalf("trial %d: loss without a gradient %v, want %v", trial, l, lw)
		}
	}
}

// BenchmarkSampledLoss times the sampled Eq. 5 and its gradient for a batch of
// 100 examples of a 7,800-term vocabulary (lastfm-hetrec's size), M = 512, five
// listed units an example.
func BenchmarkSampledLoss(b *testing.B) {
	rng := rand.New(rand.NewPCG(61, 62))
	const K, G, M = 100, 7800, 512
	ts := make([]Target, K)
	for k := range ts {
		ts[k] = Target{Idx: rng.Perm(G)[:5], Complement: k%2 == 1, Balanced: true}
	}
	var s ColumnSample
	s.Draw(ts, G, M, rng)
	yhat := randDense(K, len(s.Cols), 0.9, rng)
	grad := mat.NewDense(K, len(s.Cols), nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		SampledPredictionLoss(yhat, &s, ts, grad)
	}
}

package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// numGrad returns the central finite-difference gradient (gonum's diff/fd, step
// 1e-6) of f, a function of the values in p, at p; p is restored.
func numGrad(p []float64, f func() float64) []float64 {
	at := slices.Clone(p)
	g := fd.Gradient(nil, func(x []float64) float64 {
		copy(p, x)
		return f()
	}, at, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	copy(p, at)
	return g
}

// checkGrad compares an analytic gradient with a finite-difference one with a mixed
// absolute/relative tolerance.
func checkGrad(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: gradient length %d, want %d", name, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > tol*(1+math.Abs(want[i])) {
			t.Errorf("%s: grad[%d] = %v, finite difference %v", name, i, got[i], want[i])
			return
		}
	}
}

func randDense(r, c int, scale float64, rng *rand.Rand) *mat.Dense {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = scale * (2*rng.Float64() - 1)
	}
	return mat.NewDense(r, c, d)
}

// dotAll returns Σ a∘b.
func dotAll(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	var s float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s += a.At(i, j) * b.At(i, j)
		}
	}
	return s
}

// TestBackwardFD checks Backward against finite differences for the linear functional
// L = Σ_h <C_h, z_h> acting on any set of layers, which has ∂L/∂z_h = C_h.
func TestBackwardFD(t *testing.T) {
	sizes := []int{6, 5, 4, 3, 7}
	H := len(sizes) - 1
	cases := []struct {
		name   string
		layers []int // layers the loss acts on
	}{
		{"output", []int{H}},
		{"output+CE", []int{H, H - 1}},
		{"CE only", []int{H - 1}},
		{"all", []int{1, 2, 3, 4}},
		{"first", []int{1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			m := NewMLP(sizes, rng)
			for i := range m.Params {
				m.Params[i] += 0.1 * rng.NormFloat64() // non-zero biases
			}
			const batch = 4
			x := randDense(batch, sizes[0], 1, rng)
			grads := make([]*mat.Dense, H+1)
			upTo := 0
			for _, h := range tc.layers {
				grads[h] = randDense(batch, sizes[h], 1, rng)
				upTo = max(upTo, h)
			}
			ws := NewWorkspace(sizes, 2) // grows to 4
			loss := func() float64 {
				m.ForwardTo(ws, x, upTo)
				var s float64
				for _, h := range tc.layers {
					s += dotAll(grads[h], ws.Out(h))
				}
				return s
			}
			loss()
			got := make([]float64, len(m.Params))
			m.Backward(ws, grads, got)
			want := numGrad(m.Params, loss)
			checkGrad(t, tc.name, got, want, 1e-6)
		})
	}
}

// TestForwardColsFD checks the restricted output path: forward against the full
// forward, backward against finite differences, with a hidden injection as well.
func TestForwardColsFD(t *testing.T) {
	sizes := []int{5, 4, 3, 9}
	H := len(sizes) - 1
	rng := rand.New(rand.NewPCG(3, 4))
	m := NewMLP(sizes, rng)
	for i := range m.Params {
		m.Params[i] += 0.1 * rng.NormFloat64()
	}
	const batch = 3
	x := randDense(batch, sizes[0], 1, rng)
	cols := []int{7, 2, 5}
	ws := NewWorkspace(sizes, batch)
	full := NewWorkspace(sizes, batch)
	m.ForwardCols(ws, x, cols)
	m.ForwardTo(full, x, H)
	for i := 0; i < batch; i++ {
		for c, j := range cols {
			if got, want := ws.Out(H).At(i, c), full.Out(H).At(i, j); math.Abs(got-want) > 1e-14 {
				t.Fatalf("restricted output (%d,%d) = %v, want %v", i, c, got, want)
			}
		}
	}
	gOut := randDense(batch, len(cols), 1, rng)
	gCE := randDense(batch, sizes[H-1], 1, rng)
	loss := func() float64 {
		m.ForwardCols(ws, x, cols)
		return dotAll(gOut, ws.Out(H)) + dotAll(gCE, ws.Out(H-1))
	}
	loss()
	got := make([]float64, len(m.Params))
	grads := make([]*mat.Dense, H+1)
	grads[H], grads[H-1] = gOut, gCE
	m.Backward(ws, grads, got)
	want := numGrad(m.Params, loss)
	checkGrad(t, "restricted", got, want, 1e-6)
	// Rows of W_H and entries of b_H outside cols get no gradient.
	l := m.Layout()
	dW := l.Weights(got, H)
	for j := 0; j < sizes[H]; j++ {
		if j == 7 || j == 2 || j == 5 {
			continue
		}
		for p := 0; p < sizes[H-1]; p++ {
			if dW.At(j, p) != 0 {
				t.Fatalf("dW_H[%d,%d] = %v, want 0", j, p, dW.At(j, p))
			}
		}
	}
}

func randTargets(rng *rand.Rand, K, G int) []Target {
	ts := make([]Target, K)
	for k := range ts {
		n := 1 + rng.IntN(G/2)
		perm := rng.Perm(G)[:n]
		ts[k] = Target{Idx: perm, Complement: k%2 == 1}
	}
	return ts
}

func TestPredictionLossFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const K, G = 4, 7
	yhat := randDense(K, G, 0.9, rng)
	ts := randTargets(rng, K, G)
	y := mat.NewDense(K, G, nil)
	for k, tg := range ts {
		tg.Dense(y.RawRowView(k))
	}
	grad := mat.NewDense(K, G, nil)
	loss := PredictionLoss(yhat, ts, grad)
	gradD := mat.NewDense(K, G, nil)
	lossD := PredictionLossDense(yhat, y, gradD)
	if math.Abs(loss-lossD) > 1e-14 {
		t.Errorf("sparse loss %v, dense loss %v", loss, lossD)
	}
	checkGrad(t, "sparse vs dense", grad.RawMatrix().Data, gradD.RawMatrix().Data, 1e-13)
	fd := numGrad(yhat.RawMatrix().Data, func() float64 { return PredictionLoss(yhat, ts, nil) })
	checkGrad(t, "Eq. 5", grad.RawMatrix().Data, fd, 1e-6)

	// Hand value: K=1, |Γ|=2, y = (+1,-1), ŷ = (0.5, -0.5), κ = 1/2:
	// L = -1/(2·2)·(½·2·log 1.5 + ½·2·log 1.5) = -log(1.5)/2.
	one := PredictionLoss(mat.NewDense(1, 2, []float64{0.5, -0.5}), []Target{{Idx: []int{0}}}, nil)
	if want := -math.Log(1.5) / 2; math.Abs(one-want) > 1e-15 {
		t.Errorf("hand case: got %v, want %v", one, want)
	}
}

func TestSiameseLossFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const N, dim = 6, 3
	ce1 := randDense(N, dim, 1, rng)
	ce2 := randDense(N, dim, 1, rng)
	types := []PairType{I1, I2, I3, I1, I3, I2}
	d := []float64{0.9, 0.2, 0.5, 0.01, 1, 0.7}
	for _, cfg := range []SiameseConfig{{}, {Beta: 2, Rho: 0.3}} {
		g1 := mat.NewDense(N, dim, nil)
		g2 := mat.NewDense(N, dim, nil)
		SiameseLoss(ce1, ce2, types, d, cfg, g1, g2)
		f := func() float64 { return SiameseLoss(ce1, ce2, types, d, cfg, nil, nil) }
		checkGrad(t, "Eq. 6 ce1", g1.RawMatrix().Data, numGrad(ce1.RawMatrix().Data, f), 1e-6)
		checkGrad(t, "Eq. 6 ce2", g2.RawMatrix().Data, numGrad(ce2.RawMatrix().Data, f), 1e-6)
	}
	// E = 0 gives a finite zero gradient.
	same := randDense(1, dim, 1, rng)
	g1 := mat.NewDense(1, dim, nil)
	g2 := mat.NewDense(1, dim, nil)
	l := SiameseLoss(same, same, []PairType{I3}, []float64{1}, SiameseConfig{}, g1, g2)
	// Hand value: I3 with D = 1, E = 0: (0 - √3)² = 3.
	if math.Abs(l-3) > 1e-12 {
		t.Errorf("E=0 loss: got %v, want 3", l)
	}
	for _, v := range g1.RawMatrix().Data {
		if v != 0 || math.IsNaN(v) {
			t.Errorf("E=0 gradient: got %v, want 0", v)
		}
	}
}

// TestGroupLossFD checks GroupLoss's gradients by finite differences, with one
// anchor and in the set form, and hand values: a group of two pairs with
// E_0² = 0 and E_1² = 1 at T = 1 gives log(1 + e^{-1}).
func TestGroupLossFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const N, dim = 8, 3
	ce1 := randDense(N, dim, 1, rng)
	ce2 := randDense(N, dim, 1, rng)
	for _, cfg := range []SiameseConfig{{Group: 4}, {Group: 2, Temperature: 0.5}, {Group: 8, Anchors: 2}, {Group: 4, Anchors: 2, Temperature: 0.7}} {
		g1 := mat.NewDense(N, dim, nil)
		g2 := mat.NewDense(N, dim, nil)
		GroupLoss(ce1, ce2, cfg, g1, g2)
		f := func() float64 { return GroupLoss(ce1, ce2, cfg, nil, nil) }
		checkGrad(t, "group ce1", g1.RawMatrix().Data, numGrad(ce1.RawMatrix().Data, f), 1e-6)
		checkGrad(t, "group ce2", g2.RawMatrix().Data, numGrad(ce2.RawMatrix().Data, f), 1e-6)
	}
	a := mat.NewDense(2, 1, []float64{0, 0})
	b := mat.NewDense(2, 1, []float64{0, 1})
	if got, want := GroupLoss(a, b, SiameseConfig{Group: 2}, nil, nil), math.Log(1+math.Exp(-1)); math.Abs(got-want) > 1e-12 {
		t.Errorf("hand value: got %v, want %v", got, want)
	}
	// The set form: two candidates of two anchors each; the positive's rows at
	// E² = 4 and 0, the negative's at 1 and 9: each scores by its nearer row,
	// s = (0, −1), the same log(1 + e^{-1}).
	a = mat.NewDense(4, 1, []float64{0, 0, 0, 0})
	b = mat.NewDense(4, 1, []float64{2, 0, 1, 3})
	if got, want := GroupLoss(a, b, SiameseConfig{Group: 4, Anchors: 2}, nil, nil), math.Log(1+math.Exp(-1)); math.Abs(got-want) > 1e-12 {
		t.Errorf("set form's hand value: got %v, want %v", got, want)
	}
	// Through SiameseLoss the same figure (the types and D are unused).
	if got := SiameseLoss(ce1, ce2, make([]PairType, N), make([]float64, N), SiameseConfig{Group: 4}, nil, nil); got != GroupLoss(ce1, ce2, SiameseConfig{Group: 4}, nil, nil) {
		t.Errorf("SiameseLoss with Group 4 = %v, GroupLoss %v", got, GroupLoss(ce1, ce2, SiameseConfig{Group: 4}, nil, nil))
	}
}

// TestPredictionLossFold checks that the folded gradient of the Trainer equals
// ∂L_P/∂ŷ ⊙ (1 - ŷ²) computed from PredictionLoss's gradient, including saturated
// and clamped outputs, and that the loss is the same.
func TestPredictionLossFold(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const K, G = 6, 9
	yhat := randDense(K, G, 1, rng)
	// Saturated and nearly saturated outputs on both sides.
	yhat.Set(0, 0, 1)
	yhat.Set(1, 1, -1)
	yhat.Set(2, 2, 1-Eps/2)
	yhat.Set(3, 3, -1+Eps/2)
	yhat.Set(4, 4, 1-2*Eps)
	targets := randTargets(rng, K, G)
	targets[0] = Target{Idx: []int{0, 3}, Complement: true}
	targets[1] = Target{Idx: []int{1}}
	gradP := mat.NewDense(K, G, nil)
	want := PredictionLoss(yhat, targets, gradP)
	delta := mat.NewDense(K, G, nil)
	got := predictionLossFold(yhat, targets, delta, K, true)
	if got != want {
		t.Errorf("loss = %v, want %v", got, want)
	}
	for k := 0; k < K; k++ {
		for j := 0; j < G; j++ {
			v := yhat.At(k, j)
			w := gradP.At(k, j) * (1 - v*v)
			// 1 - v² computed in floating point carries an absolute error of about
			// an ulp of 1, large relative to 1 - v² near saturation; the folded
			// form avoids that cancellation, so allow for it in the reference.
			tol := 1e-14 + 4.5e-16/math.Max(1-v*v, 1e-300)
			if g := delta.At(k, j); math.Abs(g-w) > tol*math.Abs(w) {
				t.Errorf("δ[%d,%d] = %v, want %v", k, j, g, w)
			}
		}
	}
}

// TestSumLogProd compares the product-of-factors logarithm sums with a plain sum of
// math.Log over lengths around the 4×16 blocking, including clamped entries.
func TestSumLogProd(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, n := range []int{0, 1, 3, 15, 16, 63, 64, 65, 127, 200, 2000} {
		v := make([]float64, n)
		for i := range v {
			v[i] = 2*rng.Float64() - 1
			if i%17 == 5 {
				v[i] = 1 // clamped to 1-Eps: log(1-v) = log(Eps)
			}
			if i%19 == 7 {
				v[i] = -1
			}
		}
		for _, sgn := range []float64{1, -1} {
			var want, abs float64
			for _, x := range v {
				l := math.Log(1 + sgn*clampY(x))
				want += l
				abs += math.Abs(l)
			}
			got := sumLogProd(v, sgn)
			if math.Abs(got-want) > 1e-14*(1+abs) {
				t.Errorf("n=%d sgn=%v: got %v, want %v", n, sgn, got, want)
			}
		}
	}
}

// TestKernelFoldRowMatchesGo checks the vectorised default-class pass of the folded
// Eq. 5 gradient against the pure-Go one: identical δ bits, and a log-sum equal to
// the plain Σ log(1 + sgn·clamp(v)) within rounding; NaN reaches the log-sum.
func TestKernelFoldRowMatchesGo(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(91, 92))
	for _, n := range []int{1, 3, 4, 5, 63, 64, 65, 67, 128, 2000, 2003} {
		v := make([]float64, n)
		for i := range v {
			v[i] = 2*rng.Float64() - 1
			switch i % 23 {
			case 3:
				v[i] = 1
			case 7:
				v[i] = -1
			case 11:
				v[i] = 1 - Eps/3
			case 13:
				v[i] = -1 + 2*Eps
			}
		}
		for _, sgn := range []float64{1, -1} {
			sw := -sgn * 0.37
			got := make([]float64, n)
			want := make([]float64, n)
			ls := foldRow(v, got, sgn, sw)
			foldRowGo(v, want, sgn, sw)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d sgn=%v: δ[%d] = %v, want %v", n, sgn, i, got[i], want[i])
				}
			}
			var plain, abs float64
			for _, x := range v {
				l := math.Log(1 + sgn*clampY(x))
				plain += l
				abs += math.Abs(l)
			}
			if math.Abs(ls-plain) > 1e-14*(1+abs) {
				t.Errorf("n=%d sgn=%v: log-sum %v, want %v", n, sgn, ls, plain)
			}
			v2 := append([]float64(nil), v...)
			v2[n/2] = math.NaN()
			if ls := foldRow(v2, got, sgn, sw); !math.IsNaN(ls) {
				t.Errorf("n=%d sgn=%v: log-sum with a NaN output is %v, want NaN", n, sgn, ls)
			}
			if ls := sumLogProd(v2, sgn); !math.IsNaN(ls) {
				t.Errorf("n=%d sgn=%v: sumLogProd with a NaN output is %v, want NaN", n, sgn, ls)
			}
		}
	}
}

package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTrainerFD checks the Trainer's stage-1 and stage-2 (Eq. 7) parameter gradients,
// exact and sampled, against finite differences of the losses it returns, with
// 1, 2 and 3 parts; and that a call repeated gives identical bytes.
func TestTrainerFD(t *testing.T) {
	sizes := []int{5, 4, 3, 8}
	rng := rand.New(rand.NewPCG(61, 62))
	const N = 5
	x1 := randDense(N, sizes[0], 1, rng)
	x2 := randDense(N, sizes[0], 1, rng)
	t1 := randTargets(rng, N, sizes[3])
	t2 := randTargets(rng, N, sizes[3])
	types := []PairType{I1, I2, I3, I3, I1}
	d := []float64{0.3, 0.9, 0.5, 0.1, 0.7}
	const alpha = 3.0
	var s ColumnSample
	s.Draw(append(append([]Target(nil), t1...), t2...), sizes[3], 3, rng)
	for _, parts := range []int{1, 2, 3} {
		m := NewMLP(sizes, rand.New(rand.NewPCG(7, 7)))
		tr := NewTrainerParts(m, N, parts)
		cases := []struct {
			name string
			f    func(grad []float64) float64
		}{
			{"Eq. 5", func(g []float64) float64 { return tr.PredictionGrad(x1, t1, g) }},
			{"sampled Eq. 5", func(g []float64) float64 { return tr.SampledPredictionGrad(x1, t1, &s, g) }},
			{"Eq. 7", func(g []float64) float64 {
				lp, ls := tr.SiameseGrad(x1, x2, t1, t2, types, d, SiameseConfig{}, alpha, g)
				return lp + alpha*ls
			}},
			{"sampled Eq. 7", func(g []float64) float64 {
				lp, ls := tr.SampledSiameseGrad(x1, x2, t1, t2, types, d, SiameseConfig{Beta: 1}, alpha, &s, g)
				return lp + alpha*ls
			}},
		}
		for _, c := range cases {
			got := make([]float64, len(m.Params))
			c.f(got)
			again := make([]float64, len(m.Params))
			c.f(again)
			for i := range got {
				if got[i] != again[i] {
					t.Fatalf("%s parts=%d: repeated call differs at %d", c.name, parts, i)
				}
			}
			scratch := make([]float64, len(m.Params))
			want := numGrad(m.Params, func() float64 { return c.f(scratch) })
			checkGrad(t, c.name, got, want, 1e-6)
		}
	}
}

// TestTrainerStridedInput checks that inputs given as views into wider matrices
// (stride > columns) give the same bytes as contiguous copies, for both stages.
func TestTrainerStridedInput(t *testing.T) {
	sizes := []int{7, 6, 4, 9}
	rng := rand.New(rand.NewPCG(63, 64))
	const N = 9
	wide1 := randDense(N, sizes[0]+3, 1, rng)
	wide2 := randDense(N, sizes[0]+3, 1, rng)
	v1 := wide1.Slice(0, N, 2, 2+sizes[0]).(*mat.Dense)
	v2 := wide2.Slice(0, N, 1, 1+sizes[0]).(*mat.Dense)
	c1, c2 := mat.DenseCopyOf(v1), mat.DenseCopyOf(v2)
	t1, t2 := randTargets(rng, N, sizes[3]), randTargets(rng, N, sizes[3])
	types := []PairType{I1, I2, I3, I3, I1, I2, I3, I1, I3}
	d := []float64{0.3, 0.9, 0.5, 0.1, 0.7, 0.2, 0.4, 0.6, 0.8}
	m := NewMLP(sizes, rand.New(rand.NewPCG(8, 8)))
	tr := NewTrainer(m, N)
	g1 := make([]float64, len(m.Params))
	g2 := make([]float64, len(m.Params))
	for _, stage := range []int{1, 2} {
		if stage == 1 {
			tr.PredictionGrad(v1, t1, g1)
			tr.PredictionGrad(c1, t1, g2)
		} else {
			tr.SiameseGrad(v1, v2, t1, t2, types, d, SiameseConfig{}, 2, g1)
			tr.SiameseGrad(c1, c2, t1, t2, types, d, SiameseConfig{}, 2, g2)
		}
		for i := range g1 {
			if g1[i] != g2[i] {
				t.Fatalf("stage %d: gradient %d is %v on views, %v on copies", stage, i, g1[i], g2[i])
			}
		}
	}
}

// TestSGDStepLarge checks an SGD step on a vector long enough to be split across
// goroutines against θ - η·g computed element by element.
func TestSGDStepLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	const n = 200003
	p := make([]float64, n)
	g := make([]float64, n)
	for i := range p {
		p[i], g[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	want := make([]float64, n)
	const eta = 0.3
	for i := range p {
		want[i] = p[i] + -eta*g[i]
	}
	opt := &SGD{LearningRate: eta}
	opt.Step(p, g)
	for i := range p {
		if p[i] != want[i] {
			t.Fatalf("θ[%d] = %v, want %v", i, p[i], want[i])
		}
	}
}

// TestSGDAverage checks the moving average of the parameters against values
// computed by hand, on a short vector and on one long enough to be split.
func TestSGDAverage(t *testing.T) {
	for _, n := range []int{1, 200003} {
		p := make([]float64, n)
		g := make([]float64, n)
		for i := range p {
			p[i], g[i] = 1, 1
		}
		opt := &SGD{LearningRate: 0.5, Average: 0.5}
		if opt.Averaged() != nil {
			t.Fatal("Averaged before the first step is not nil")
		}
		// θ: 1 → 0.5 → 0 → −0.5; θ̄ starts at the first iterate 0.5, then
		// 0.5·0.5 + 0.5·0 = 0.25, then 0.5·0.25 + 0.5·(−0.5) = −0.125.
		for step, want := range []float64{0.5, 0.25, -0.125} {
			opt.Step(p, g)
			a := opt.Averaged()
			if len(a) != n || a[0] != want || a[n-1] != want {
				t.Fatalf("n=%d step %d: averaged %v…%v, want %v", n, step+1, a[0], a[len(a)-1], want)
			}
		}
		if p[0] != -0.5 {
			t.Fatalf("n=%d: θ = %v, want −0.5 (averaging must not change the iterate)", n, p[0])
		}
	}
	if (&SGD{LearningRate: 1}).Averaged() != nil {
		t.Fatal("Averaged without averaging is not nil")
	}
}

// TestKernelSGDMomentumAverage: the step with momentum and averaging gives the
// same bits with the AVX2 and the AVX-512 loops as with the Go loop, on lengths
// around the 4- and 8-element blocks and the split, with values of every
// magnitude, zeros of both signs and gradients that are exactly zero (the
// sampled loss's rows).
func TestKernelSGDMomentumAverage(t *testing.T) {
	kernels := asmKernels()
	if len(kernels) == 0 {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer func(a, v bool) { useAsm, useAVX512 = a, v }(useAsm, useAVX512)
	rng := rand.New(rand.NewPCG(81, 82))
	for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 63, 1000, 1<<16 + 5, 200003} {
		p := vecValues(rng, n)
		var grads [4][]float64
		for s := range grads {
			grads[s] = vecValues(rng, n)
		}
		run := func(asm, avx512 bool) []float64 {
			useAsm, useAVX512 = asm, avx512
			q := slices.Clone(p)
			opt := &SGD{LearningRate: 0.05, Momentum: 0.9, Average: 0.998, DecayEvery: 2}
			for _, g := range grads {
				opt.Step(q, g)
			}
			return append(append(append(q, opt.velocity...), opt.avg...), opt.Rate())
		}
		goRun := run(false, false)
		for _, avx512 := range kernels {
			got := run(true, avx512)
			for i := range goRun {
				if math.Float64bits(goRun[i]) != math.Float64bits(got[i]) {
					t.Fatalf("n=%d, AVX-512 %v: element %d of (θ, v, θ̄) is %v, %v in Go", n, avx512, i, got[i], goRun[i])
				}
			}
		}
	}
}

// trainerGrads returns a run of both stages' gradients and losses on sizes
// that exercise every edge case of the assembly paths (k-blocking, partial
// tiles, rows not a multiple of 8), from fixed data.
func trainerGrads() func() (g1, g2 []float64, l1, l2 float64) {
	sizes := []int{300, 41, 20, 10, 150}
	rng := rand.New(rand.NewPCG(67, 68))
	const N = 37
	x1 := randDense(N, sizes[0], 1, rng)
	x2 := randDense(N, sizes[0], 1, rng)
	t1, t2 := randTargets(rng, N, sizes[4]), randTargets(rng, N, sizes[4])
	types := make([]PairType, N)
	d := make([]float64, N)
	for n := range types {
		types[n] = []PairType{I1, I2, I3, I3}[n%4]
		d[n] = rng.Float64()
	}
	m := NewMLP(sizes, rand.New(rand.NewPCG(9, 9)))
	return func() (g1, g2 []float64, l1, l2 float64) {
		tr := NewTrainer(m, N)
		g1 = make([]float64, len(m.Params))
		g2 = make([]float64, len(m.Params))
		l1 = tr.PredictionGrad(x1, t1, g1)
		lp, ls := tr.SiameseGrad(x1, x2, t1, t2, types, d, SiameseConfig{}, 100, g2)
		return g1, g2, l1, lp + 100*ls
	}
}

// TestTrainerAsmMatchesGo checks that repeated calls of both stages give
// identical bytes and that the gradients and losses agree with the pure-Go
// kernels (useAsm off) to rounding.
func TestTrainerAsmMatchesGo(t *testing.T) {
	if !useAsm {
		t.Skip("no assembly kernels on this CPU or build")
	}
	run := trainerGrads()
	a1, a2, al1, al2 := run()
	b1, b2, bl1, bl2 := run()
	for i := range a1 {
		if a1[i] != b1[i] || a2[i] != b2[i] || al1 != bl1 || al2 != bl2 {
			t.Fatalf("repeated call differs (parameter %d)", i)
		}
	}
	useAsm = false
	defer func() { useAsm = true }()
	w1, w2, wl1, wl2 := run()
	for _, c := range []struct {
		name      string
		got, want []float64
	}{{"Eq. 5", a1, w1}, {"Eq. 7", a2, w2}} {
		// Summation orders differ; the gradients are sums of products of O(1)
		// factors scaled by 1/(K|Γ|), so compare relative to the largest.
		tol := 1e-12 * maxAbs(c.want)
		for i := range c.got {
			if math.Abs(c.got[i]-c.want[i]) > tol {
				t.Fatalf("%s: gradient %d is %v with assembly, %v in pure Go", c.name, i, c.got[i], c.want[i])
			}
		}
	}
	if math.Abs(al1-wl1) > 1e-12*math.Abs(wl1) || math.Abs(al2-wl2) > 1e-12*math.Abs(wl2) {
		t.Errorf("losses %v, %v with assembly, %v, %v in pure Go", al1, al2, wl1, wl2)
	}
}

// TestKernelTrainerSameBits checks that both stages' gradients and losses
// have the same bits with the AVX2 kernels as with the AVX-512 ones, so a
// model trained on either kind of machine is the same file.
func TestKernelTrainerSameBits(t *testing.T) {
	if len(asmKernels()) < 2 {
		t.Skip("this CPU runs one assembly kernel only")
	}
	defer func(v bool) { useAVX512 = v }(useAVX512)
	run := trainerGrads()
	var bits [2][]uint64
	for i, avx512 := range []bool{false, true} {
		useAVX512 = avx512
		g1, g2, l1, l2 := run()
		for _, x := range append(append(g1, g2...), l1, l2) {
			bits[i] = append(bits[i], math.Float64bits(x))
		}
	}
	for i := range bits[0] {
		if bits[0][i] != bits[1][i] {
			t.Fatalf("value %d of (Eq. 5 gradient, Eq. 7 gradient, losses): %v with AVX2, %v with AVX-512", i, math.Float64frombits(bits[0][i]), math.Float64frombits(bits[1][i]))
		}
	}
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// TestTrainerLossMatchesPredictionLoss checks the stage-1 loss of the Trainer (formed
// per part and per block of rows) against PredictionLoss of one forward pass.
func TestTrainerLossMatchesPredictionLoss(t *testing.T) {
	sizes := []int{30, 12, 6, 41}
	rng := rand.New(rand.NewPCG(69, 70))
	const N = 29
	x := randDense(N, sizes[0], 1, rng)
	ts := randTargets(rng, N, sizes[3])
	m := NewMLP(sizes, rand.New(rand.NewPCG(10, 10)))
	ws := NewWorkspace(sizes, N)
	m.ForwardTo(ws, x, len(sizes)-1)
	want := PredictionLoss(ws.Out(len(sizes)-1), ts, nil)
	got := NewTrainer(m, N).PredictionGrad(x, ts, make([]float64, len(m.Params)))
	if math.Abs(got-want) > 1e-13*math.Abs(want) {
		t.Errorf("Trainer loss %v, PredictionLoss %v", got, want)
	}
}

// TestTrainerSampledReusesGrad checks the sparse output-layer gradient of the
// sampled calls: successive sampled calls (stage 1 and stage 2, other samples,
// an exact call between them) into one gradient vector give the same bytes as
// each call into a fresh vector, with zeros in the rows of W_H outside the sample.
func TestTrainerSampledReusesGrad(t *testing.T) {
	sizes := []int{6, 5, 4, 200}
	rng := rand.New(rand.NewPCG(71, 72))
	// Two listed units per example, so that a sample leaves most rows idle.
	sparseTargets := func(n int) []Target {
		ts := make([]Target, n)
		for i := range ts {
			ts[i] = Target{Idx: rng.Perm(sizes[3])[:2], Complement: i%2 == 1}
		}
		return ts
	}
	const N = 7
	x1 := randDense(N, sizes[0], 1, rng)
	x2 := randDense(N, sizes[0], 1, rng)
	types := []PairType{I1, I2, I3, I3, I1, I2, I3}
	d := []float64{0.3, 0.9, 0.5, 0.1, 0.7, 0.2, 0.4}
	m := NewMLP(sizes, rand.New(rand.NewPCG(3, 3)))
	tr := NewTrainer(m, N)
	shared := make([]float64, len(m.Params))
	l := m.Layout()
	H := m.Layers()
	k := sizes[H-1]
	for call := range 8 {
		t1, t2 := sparseTargets(N), sparseTargets(N)
		var s ColumnSample
		s.Draw(append(append([]Target(nil), t1...), t2...), sizes[3], 3+call%4, rng)
		f := func(tr *Trainer, g []float64) {
			switch call % 4 {
			case 0, 1:
				tr.SampledPredictionGrad(x1, t1, &s, g)
			case 2:
				tr.SampledSiameseGrad(x1, x2, t1, t2, types, d, SiameseConfig{Beta: 1}, 2, &s, g)
			default:
				tr.PredictionGrad(x1, t1, g)
			}
		}
		f(tr, shared)
		fresh := make([]float64, len(m.Params))
		f(NewTrainer(m, N), fresh)
		for i := range fresh {
			if math.Float64bits(shared[i]) != math.Float64bits(fresh[i]) {
				t.Fatalf("call %d: parameter %d is %v in the reused vector, %v in a fresh one", call, i, shared[i], fresh[i])
			}
		}
		if call%4 == 3 {
			continue
		}
		in := make([]bool, sizes[3])
		for _, j := range s.Cols {
			in[j] = true
		}
		for j := range sizes[3] {
			if in[j] {
				continue
			}
			for _, v := range shared[l.W[H]+j*k : l.W[H]+(j+1)*k] {
				if v != 0 {
					t.Fatalf("call %d: row %d of W_H is outside the sample but has gradient %v", call, j, v)
				}
			}
		}
		// Let the parameters move, as SGD would, so later calls see other weights.
		for i := range m.Params {
			m.Params[i] -= 0.1 * fresh[i]
		}
	}
}

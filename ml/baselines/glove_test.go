package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/taglens/taglens/ml/eval"
)

// TestGloVeGradient checks gloveGrad's analytic gradient against gonum's
// central finite differences of its loss, the Eq. 8 term, over all parameters
// (w_i, w̃_j, b_i, b̃_j) at random points, with weights below and at 1.
func TestGloVeGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const d = 5
	for trial := 0; trial < 10; trial++ {
		logX := math.Log(float64(1 + rng.IntN(50)))
		weight := gloveWeight(float64(1+rng.IntN(150)), 100)
		x := make([]float64, 2*d+2) // w_i, w̃_j, b_i, b̃_j
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		gwi, gwj := make([]float64, d), make([]float64, d)
		loss := func(x []float64) float64 {
			l, _ := gloveGrad(x[:d], x[d:2*d], x[2*d], x[2*d+1], logX, weight, make([]float64, d), make([]float64, d))
			return l
		}
		l, gb := gloveGrad(x[:d], x[d:2*d], x[2*d], x[2*d+1], logX, weight, gwi, gwj)
		// The loss by its definition, f·(w_iᵀw̃_j + b_i + b̃_j − log X)².
		var dot float64
		for k := 0; k < d; k++ {
			dot += x[k] * x[d+k]
		}
		if want := weight * math.Pow(dot+x[2*d]+x[2*d+1]-logX, 2); math.Abs(l-want) > 1e-12*max(1, want) {
			t.Fatalf("trial %d: loss %v, want %v", trial, l, want)
		}
		analytic := slices.Concat(gwi, gwj, []float64{gb, gb})
		numeric := fd.Gradient(nil, loss, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range x {
			if math.Abs(analytic[i]-numeric[i]) > 1e-6*max(1, math.Abs(numeric[i])) {
				t.Errorf("trial %d: ∂J/∂x[%d]: analytic %v, finite differences %v", trial, i, analytic[i], numeric[i])
			}
		}
	}
}

// TestGloVeWeight checks Eq. 9 at hand-computed points.
func TestGloVeWeight(t *testing.T) {
	for _, tc := range []struct{ x, xMax, want float64 }{
		{100, 100, 1},
		{250, 100, 1},
		{50, 100, math.Pow(0.5, 0.75)},
		{1, 16, 0.125}, // (1/16)^¾ = 2^-3
		{3, 3, 1},
	} {
		if got := gloveWeight(tc.x, tc.xMax); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("f(%v; x_max %v): got %v, want %v", tc.x, tc.xMax, got, tc.want)
		}
	}
}

// TestGloVeXMaxAndEpochs checks the data-scaled cutoff (99th percentile,
// clamped to [1, 100]) and the epoch rule.
func TestGloVeXMaxAndEpochs(t *testing.T) {
	vals := make([]float64, 101) // 0..100 shuffled: the 99th percentile of 101 values is 99
	for i := range vals {
		vals[i] = float64((i * 37) % 101)
	}
	if got := gloveXMax(vals); got != 99 {
		t.Errorf("x_max of 0..100: got %v, want 99", got)
	}
	for i := range vals {
		vals[i] *= 10
	}
	if got := gloveXMax(vals); got != GloVePaperXMax {
		t.Errorf("x_max of 0..1000: got %v, want the paper's %v", got, GloVePaperXMax)
	}
	if got := gloveXMax([]float64{1, 1, 1}); got != 1 {
		t.Errorf("x_max of ones: got %v, want 1", got)
	}
	const b = GloVeUpdateBudget
	for _, tc := range []struct{ epochs, nnz, want int }{
		{0, 7000, DefaultGloVeEpochs},
		{0, b / 20, 20},
		{0, b/20 + 1, 20},
		{0, b, MinGloVeEpochs},
		{3, b, 3},
	} {
		if got := gloveEpochs(tc.epochs, tc.nnz); got != tc.want {
			t.Errorf("gloveEpochs(%d, %d): got %d, want %d", tc.epochs, tc.nnz, got, tc.want)
		}
	}
	if got := checkpoints(50); !slices.Equal(got, []int{5, 10, 25, 50}) {
		t.Errorf("checkpoints(50) = %v", got)
	}
	if got := checkpoints(20); !slices.Equal(got, []int{5, 10, 20}) {
		t.Errorf("checkpoints(20) = %v", got)
	}
}

func TestGloVePlanted(t *testing.T) {
	const per = 5
	docs := globalPlanted(4, 300, per)
	m, err := FitGloVe(context.Background(), docs, 2*per, GloVeOptions{Dims: []int{4, 8}, TuneDocs: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grid) != 2*len(checkpoints(DefaultGloVeEpochs)) {
		t.Fatalf("grid %v", m.Grid)
	}
	best := 0
	for i, g := range m.Grid {
		if g.TrainP2 > m.Grid[best].TrainP2 {
			best = i
		}
	}
	if g := m.Grid[best]; g.Dim != m.Dim || g.Epochs != m.Epochs || g.TrainP2 != m.TrainP2 {
		t.Errorf("chose dim %d epochs %d P@2 %v, want the first best point %+v", m.Dim, m.Epochs, m.TrainP2, g)
	}
	// AdaGrad must lower the Eq. 8 cost from checkpoint to checkpoint.
	for i := 1; i < len(m.Grid); i++ {
		if a, b := m.Grid[i-1], m.Grid[i]; a.Dim == b.Dim && !(b.Loss < a.Loss) {
			t.Errorf("dim %d: cost %v after %d epochs, %v after %d", a.Dim, a.Loss, a.Epochs, b.Loss, b.Epochs)
		}
	}
	checkGroupsSeparated(t, m, per)
}

func TestGloVeDeterministic(t *testing.T) {
	docs := globalPlanted(5, 100, 4)
	opt := GloVeOptions{Dims: []int{4}, Epochs: 8, Seed: 9}
	a, err := FitGloVe(context.Background(), docs, 8, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitGloVe(context.Background(), docs, 8, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Unit, b.Unit) || a.Loss != b.Loss {
		t.Error("same seed gave different vectors")
	}
	if len(a.Grid) != 0 || a.Epochs != 8 {
		t.Errorf("fixed options: grid %v epochs %d", a.Grid, a.Epochs)
	}
	opt.Seed = 10
	c, err := FitGloVe(context.Background(), docs, 8, opt)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.Unit, c.Unit) {
		t.Error("different seeds gave identical vectors")
	}
}

func TestGloVeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	docs := globalPlanted(8, 50, 4)
	if _, err := FitGloVe(ctx, docs, 8, GloVeOptions{Dims: []int{2}}); err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
	// Within an epoch: the training loop looks at ctx every checkEvery steps.
	counts, err := pairCounts(docs, 8)
	if err != nil {
		t.Fatal(err)
	}
	g := newGloveData(counts, &GloVeOptions{Epochs: 1, Rate: DefaultGloVeRate})
	g.checkEvery = 3
	called := false
	err = g.train(ctx, 2, func(int, []float64, float64) error { called = true; return nil })
	if err != context.Canceled || called {
		t.Errorf("in-epoch cancellation: got %v (checkpoint reached %v), want context.Canceled before the checkpoint", err, called)
	}
	// During the grid search: the next training run stops.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	points := 0
	_, err = FitGloVe(ctx, docs, 8, GloVeOptions{Dims: []int{2, 3}, Epochs: 2, TuneDocs: 20,
		Progress: func(GloVePoint) { points++; cancel() }})
	checkCancelledAfterOne(t, err, points)
}

func TestGloVeBadInput(t *testing.T) {
	ok := globalPlanted(1, 40, 4)
	fit := func(ctx context.Context, train [][]int, v int, opt GloVeOptions) error {
		_, err := FitGloVe(ctx, train, v, opt)
		return err
	}
	checkBadFits(t, fit, []badFit[GloVeOptions]{
		{"no pair", [][]int{{0}, {1}}, 2, GloVeOptions{Dims: []int{2}}, "no two distinct terms"},
		{"negative rate", ok, 8, GloVeOptions{Rate: -0.1}, "learning rate"},
		{"infinite rate", ok, 8, GloVeOptions{Rate: math.Inf(1)}, "learning rate"},
		{"negative epochs", ok, 8, GloVeOptions{Epochs: -1}, "epochs"},
		{"NaN x_max", ok, 8, GloVeOptions{XMax: math.NaN()}, "x_max"},
		{"negative x_max", ok, 8, GloVeOptions{XMax: -5}, "x_max"},
		{"zero dimension", ok, 8, GloVeOptions{Dims: []int{3, 0}}, "dimension"},
	})
}

// TestGloVeGridAnyProcs checks that the tuning grid, whose dimensions train
// side by side, gives what one goroutine gives: the same points in grid order
// (progress included), the same choice and the same vectors.
func TestGloVeGridAnyProcs(t *testing.T) {
	docs := globalPlanted(6, 120, 5)
	fit := func(procs int) (*GloVe, []GloVePoint) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var seen []GloVePoint
		m, err := FitGloVe(context.Background(), docs, 12, GloVeOptions{Dims: []int{6, 2, 4}, Seed: 3,
			Progress: func(p GloVePoint) { seen = append(seen, p) }})
		if err != nil {
			t.Fatal(err)
		}
		return m, seen
	}
	a, pa := fit(1)
	b, pb := fit(3)
	if want := 3 * len(checkpoints(DefaultGloVeEpochs)); len(a.Grid) != want {
		t.Fatalf("grid of %d points: %v", len(a.Grid), a.Grid)
	}
	if !slices.Equal(a.Grid, b.Grid) || !slices.Equal(pa, pb) || !slices.Equal(pa, a.Grid) {
		t.Errorf("grid with 1 proc %v (progress %v), with 3 %v (progress %v)", a.Grid, pa, b.Grid, pb)
	}
	for i, p := range a.Grid[1:] {
		if q := a.Grid[i]; p.Dim == q.Dim && p.Epochs <= q.Epochs || p.Dim != q.Dim && slices.Index([]int{6, 2, 4}, p.Dim) < slices.Index([]int{6, 2, 4}, q.Dim) {
			t.Errorf("grid out of order at %d: %v after %v", i+1, p, q)
		}
	}
	if a.Dim != b.Dim || a.Epochs != b.Epochs || !slices.Equal(a.Unit, b.Unit) {
		t.Errorf("chosen dim %d epochs %d with 1 proc, %d/%d with 3, or other vectors", a.Dim, a.Epochs, b.Dim, b.Epochs)
	}
}

// TestKernelGloVeStepBits checks that gloveStep, with the AVX-512 loop, the
// AVX2 loop and the Go loop alone, gives the bits of gloveGrad's gradients
// followed by adagrad on w_i and on w̃_j, for dimensions with and without a
// remainder of eight and of four.
func TestKernelGloVeStepBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	defer func(u, v bool) { useGloveAVX512, useGloveAVX2 = u, v }(useGloveAVX512, useGloveAVX2)
	type kernel struct{ avx512, avx2 bool }
	kernels := []kernel{{false, false}}
	if useGloveAVX512 {
		kernels = append(kernels, kernel{true, false})
	}
	if useGloveAVX2 {
		kernels = append(kernels, kernel{false, true})
	}
	for _, asm := range kernels {
		useGloveAVX512, useGloveAVX2 = asm.avx512, asm.avx2
		for _, d := range []int{1, 3, 4, 7, 8, 13, 50, 200} {
			for trial := 0; trial < 20; trial++ {
				row := func() []float64 {
					r := make([]float64, 2*d)
					for k := 0; k < d; k++ {
						r[k] = rng.NormFloat64() / float64(d)
						r[d+k] = gloveAccInit + 3*rng.Float64()*float64(trial)
					}
					return r
				}
				ri, rj := row(), row()
				wantI, wantJ := slices.Clone(ri), slices.Clone(rj)
				bi, bj, logX, f := rng.NormFloat64(), rng.NormFloat64(), 3*rng.Float64(), rng.Float64()
				gwi, gwj := make([]float64, d), make([]float64, d)
				_, g := gloveGrad(wantI[:d], wantJ[:d], bi, bj, logX, f, gwi, gwj)
				adagrad(wantI[:d], wantI[d:], gwi, DefaultGloVeRate)
				adagrad(wantJ[:d], wantJ[d:], gwj, DefaultGloVeRate)
				if _, g2 := gloveCost(ri[:d], rj[:d], bi, bj, logX, f); math.Float64bits(g2) != math.Float64bits(g) {
					t.Fatalf("d %d: gloveCost's g %v, gloveGrad's %v", d, g2, g)
				}
				gloveStep(ri, rj, d, g, DefaultGloVeRate)
				for k := range ri {
					if math.Float64bits(ri[k]) != math.Float64bits(wantI[k]) || math.Float64bits(rj[k]) != math.Float64bits(wantJ[k]) {
						t.Fatalf("asm %+v, d %d, trial %d, entry %d: %v %v, want %v %v", asm, d, trial, k, ri[k], rj[k], wantI[k], wantJ[k])
					}
				}
			}
		}
	}
}

// TestGloVeSteps checks GloVe's step count against its epochs and counts: the
// exact count (a limit below it) is the epochs of the rule times the nonzero
// counts FitGloVe trains on, and the bound returned under a larger limit is
// not below it; a document's pairs repeated in others make the bound loose.
func TestGloVeSteps(t *testing.T) {
	docs := [][]int{{0, 1, 2}, {0, 1}, {1, 2, 3}, {0, 1, 2}, {4, 5}}
	const v = 6
	counts, err := pairCounts(docs, v)
	if err != nil {
		t.Fatal(err)
	}
	n := counts.NNZ() // 0-1, 0-2, 1-2, 1-3, 2-3, 4-5, both orders: 12
	want := int64(gloveEpochs(0, n) * n)
	got, err := GloVeSteps(docs, v, 0)
	if err != nil || got != want {
		t.Fatalf("GloVeSteps with limit 0 = %d, %v; want %d (%d epochs × %d counts)", got, err, want, gloveEpochs(0, n), n)
	}
	bound, err := GloVeSteps(docs, v, math.MaxInt64)
	if err != nil || bound < want {
		t.Fatalf("GloVeSteps without a limit = %d, %v: a bound must not be below %d", bound, err, want)
	}
	// A corpus as large as the rule's budget: the bound is taken when it
	// is within the limit, and the count when it is not.
	big := make([][]int, 0, 3000)
	for i := range 3000 {
		big = append(big, []int{i % 500, 500 + i%700, 1200 + i%300})
	}
	c2, err := pairCounts(big, 1500)
	if err != nil {
		t.Fatal(err)
	}
	exact := int64(gloveEpochs(0, c2.NNZ()) * c2.NNZ())
	if got, _ := GloVeSteps(big, 1500, exact); got > exact {
		t.Errorf("limit %d: %d steps, above the limit although the count is within it", exact, got)
	}
	if got, _ := GloVeSteps(big, 1500, exact-1); got != exact {
		t.Errorf("limit %d: %d steps, want the count's %d", exact-1, got, exact)
	}
	if got, err := GloVeSteps([][]int{{0}, {1}}, 2, 0); got != 0 || err != nil {
		t.Errorf("no shared document, limit 0: %d, %v; want 0 steps", got, err)
	}
	if _, err := GloVeSteps([][]int{{0}, {1}}, 2, -1); err == nil {
		t.Error("no shared document, counted: want pairCounts' error")
	}
}

// TestSkipGloVeSteps checks that GloVe is left out of every baseline above
// MaxGloVeSteps with the reason, and kept when named or within the bound.
func TestSkipGloVeSteps(t *testing.T) {
	sc := Scope{Protocol: eval.Extended, Subset: "test", Terms: 30000, All: true, GloVeSteps: 570_000_000}
	why := Skip(NameGloVe, sc)
	if !strings.Contains(why, "5.7×10^8 AdaGrad steps") || !strings.Contains(why, "2×10^8") || !strings.Contains(why, "by name") {
		t.Errorf("skip note %q", why)
	}
	for _, s := range []Scope{
		{Protocol: eval.Extended, Subset: "test", All: false, GloVeSteps: 570_000_000},
		{Protocol: eval.Extended, Subset: "test", All: true, GloVeSteps: MaxGloVeSteps},
	} {
		if why := Skip(NameGloVe, s); why != "" {
			t.Errorf("%+v: skipped: %q", s, why)
		}
	}
	if why := Skip(NamePPMISVD, sc); why != "" {
		t.Errorf("ppmi-svd skipped by GloVe's steps: %q", why)
	}
}

package tsne

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// spectrum returns an n×d matrix U·diag(s)·Vᵀ + noise·G with random
// orthonormal U (n×len(s)) and V (d×len(s)) and Gaussian G, as a flat slice.
func spectrum(n, d int, s []float64, noise float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	r := len(s)
	u := mat.NewDense(n, r, nil)
	v := mat.NewDense(d, r, nil)
	for _, m := range []*mat.Dense{u, v} {
		raw := m.RawMatrix().Data
		for i := range raw {
			raw[i] = rng.NormFloat64()
		}
		orthonormalise(m)
	}
	for c, sc := range s {
		for i := 0; i < n; i++ {
			u.Set(i, c, u.At(i, c)*sc)
		}
	}
	x := mat.NewDense(n, d, nil)
	x.Mul(u, v.T())
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] += noise * rng.NormFloat64()
	}
	return raw
}

// sinTheta returns the sine of the largest principal angle between the
// column spans of a and b (both d×k with orthonormal columns).
func sinTheta(a, b *mat.Dense) float64 {
	var m mat.Dense
	m.Mul(a.T(), b)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		return math.NaN()
	}
	sv := svd.Values(nil)
	c := math.Min(1, sv[len(sv)-1])
	return math.Sqrt(1 - c*c)
}

// TestRandomizedAxesMatchExact compares the randomized principal axes with
// the eigenvectors of the covariance on inputs narrow enough for the exact
// method.
//
// Tolerance: for randomized subspace iteration with q power iterations and
// oversampling p, the angle between the computed and the true k-dimensional
// leading subspaces decays like C·(σ_{k+p+1}/σ_k)^{2q+1} (Halko, Martinsson &
// Tropp 2011, Sec. 4.5 and Thm. 9.2 with Cor. 10.10), C a modest factor
// polynomial in k, p and d. With q = 7 and the spectra below the ratio is at
// most 0.2, so that term is below 1e-9·C; the exact side's own error is
// rounding, ~ε·σ₁²/(σ_k² − σ_{k+1}²) ≤ 1e-12. 1e-6 leaves room for C while
// still failing for a wrong subspace (whose sine is of order 1).
func TestRandomizedAxesMatchExact(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		n, d int
		s    []float64
		k    int
	}{
		{300, 80, []float64{100, 60, 30, 20, 10, 8, 5, 4, 3, 2}, 2},
		{120, 400, []float64{50, 40, 10, 5, 1}, 3},
		{60, 300, []float64{20, 10, 8, 7, 6, 5, 4, 3, 2, 1, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01}, 2},
	} {
		x := spectrum(tc.n, tc.d, tc.s, 1e-3, 7)
		xc, _ := centred(x, tc.n, tc.d)
		exact, exactRel := exactAxes(xc, tc.k)
		rnd, rel, err := randomizedAxes(ctx, xc, tc.k, 3)
		if err != nil {
			t.Fatal(err)
		}
		if st := sinTheta(exact, rnd); !(st < 1e-6) {
			t.Errorf("%d×%d k=%d: sin θ between exact and randomized subspaces = %g, want < 1e-6", tc.n, tc.d, tc.k, st)
		}
		for c := range rel {
			if math.Abs(rel[c]-exactRel[c]) > 1e-6*exactRel[c] {
				t.Errorf("%d×%d: relative variance of axis %d = %g, exact %g", tc.n, tc.d, c, rel[c], exactRel[c])
			}
		}
		// principalAxes picks the randomized method above exactPCAMaxDims; its
		// sign-fixed columns must equal the sign-fixed exact eigenvectors.
		if tc.d > exactPCAMaxDims {
			got, err := principalAxes(ctx, xc, tc.k, 3)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := exactAxes(xc, tc.k)
			for c := 0; c < tc.k; c++ {
				// Same sign rule as principalAxes.
				best, sign := 0.0, 1.0
				for r := 0; r < tc.d; r++ {
					if v := want.At(r, c); math.Abs(v) > best {
						best, sign = math.Abs(v), math.Copysign(1, v)
					}
				}
				for r := 0; r < tc.d; r++ {
					if diff := math.Abs(got.At(r, c) - sign*want.At(r, c)); diff > 1e-6 {
						t.Fatalf("%d×%d axis %d loading %d: got %g, want %g", tc.n, tc.d, c, r, got.At(r, c), sign*want.At(r, c))
					}
				}
			}
		}
	}
}

// TestRandomizedAxesDeterministic checks that a seed fixes the result
// bit for bit.
func TestRandomizedAxesDeterministic(t *testing.T) {
	x := spectrum(100, 500, []float64{10, 5, 2}, 0.1, 1)
	xc, _ := centred(x, 100, 500)
	a, _, err := randomizedAxes(context.Background(), xc, 2, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := randomizedAxes(context.Background(), xc, 2, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a, b) {
		t.Error("same seed gave different axes")
	}
}

// TestWideMemory checks that the PCA initialisation, and a whole Embed, of a
// wide input (200×5000) allocate O(n·d) bytes in total: a d×d covariance
// alone would be 200 MB, the input 8 MB. The bound, 8 copies of the input, is
// generous but far below d². TotalAlloc counts every allocation, so it also
// bounds the peak.
func TestWideMemory(t *testing.T) {
	const n, d = 200, 5000
	x := spectrum(n, d, []float64{30, 20, 10}, 0.1, 4)
	limit := uint64(8 * n * d * 8)
	measure := func(name string, f func() error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s %d×%d allocated %.1f MB (input %.1f MB, d×d would be %.0f MB)", name, n, d,
			float64(alloc)/1e6, float64(n*d*8)/1e6, float64(d*d*8)/1e6)
		if alloc > limit {
			t.Errorf("%s allocated %d bytes, want at most %d (8·n·d floats)", name, alloc, limit)
		}
	}
	y := make([]float64, 2*n)
	measure("pcaInit", func() error { return pcaInit(context.Background(), x, n, d, y, 1) })
	if err := checkFinite(y); err != nil {
		t.Fatal(err)
	}
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = x[i*d : (i+1)*d]
	}
	measure("Embed", func() error {
		_, err := Embed(context.Background(), rows, Options{Perplexity: 20, Iterations: 20, Workers: 1})
		return err
	})
}

// countingCtx is a context whose Err becomes context.Canceled from its
// after-th call on, so that a test can cancel at a reproducible point of the
// work instead of after a wall-clock delay.
type countingCtx struct {
	context.Context
	calls atomic.Int64
	after int64
}

func (c *countingCtx) Err() error {
	if c.calls.Add(1) >= c.after {
		return context.Canceled
	}
	return nil
}

// TestCancelEveryPhase cancels Embed at checks spread over the whole run
// (tree build, affinities, PCA, gradient iterations) of a wide input and
// checks that every one returns context.Canceled and runs no gradient
// iteration after the cancellation.
func TestCancelEveryPhase(t *testing.T) {
	const n, d = 600, 300 // Barnes-Hut, randomized PCA
	x := spectrum(n, d, []float64{10, 8, 6, 4}, 1, 5)
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = x[i*d : (i+1)*d]
	}
	opt := Options{Perplexity: 10, Iterations: 20, Workers: 1}
	full := &countingCtx{Context: context.Background(), after: math.MaxInt64}
	if _, err := Embed(full, rows, opt); err != nil {
		t.Fatal(err)
	}
	total := full.calls.Load()
	if total < 50 {
		t.Fatalf("only %d context checks in a whole run", total)
	}
	for _, at := range []int64{1, 2, 5, total / 10, total / 3, total / 2, total - int64(opt.Iterations)/2, total - 1} {
		ctx := &countingCtx{Context: context.Background(), after: at}
		var itersAfter int
		o := opt
		o.Progress = func(int, float64, []float64) bool {
			if ctx.calls.Load() >= at {
				itersAfter++
			}
			return true
		}
		_, err := Embed(ctx, rows, o)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at check %d of %d: got %v, want context.Canceled", at, total, err)
		}
		if itersAfter > 0 {
			t.Errorf("cancelled at check %d of %d: %d iterations ran after the cancellation", at, total, itersAfter)
		}
	}
}

// TestCancelIterations cancels from the progress callback and checks that no
// further iteration runs.
func TestCancelIterations(t *testing.T) {
	x, _ := blobs(100, 4, 2, 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := Embed(ctx, x, Options{Perplexity: 5, Progress: func(it int, _ float64, _ []float64) bool {
		calls++
		if it == 5 {
			cancel()
		}
		return true
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if calls != 5 {
		t.Errorf("%d iterations ran, want 5 (cancelled after the fifth)", calls)
	}
}

// TestNonFinite checks that overflowing or non-finite input and a diverging
// optimisation are errors, never NaN coordinates.
func TestNonFinite(t *testing.T) {
	base, _ := blobs(30, 3, 2, 1, 1)
	with := func(i, j int, v float64) [][]float64 {
		x := make([][]float64, len(base))
		for r := range base {
			x[r] = append([]float64(nil), base[r]...)
		}
		x[i][j] = v
		return x
	}
	for _, tc := range []struct {
		name string
		v    float64
	}{{"1e308", 1e308}, {"-1e308", -1e308}, {"1e160", 1e160}, {"NaN", math.NaN()}, {"+Inf", math.Inf(1)}} {
		_, err := Embed(context.Background(), with(7, 2, tc.v), Options{Perplexity: 3, Iterations: 50})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Row != 7 || ie.Col != 2 {
			t.Errorf("%s at row 7 column 2: got %v, want an InputError naming row 7 column 2", tc.name, err)
		}
	}
	// Every value at 1e150 is accepted (below maxAbsInput for 30+3) and the
	// result is finite.
	big := make([][]float64, len(base))
	for r, row := range base {
		big[r] = make([]float64, len(row))
		for j, v := range row {
			big[r][j] = v * 1e150
		}
	}
	e, err := Embed(context.Background(), big, Options{Perplexity: 3, Iterations: 50})
	if err != nil {
		t.Fatalf("values of 1e150: %v", err)
	}
	for i, p := range e.Y {
		if math.IsNaN(p[0]+p[1]) || math.IsInf(p[0]+p[1], 0) {
			t.Fatalf("values of 1e150: point %d is %v", i, p)
		}
	}
	// A learning rate that overflows the update.
	_, err = Embed(context.Background(), base, Options{Perplexity: 3, Iterations: 50, LearningRate: 1e308})
	if !errors.Is(err, ErrDiverged) {
		t.Errorf("learning rate 1e308: got %v, want ErrDiverged", err)
	}
	init := make([][]float64, len(base))
	for i := range init {
		init[i] = []float64{float64(i), 0}
	}
	init[3][1] = math.NaN()
	if _, err = Embed(context.Background(), base, Options{Perplexity: 3, Init: init}); err == nil {
		t.Error("NaN in Init: got nil error")
	}
}

// TestReduceInputKeepsDistances checks that the reduction of a wide input
// whose centred rank is below 50 (here n = 40 points) keeps every pairwise
// distance: the scores are the coordinates in an orthonormal basis of a
// subspace holding the data, so only rounding and the accuracy of the
// randomized axes (see TestRandomizedAxesMatchExact) can change them.
func TestReduceInputKeepsDistances(t *testing.T) {
	const n, d = 40, 600
	x := spectrum(n, d, []float64{30, 20, 10, 5, 2}, 0.5, 8) // noise: full rank n−1
	red, s, err := reduceInput(context.Background(), x, n, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if red.c > maxComponents || len(s) != n*red.c {
		t.Fatalf("got %d components (%d scores), want at most %d", red.c, len(s), maxComponents)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			want := sqDist(x[i*d:(i+1)*d], x[j*d:(j+1)*d])
			got := sqDist(s[i*red.c:(i+1)*red.c], s[j*red.c:(j+1)*red.c])
			if math.Abs(got-want) > 1e-8*want {
				t.Fatalf("distance² %d–%d: reduced %g, input %g", i, j, got, want)
			}
		}
	}
	// project maps the input rows to the same scores.
	p := red.project(x, n)
	for i := range p {
		if math.Abs(p[i]-s[i]) > 1e-9*(1+math.Abs(s[i])) {
			t.Fatalf("project: score %d is %g, want %g", i, p[i], s[i])
		}
	}
}

// TestWideEmbedTransform embeds two separated clusters of a 120×400 input
// (reduced to 50 components) and checks the clusters and that Transform
// places new points of each cluster beside it.
func TestWideEmbedTransform(t *testing.T) {
	x, lab := blobs(124, 400, 2, 1, 3)
	ref, newPts := x[:120], x[120:]
	e, err := Embed(context.Background(), ref, Options{Perplexity: 10, Iterations: 300, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if e.red == nil || e.red.c != maxComponents {
		t.Fatalf("reduction: got %+v, want %d components", e.red, maxComponents)
	}
	var mean [2][2]float64
	var cnt [2]float64
	for i, p := range e.Y {
		mean[lab[i]][0] += p[0]
		mean[lab[i]][1] += p[1]
		cnt[lab[i]]++
	}
	for k := range mean {
		mean[k][0] /= cnt[k]
		mean[k][1] /= cnt[k]
	}
	nearest := func(p []float64) int {
		d0 := math.Hypot(p[0]-mean[0][0], p[1]-mean[0][1])
		d1 := math.Hypot(p[0]-mean[1][0], p[1]-mean[1][1])
		if d0 < d1 {
			return 0
		}
		return 1
	}
	for i, p := range e.Y {
		if nearest(p) != lab[i] {
			t.Fatalf("point %d of cluster %d is nearer the other cluster's mean", i, lab[i])
		}
	}
	y, err := e.Transform(context.Background(), newPts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range y {
		if nearest(p) != lab[120+i] {
			t.Errorf("new point %d of cluster %d placed nearer the other cluster", i, lab[120+i])
		}
	}
}

package tsne

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// TestCalibrate checks the binary search of the perplexity: each row of
// conditional probabilities sums to 1 and its Shannon entropy (computed here
// directly from the definition −Σ p ln p) equals ln(perplexity).
func TestCalibrate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		k    int
		perp float64
	}{{10, 2}, {30, 5}, {90, 30}, {200, 50}, {12, 11.5}} {
		d := make([]float64, tc.k)
		for j := range d {
			d[j] = 100 * rng.Float64() * rng.Float64()
		}
		p := make([]float64, tc.k)
		calibrate(d, p, tc.perp)
		sum, h := 0.0, 0.0
		for _, v := range p {
			sum += v
			if v > 0 {
				h -= v * math.Log(v)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("k=%d perp=%v: sum got %v, want 1", tc.k, tc.perp, sum)
		}
		if want := math.Log(tc.perp); math.Abs(h-want) > 1e-4 {
			t.Errorf("k=%d perp=%v: entropy got %v, want %v", tc.k, tc.perp, h, want)
		}
	}
}

// klDirect computes KL(P‖Q) from the definitions (van der Maaten & Hinton
// 2008, Eq. 2 and 4), independently of exactGrad.
func klDirect(P, y []float64, n int) float64 {
	z := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				d0, d1 := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
				z += 1 / (1 + d0*d0 + d1*d1)
			}
		}
	}
	kl := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if p := P[i*n+j]; i != j && p > 0 {
				d0, d1 := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
				kl += p * math.Log(p/((1/(1+d0*d0+d1*d1))/z))
			}
		}
	}
	return kl
}

// TestExactGradient compares the analytic gradient with central finite
// differences of the directly computed KL divergence, and the reported KL with
// klDirect.
func TestExactGradient(t *testing.T) {
	x, _ := blobs(30, 5, 3, 1, 7)
	flat, n, d, _ := flatten(x, 0)
	P, err := exactP(context.Background(), flat, n, d, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	y := make([]float64, 2*n)
	for i := range y {
		y[i] = 3 * rng.NormFloat64()
	}
	g := make([]float64, 2*n)
	eg := &exactGrad{P: P, n: n, workers: 2}
	kl := eg.grad(y, g, 1, true)
	if want := klDirect(P, y, n); math.Abs(kl-want) > 1e-10*math.Abs(want) {
		t.Errorf("KL got %v, want %v", kl, want)
	}
	num := fd.Gradient(nil, func(y []float64) float64 { return klDirect(P, y, n) }, y,
		&fd.Settings{Formula: fd.Central, Step: 1e-5})
	for i, want := range num {
		if math.Abs(want-g[i]) > 1e-6+1e-5*math.Abs(want) {
			t.Errorf("grad[%d] got %v, want %v (finite differences)", i, g[i], want)
		}
	}
}

// TestTransformGradient checks the gradient of Transform's objective against
// finite differences of its KL estimate with exact sums (θ = 0).
func TestTransformGradient(t *testing.T) {
	x, _ := blobs(60, 4, 3, 1, 8)
	e, err := Embed(context.Background(), x, Options{Perplexity: 5, Iterations: 50, Method: Exact})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	m, k := 3, 6
	tg := &transformGrad{ref: e.y, m: m, k: k, workers: 1, nbr: make([]int32, m*k), p: make([]float64, m*k), klpart: make([]float64, 1)}
	for i := range tg.nbr {
		tg.nbr[i] = int32(rng.IntN(60))
		tg.p[i] = 1.0 / float64(k)
	}
	tg.tree.build(e.y, 60)
	y := []float64{0.1, 0.2, -0.3, 0.05, 0.4, -0.2}
	g := make([]float64, len(y))
	tg.grad(y, g, 1, true)
	dummy := make([]float64, len(y))
	num := fd.Gradient(nil, func(y []float64) float64 { return tg.grad(y, dummy, 1, true) }, y,
		&fd.Settings{Formula: fd.Central, Step: 1e-6})
	for i, want := range num {
		if math.Abs(want-g[i]) > 1e-6+1e-5*math.Abs(want) {
			t.Errorf("grad[%d] got %v, want %v (finite differences)", i, g[i], want)
		}
	}
}

// TestSymmetrise compares the sparse symmetrisation with a dense computation.
func TestSymmetrise(t *testing.T) {
	n, k := 7, 3
	rng := rand.New(rand.NewPCG(3, 3))
	nbr := make([]int32, n*k)
	cond := make([]float64, n*k)
	dense := make([]float64, n*n)
	for i := 0; i < n; i++ {
		perm := rng.Perm(n - 1)
		for t := 0; t < k; t++ {
			j := perm[t]
			if j >= i {
				j++
			}
			nbr[i*k+t] = int32(j)
			cond[i*k+t] = rng.Float64()
			dense[i*n+j] += cond[i*k+t]
		}
	}
	P := symmetrise(nbr, cond, n, k, 2)
	got := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for q := P.ptr[i]; q < P.ptr[i+1]; q++ {
			if q > P.ptr[i] && P.col[q] <= P.col[q-1] {
				t.Errorf("row %d columns not strictly increasing", i)
			}
			got[i*n+int(P.col[q])] = float64(P.val[q])
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := (dense[i*n+j] + dense[j*n+i]) / (2 * float64(n))
			if math.Abs(got[i*n+j]-want) > 1e-7*want {
				t.Errorf("P[%d][%d] got %v, want %v", i, j, got[i*n+j], want)
			}
		}
	}
}

// TestVPTree compares the tree's kNN with brute force, including ties.
func TestVPTree(t *testing.T) {
	x, _ := blobs(500, 6, 4, 1.5, 2)
	// Duplicates create ties that must be broken by index.
	x[10] = slices.Clone(x[3])
	x[11] = slices.Clone(x[3])
	flat, n, d, _ := flatten(x, 0)
	tree, err := newVPTree(context.Background(), flat, n, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	const k = 15
	s := tree.newSearcher(k)
	got := make([]int32, k)
	dist := make([]float64, k)
	for i := 0; i < n; i++ {
		s.search(tree.point(i), int32(i), got, dist)
		type cand struct {
			d float64
			j int32
		}
		var all []cand
		for j := 0; j < n; j++ {
			if j != i {
				all = append(all, cand{math.Sqrt(sqDist(tree.point(i), tree.point(j))), int32(j)})
			}
		}
		slices.SortFunc(all, func(a, b cand) int {
			if a.d != b.d {
				if a.d < b.d {
					return -1
				}
				return 1
			}
			return int(a.j - b.j)
		})
		for m := 0; m < k; m++ {
			if got[m] != all[m].j || dist[m] != all[m].d {
				t.Fatalf("point %d neighbour %d: got (%d, %v), want (%d, %v)", i, m, got[m], dist[m], all[m].j, all[m].d)
			}
		}
	}
}

// TestRepulsionAccuracy checks the Barnes-Hut and FFT repulsive sums and Z
// against brute force on a spread-out embedding.
func TestRepulsionAccuracy(t *testing.T) {
	n := 1200
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		y[2*i] = float64(i%7)*9 + 2*rng.NormFloat64()
		y[2*i+1] = float64(i%3)*12 + 3*rng.NormFloat64()
	}
	wantR, wantZ := exactRepulsion(y)
	P := &csr{ptr: make([]int, n+1)}

	var tree quadTree
	tree.build(y, n)
	gotR := make([]float64, 2*n)
	for _, theta := range []float64{0, 0.5} {
		gotZ := 0.0
		for i := 0; i < n; i++ {
			r0, r1, z, _ := tree.repulse(y[2*i], y[2*i+1], int32(i), theta*theta, nil)
			gotR[2*i], gotR[2*i+1] = r0, r1
			gotZ += z
		}
		tol := 1e-12
		if theta > 0 {
			tol = 0.03
		}
		if e := relErr(gotR, wantR); e > tol {
			t.Errorf("bh θ=%v: force relative error got %v, want ≤ %v", theta, e, tol)
		}
		if e := math.Abs(gotZ-wantZ) / wantZ; e > tol {
			t.Errorf("bh θ=%v: Z relative error got %v, want ≤ %v", theta, e, tol)
		}
	}

	// The default grid (measured: 1.5 % force and 0.54 % Z error here) and a
	// fine one (1.5e-4 and 9e-5), which shows the scheme converges.
	for _, tc := range []struct{ spacing, forceTol, zTol float64 }{
		{fftSpacing, 0.02, 0.007},
		{0.125, 3e-4, 2e-4},
	} {
		f := newFFTGrad(P, n, 2)
		f.spacing = tc.spacing
		z := f.repulsive(y)
		for i := 0; i < n; i++ {
			y0, y1 := y[2*i]-f.c0, y[2*i+1]-f.c1
			gotR[2*i] = y0*f.phi[4*i] - f.phi[4*i+1]
			gotR[2*i+1] = y1*f.phi[4*i] - f.phi[4*i+2]
		}
		t.Logf("fft spacing %v: m=%d, h=%.3f, force relative error %.2e, Z relative error %.2e", tc.spacing, f.m, f.h, relErr(gotR, wantR), math.Abs(z-wantZ)/wantZ)
		if e := relErr(gotR, wantR); e > tc.forceTol {
			t.Errorf("fft spacing %v: force relative error got %v, want ≤ %v", tc.spacing, e, tc.forceTol)
		}
		if e := math.Abs(z-wantZ) / wantZ; e > tc.zTol {
			t.Errorf("fft spacing %v: Z relative error got %v, want ≤ %v", tc.spacing, e, tc.zTol)
		}
	}
}

// TestFFTPlan compares the FFT with a direct DFT.
func TestFFTPlan(t *testing.T) {
	for _, n := range []int{2, 3, 4, 6, 8, 9, 12, 18, 24, 64, 96, 108} {
		rng := rand.New(rand.NewPCG(uint64(n), 0))
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		for _, inv := range []bool{false, true} {
			got := slices.Clone(x)
			newFFTPlan(n).transform(got, make([]complex128, n), inv)
			sign := -1.0
			if inv {
				sign = 1
			}
			for k := 0; k < n; k++ {
				var want complex128
				for j := 0; j < n; j++ {
					s, c := math.Sincos(sign * 2 * math.Pi * float64(j*k) / float64(n))
					want += x[j] * complex(c, s)
				}
				if d := got[k] - want; math.Hypot(real(d), imag(d)) > 1e-10 {
					t.Errorf("n=%d inverse=%v: X[%d] got %v, want %v", n, inv, k, got[k], want)
				}
			}
		}
	}
}

// knnPreservation returns the mean fraction of each point's 10 nearest
// embedded neighbours that share its label.
func labelPurity(y [][]float64, lab []int) float64 {
	n := len(y)
	total := 0.0
	for i := 0; i < n; i++ {
		type c struct {
			d float64
			j int
		}
		var all []c
		for j := 0; j < n; j++ {
			if j != i {
				d0, d1 := y[i][0]-y[j][0], y[i][1]-y[j][1]
				all = append(all, c{d0*d0 + d1*d1, j})
			}
		}
		slices.SortFunc(all, func(a, b c) int {
			if a.d < b.d {
				return -1
			}
			if a.d > b.d {
				return 1
			}
			return a.j - b.j
		})
		same := 0
		for _, a := range all[:10] {
			if lab[a.j] == lab[i] {
				same++
			}
		}
		total += float64(same) / 10
	}
	return total / float64(n)
}

// TestClustersSeparated embeds well-separated Gaussian clusters and requires
// that 10-NN in the embedding stay within the cluster, for every method, and
// that the KL divergence decreases over the run after early exaggeration.
func TestClustersSeparated(t *testing.T) {
	methods := []Method{Exact, BarnesHut, FFT}
	n, iters := 400, 600
	if testing.Short() {
		methods = []Method{Exact, BarnesHut}
		n, iters = 200, 400
	}
	x, lab := blobs(n, 10, 5, 1, 11)
	for _, m := range methods {
		t.Run(string(m), func(t *testing.T) {
			var kls []float64
			e, err := Embed(context.Background(), x, Options{Perplexity: 20, Iterations: iters, Method: m, Seed: 3, KLEvery: 1,
				Progress: func(it int, kl float64, _ []float64) bool {
					kls = append(kls, kl)
					return true
				}})
			if err != nil {
				t.Fatal(err)
			}
			if e.Method != m || e.Iterations != iters || len(kls) != iters {
				t.Fatalf("got method %v, %d iterations, %d callbacks; want %v, %d, %d", e.Method, e.Iterations, len(kls), m, iters, iters)
			}
			if p := labelPurity(e.Y, lab); p < 0.98 {
				t.Errorf("10-NN label purity got %v, want ≥ 0.98", p)
			}
			// KL after exaggeration must fall: compare iteration 260 with the end,
			// and the end must not be above any later checkpoint by more than noise.
			if !(e.KL < kls[259]) {
				t.Errorf("KL got %v at the end, want below %v at iteration 260", e.KL, kls[259])
			}
			for it := 300; it < iters; it += 100 {
				if kls[it] > kls[it-100]+1e-3 {
					t.Errorf("KL rose from %v (iteration %d) to %v (iteration %d)", kls[it-100], it-99, kls[it], it+1)
				}
			}
			if m == Exact {
				flat, _, d, _ := flatten(x, 0)
				P, _ := exactP(context.Background(), flat, n, d, 20, 1)
				if want := klDirect(P, e.y, n); math.Abs(e.KL-want) > 1e-9 {
					t.Errorf("final KL got %v, want %v", e.KL, want)
				}
			}
		})
	}
}

// TestDeterministic requires bit-identical output for the same seed whatever
// the number of workers and GOMAXPROCS.
func TestDeterministic(t *testing.T) {
	for _, tc := range []struct {
		m  Method
		nb NeighbourSearch
	}{{Exact, NeighboursAuto}, {BarnesHut, NeighboursExact}, {FFT, NeighboursExact}, {FFT, NeighboursApprox}} {
		m := tc.m
		t.Run(string(m)+"/"+string(tc.nb), func(t *testing.T) {
			n := 700
			if m == Exact {
				n = 200
			}
			x, _ := blobs(n, 8, 4, 1, 5)
			var ref [][]float64
			for _, procs := range []int{1, 2} {
				for _, workers := range []int{0, 1, 3} {
					old := runtime.GOMAXPROCS(procs)
					e, err := Embed(context.Background(), x, Options{Perplexity: 10, Iterations: 120, ExaggerationIters: 60, Method: m, Neighbours: tc.nb, Seed: 9, Workers: workers})
					runtime.GOMAXPROCS(old)
					if err != nil {
						t.Fatal(err)
					}
					if ref == nil {
						ref = e.Y
						if want := tc.nb; want != NeighboursAuto && e.Neighbours != want {
							t.Fatalf("Neighbours %q, want %q", e.Neighbours, want)
						}
						continue
					}
					for i := range ref {
						if ref[i][0] != e.Y[i][0] || ref[i][1] != e.Y[i][1] {
							t.Fatalf("GOMAXPROCS=%d workers=%d: point %d got %v, want %v", procs, workers, i, e.Y[i], ref[i])
						}
					}
				}
			}
		})
	}
}

// TestTransform checks that Transform leaves the embedding alone and puts
// points drawn from a cluster next to that cluster.
func TestTransform(t *testing.T) {
	x, lab := blobs(312, 10, 4, 1, 21)
	ref, refLab := x[:300], lab[:300]
	e, err := Embed(context.Background(), ref, Options{Perplexity: 15, Iterations: 500, Method: BarnesHut, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	before := make([][]float64, len(e.Y))
	for i := range e.Y {
		before[i] = slices.Clone(e.Y[i])
	}
	got, err := e.Transform(context.Background(), x[300:], Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range e.Y {
		if e.Y[i][0] != before[i][0] || e.Y[i][1] != before[i][1] {
			t.Fatalf("reference point %d moved from %v to %v", i, before[i], e.Y[i])
		}
	}
	// Embedded cluster centroids.
	cent := make([][2]float64, 4)
	cnt := make([]float64, 4)
	for i, p := range e.Y {
		cent[refLab[i]][0] += p[0]
		cent[refLab[i]][1] += p[1]
		cnt[refLab[i]]++
	}
	for c := range cent {
		cent[c][0] /= cnt[c]
		cent[c][1] /= cnt[c]
	}
	for i, p := range got {
		best, bestD := -1, math.Inf(1)
		for c := range cent {
			if d := math.Hypot(p[0]-cent[c][0], p[1]-cent[c][1]); d < bestD {
				best, bestD = c, d
			}
		}
		if want := lab[300+i]; best != want {
			t.Errorf("new point %d at %v: nearest cluster got %d, want %d", i, p, best, want)
		}
	}
	// One point alone lands where it lands in a batch (points do not interact).
	one, err := e.Transform(context.Background(), x[305:306], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if one[0][0] != got[5][0] || one[0][1] != got[5][1] {
		t.Errorf("single transform got %v, want %v as in the batch", one[0], got[5])
	}
}

// TestErrors checks that bad input is reported, not panicked on.
func TestErrors(t *testing.T) {
	good, _ := blobs(20, 3, 2, 1, 1)
	nan := [][]float64{{1, 2}, {3, math.NaN()}, {1, 1}, {2, 2}, {0, 0}}
	ragged := [][]float64{{1, 2}, {3}, {1, 1}, {2, 2}}
	tests := []struct {
		name string
		x    [][]float64
		opt  Options
		is   error
	}{
		{"empty", nil, Options{}, nil},
		{"ragged", ragged, Options{Perplexity: 1}, nil},
		{"nan", nan, Options{Perplexity: 1}, nil},
		{"three points", good[:3], Options{Perplexity: 0.5}, ErrTooFewPoints},
		{"perplexity", good, Options{Perplexity: 7}, ErrPerplexity},
		{"default perplexity", good, Options{}, ErrPerplexity},
		{"negative perplexity", good, Options{Perplexity: -1}, nil},
		{"method", good, Options{Perplexity: 3, Method: "tsne"}, nil},
		{"init rows", good, Options{Perplexity: 3, Init: [][]float64{{0, 0}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Embed(context.Background(), tt.x, tt.opt)
			if err == nil {
				t.Fatal("got nil error, want one")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("got %v, want %v", err, tt.is)
			}
		})
	}
	var ie *InputError
	if _, err := Embed(context.Background(), ragged, Options{Perplexity: 1}); !errors.As(err, &ie) || ie.Row != 1 {
		t.Errorf("ragged: got %v, want an InputError for row 1", err)
	}
	if _, err := Embed(context.Background(), nan, Options{Perplexity: 1}); !errors.As(err, &ie) || ie.Row != 1 || ie.Col != 1 {
		t.Errorf("nan: got %v, want an InputError for row 1 column 1", err)
	}
	e, err := Embed(context.Background(), good, Options{Perplexity: 3, Iterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Transform(context.Background(), [][]float64{{1, 2}}, Options{}); !errors.As(err, &ie) {
		t.Errorf("transform with wrong dims: got %v, want an InputError", err)
	}
}

// TestStop checks cancellation and stopping from the progress callback.
func TestStop(t *testing.T) {
	x, _ := blobs(100, 4, 2, 1, 1)
	e, err := Embed(context.Background(), x, Options{Perplexity: 5, Progress: func(it int, _ float64, _ []float64) bool { return it < 7 }})
	if err != nil || e.Iterations != 7 {
		t.Errorf("stop from progress: got %v iterations (err %v), want 7", e.Iterations, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Embed(ctx, x, Options{Perplexity: 5, Progress: func(it int, _ float64, _ []float64) bool {
		if it == 5 {
			cancel()
		}
		return true
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: got %v, want context.Canceled", err)
	}
}

// TestRowsInPlace checks that the rows of one matrix are read in place, that
// rows of separate arrays, out of order or with gaps are copied, and that
// Embed gives the same bits either way and leaves x as it was.
func TestRowsInPlace(t *testing.T) {
	x, _ := blobs(300, 6, 3, 1, 5) // rows of one array, end to end
	if rowsInPlace(x, 6) == nil {
		t.Fatal("the rows of one array were not taken in place")
	}
	apart := make([][]float64, len(x))
	for i, row := range x {
		apart[i] = slices.Clone(row)
	}
	swapped := slices.Clone(x)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	back := make([]float64, 7*len(x))
	gaps := make([][]float64, len(x))
	for i, row := range x {
		gaps[i] = back[7*i : 7*i+6]
		copy(gaps[i], row)
	}
	for name, y := range map[string][][]float64{"separate arrays": apart, "out of order": swapped, "gaps": gaps} {
		if rowsInPlace(y, 6) != nil {
			t.Errorf("%s: rows taken in place", name)
		}
	}
	orig := make([][]float64, len(x))
	for i, row := range x {
		orig[i] = slices.Clone(row)
	}
	opt := Options{Seed: 3, Iterations: 120, Method: FFT}
	a, err := Embed(context.Background(), x, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Embed(context.Background(), apart, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Y {
		if math.Float64bits(a.Y[i][0]) != math.Float64bits(b.Y[i][0]) || math.Float64bits(a.Y[i][1]) != math.Float64bits(b.Y[i][1]) {
			t.Fatalf("point %d: %v in place, %v copied", i, a.Y[i], b.Y[i])
		}
		if !slices.Equal(x[i], orig[i]) {
			t.Fatalf("Embed changed input row %d", i)
		}
	}
	ta, err := a.Transform(context.Background(), apart[:5], Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Transform(context.Background(), apart[:5], Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ta {
		if !slices.Equal(ta[i], tb[i]) {
			t.Fatalf("Transform point %d: %v from the in-place embedding, %v from the copied one", i, ta[i], tb[i])
		}
	}
}

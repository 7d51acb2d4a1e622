package baselines

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/taglens/taglens/ml/eval"
)

// globalPlanted draws n training documents over two disjoint groups of `per`
// co-occurring terms (terms 0..per-1 and per..2per-1): each document takes 2..4
// distinct terms of one group, chosen uniformly.
func globalPlanted(seed uint64, n, per int) [][]int {
	rng := rand.New(rand.NewPCG(seed, 99))
	docs := make([][]int, n)
	for d := range docs {
		g := rng.IntN(2)
		for _, i := range rng.Perm(per)[:2+rng.IntN(3)] {
			docs[d] = append(docs[d], g*per+i)
		}
	}
	return docs
}

// checkGroupsSeparated asserts that for every query term, every other term of its
// group is closer than every term of the other group (planted ground truth).
func checkGroupsSeparated(t *testing.T, m eval.Model, per int) {
	t.Helper()
	v := m.VocabSize()
	if v != 2*per {
		t.Fatalf("VocabSize: got %d, want %d", v, 2*per)
	}
	queries := make([]int, v)
	for i := range queries {
		queries[i] = i
	}
	dst := make([]float64, v*v)
	m.Distances(nil, queries, rand.New(rand.NewPCG(1, 1)), dst)
	for q := 0; q < v; q++ {
		row := dst[q*v : (q+1)*v]
		worstSame, bestOther := math.Inf(-1), math.Inf(1)
		for j, d := range row {
			if math.IsNaN(d) {
				t.Fatalf("%s: distance(%d, %d) is NaN", m.Name(), q, j)
			}
			switch {
			case j == q:
			case j/per == q/per:
				worstSame = max(worstSame, d)
			default:
				bestOther = min(bestOther, d)
			}
		}
		if !(worstSame < bestOther) {
			t.Errorf("%s: query %d: farthest same-group distance %v, nearest other-group %v, want smaller", m.Name(), q, worstSame, bestOther)
		}
	}
}

func TestTermVectorsCosine(t *testing.T) {
	// Vectors chosen so the cosines are known: e0·e1 = 0, (1,1)/√2 at 45°.
	tv := NewTermVectors(4, 2, []float64{3, 0, 0, 2, 1, 1, 0, 0})
	dst := make([]float64, 2*4)
	tv.CosineDistancesTo(dst, []int{0, 3})
	want := []float64{0, 1, 1 - 1/math.Sqrt2, 1, 1, 1, 1, 1}
	for i := range want {
		if math.Abs(dst[i]-want[i]) > 1e-12 {
			t.Errorf("dst[%d]: got %v, want %v", i, dst[i], want[i])
		}
	}
}

// TestGlobalConcurrentAndDeterministic: the fitted global baselines give the
// same distances when called from several goroutines at once (run with -race)
// and when fitted twice with the same seed.
func TestGlobalConcurrentAndDeterministic(t *testing.T) {
	docs := globalPlanted(9, 150, 4)
	const v = 8
	fit := func() []eval.Model {
		l, err := FitLSA(context.Background(), docs, v, LSAOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := FitPCA(context.Background(), docs, v, PCAOptions{Dim: 3})
		if err != nil {
			t.Fatal(err)
		}
		it, err := FitInfoTheo(context.Background(), docs, v, InfoTheoOptions{Dim: 3, TuneDocs: 50})
		if err != nil {
			t.Fatal(err)
		}
		sg, err := FitSkipGram(context.Background(), docs, v, SkipGramOptions{Dim: 3, Epochs: 2, TuneDocs: 50})
		if err != nil {
			t.Fatal(err)
		}
		pp, err := FitPPMISVD(context.Background(), docs, v, PPMISVDOptions{Dims: []int{3}, TuneDocs: 50})
		if err != nil {
			t.Fatal(err)
		}
		gl, err := FitGloVe(context.Background(), docs, v, GloVeOptions{Dims: []int{3}, Epochs: 10, TuneDocs: 50})
		if err != nil {
			t.Fatal(err)
		}
		return []eval.Model{l, p, it, sg, pp, gl}
	}
	a, b := fit(), fit()
	queries := []int{0, 3, 5}
	for i, m := range a {
		want := make([]float64, len(queries)*v)
		m.Distances(nil, queries, nil, want)
		again := make([]float64, len(want))
		b[i].Distances(nil, queries, nil, again)
		if !slices.Equal(want, again) {
			t.Errorf("%s: two fits with the same seed differ", m.Name())
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got := make([]float64, len(want))
				m.Distances(nil, queries, nil, got)
				if !slices.Equal(got, want) {
					t.Errorf("%s: concurrent call differs", m.Name())
				}
			}()
		}
		wg.Wait()
	}
}

// TestCosineDistancesToDirect checks both code paths (matrix-vector products
// below gemmAbove, one matrix product above) against the definition
// 1 − <u_q, u_j> computed term by term.
func TestCosineDistancesToDirect(t *testing.T) {
	for _, c := range []struct{ v, d int }{{37, 5}, {600, 230}} {
		rng := rand.New(rand.NewPCG(3, 4))
		v, d := c.v, c.d
		vec := make([]float64, v*d)
		for i := range vec {
			vec[i] = rng.NormFloat64()
		}
		copy(vec[7*d:8*d], make([]float64, d)) // a zero row: distance 1 to everything
		tv := NewTermVectors(v, d, vec)
		queries := []int{3, 7, 0, v - 1, 3}
		dst := make([]float64, len(queries)*v)
		tv.CosineDistancesTo(dst, queries)
		for i, q := range queries {
			for j := 0; j < v; j++ {
				var dot, nq, nj float64
				for k := 0; k < d; k++ {
					a, b := vec[q*d+k], vec[j*d+k]
					dot += a * b
					nq += a * a
					nj += b * b
				}
				want := 1.0
				if nq > 0 && nj > 0 {
					want = 1 - dot/math.Sqrt(nq*nj)
				}
				if got := dst[i*v+j]; math.Abs(got-want) > 1e-12 {
					t.Fatalf("%d×%d: query %d term %d: %v, want %v", v, d, q, j, got, want)
				}
			}
		}
	}
}

// TestCosineDistancesCached checks that the rows CosineDistancesTo keeps give,
// bit for bit, what the direct computation gives for the very same call, on
// both code paths and for the shapes it does not cache (one query of a large
// matrix, a large matrix of few terms), from concurrent goroutines asking for
// overlapping queries.
func TestCosineDistancesCached(t *testing.T) {
	for _, c := range []struct{ v, d int }{{37, 5}, {600, 230}, {150, 900}} {
		rng := rand.New(rand.NewPCG(5, 6))
		vec := make([]float64, c.v*c.d)
		for i := range vec {
			vec[i] = rng.NormFloat64()
		}
		cached, direct := NewTermVectors(c.v, c.d, vec), NewTermVectors(c.v, c.d, vec)
		calls := make([][]int, 40)
		for i := range calls {
			n := 1 + rng.IntN(12)
			if i%7 == 3 {
				n = 1
			}
			for range n {
				calls[i] = append(calls[i], rng.IntN(min(c.v, 60))) // overlapping queries
			}
		}
		cached.PrepareQueries([]int{0, 5, 9, 5, -1, c.v, c.v - 1}) // repeated and invalid terms are ignored
		var wg sync.WaitGroup
		errs := make([]string, len(calls))
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < len(calls); i += 4 {
					got := make([]float64, len(calls[i])*c.v)
					want := make([]float64, len(got))
					cached.CosineDistancesTo(got, calls[i])
					direct.cosineDirect(want, calls[i], direct.useProduct(len(calls[i])))
					for j := range got {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							errs[i] = fmt.Sprintf("%d×%d: call %d %v: value %d is %v, direct %v", c.v, c.d, i, calls[i], j, got[j], want[j])
							break
						}
					}
				}
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Error(e)
			}
		}
		if cacheAll := c.v*c.d < gemmAbove || c.v > 192; cacheAll != (cached.rows != nil) {
			t.Errorf("%d×%d: rows kept %v, want %v", c.v, c.d, cached.rows != nil, cacheAll)
		}
	}
}

// TestCosineProductMatchesGonum checks cosineProduct (the AVX2 lanes and their
// Go remainder) against gonum's matrix product bit for bit, on shapes with D
// not a multiple of 64 or of 4, V not a multiple of 4 and odd query counts,
// and dotLanes against gonum's dot product.
func TestCosineProductMatchesGonum(t *testing.T) {
	if !useLanes {
		t.Skip("no AVX2 or no gonum assembly: cosineProduct is not used")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 230} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		if got, want := dotLanes(x, y), floats.Dot(x, y); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("dotLanes, n = %d: %v, gonum %v", n, got, want)
		}
	}
	for _, c := range []struct{ v, d int }{{193, 1}, {257, 3}, {300, 64}, {301, 67}, {602, 130}, {1030, 256}} {
		vec := make([]float64, c.v*c.d)
		for i := range vec {
			vec[i] = rng.NormFloat64()
		}
		tv := NewTermVectors(c.v, c.d, vec)
		for _, nq := range []int{2, 3, 5, 8} {
			queries := make([]int, nq)
			for i := range queries {
				queries[i] = rng.IntN(c.v)
			}
			got := make([]float64, nq*c.v)
			want := make([]float64, nq*c.v)
			tv.cosineDirect(got, queries, true)
			useLanes = false
			tv.cosineDirect(want, queries, true)
			useLanes = true
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("%d×%d, %d queries: value %d is %v, gonum %v", c.v, c.d, nq, j, got[j], want[j])
				}
			}
		}
	}
}

// TestRunInOrder checks that results reach take in index order, that the
// first failing index in order stops the run with its error, and that a
// cancelled context stops it.
func TestRunInOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var got []int
	err := runInOrder(context.Background(), 20, func(i int) (int, error) {
		s := 0
		for j := range (20 - i) * 10000 { // later indices tend to finish first
			s += j % 7
		}
		if s < 0 {
			return 0, errors.New("overflow")
		}
		return i * i, nil
	}, func(i, r int) {
		if r != i*i {
			t.Errorf("take(%d, %d)", i, r)
		}
		got = append(got, i)
	})
	if err != nil || len(got) != 20 || !slices.IsSorted(got) {
		t.Errorf("got %v, %v; want 0..19 in order", got, err)
	}
	boom := errors.New("boom")
	got = got[:0]
	err = runInOrder(context.Background(), 20, func(i int) (int, error) {
		if i == 7 || i == 12 {
			return 0, fmt.Errorf("fit %d: %w", i, boom)
		}
		return i, nil
	}, func(i, r int) { got = append(got, i) })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "fit 7") || len(got) != 7 {
		t.Errorf("got %v after %v; want 0..6 and fit 7's error", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = runInOrder(ctx, 5, func(i int) (int, error) { return i, nil }, func(int, int) {})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	// A take that cancels stops the run there, even when the next results
	// are already done (repeated: the stop must not be left to chance).
	for rep := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		got = got[:0]
		err = runInOrder(ctx, 20, func(i int) (int, error) { return i, nil }, func(i, _ int) {
			got = append(got, i)
			if i == 2 {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) || len(got) != 3 {
			t.Fatalf("run %d: took %v, then %v; want 0..2, then context.Canceled", rep, got, err)
		}
	}
}

// badFit is a bad input of a Fit function with options of type O and the
// text its error must contain.
type badFit[O any] struct {
	name  string
	train [][]int
	v     int
	opt   O
	want  string
}

// checkBadFits calls fit on the inputs every co-occurrence baseline must
// refuse (a vocabulary of one term, one training document, a term id outside
// the vocabulary, below and above) and then on the cases of its own, and
// checks each error.
func checkBadFits[O any](t *testing.T, fit func(ctx context.Context, train [][]int, v int, opt O) error, own []badFit[O]) {
	t.Helper()
	var zero O // the defaults
	cases := append([]badFit[O]{
		{"one term", [][]int{{0}, {0}}, 1, zero, "vocabulary of 1"},
		{"one document", [][]int{{0, 1}}, 2, zero, "1 training documents"},
		{"negative term", [][]int{{0, 1}, {-1}}, 2, zero, "outside vocabulary"},
		{"term outside", [][]int{{0, 1}, {2}}, 2, zero, "outside vocabulary"},
	}, own...)
	for _, tc := range cases {
		err := fit(context.Background(), tc.train, tc.v, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// checkCancelledAfterOne checks the outcome of a grid search whose progress
// callback cancelled the context at its first point.
func checkCancelledAfterOne(t *testing.T, err error, points int) {
	t.Helper()
	if err != context.Canceled || points != 1 {
		t.Errorf("got %v after %d points, want context.Canceled after 1", err, points)
	}
}

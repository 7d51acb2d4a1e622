package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/features"
)

// TestPairCounts checks the within-document counts of distinct pairs by hand:
// {0,1,2}, {1,0} (the same pair again), {2,2,3} (a repeated tag counts once)
// and {4} (no pair).
func TestPairCounts(t *testing.T) {
	docs := [][]int{{0, 1, 2}, {1, 0}, {2, 2, 3}, {4}}
	c, err := pairCounts(docs, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]int]float64{{0, 1}: 2, {0, 2}: 1, {1, 2}: 1, {2, 3}: 1}
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			w := want[[2]int{min(i, j), max(i, j)}]
			if i == j {
				w = 0
			}
			if got := c.At(i, j); got != w {
				t.Errorf("#(%d,%d): got %v, want %v", i, j, got, w)
			}
		}
	}
	if c.NNZ() != 8 {
		t.Errorf("%d stored counts, want 8 (4 pairs in both orders)", c.NNZ())
	}
	if _, err := pairCounts([][]int{{0}, {1}, {1, 1}}, 2); err == nil {
		t.Error("no co-occurring pair: want an error")
	}
}

// TestSPPMIDefinition checks ppmiMatrix against the definition of Levy et al.
// (2015) in probabilities, computed independently: P̂(w,c) = #(w,c)/|D|,
// P̂(w) = #(w)/|D|, P̂_α(c) = #(c)^α/Σ#(c')^α, SPPMI = max(log(P̂(w,c)/(P̂(w)
// P̂_α(c))) − log k, 0), for α ∈ {1, 0.75} and k ∈ {1, 5}, on counts where
// some PMI are negative (term 0 is frequent).
func TestSPPMIDefinition(t *testing.T) {
	docs := [][]int{{0, 1}, {0, 1}, {0, 2}, {0, 3}, {0, 3}, {0, 3}, {1, 2}, {2, 3}, {1, 2, 3}}
	const v = 4
	counts, err := pairCounts(docs, v)
	if err != nil {
		t.Fatal(err)
	}
	n := [v][v]float64{}
	for _, d := range docs {
		for _, a := range d {
			for _, b := range d {
				if a != b {
					n[a][b]++
				}
			}
		}
	}
	var total float64
	var marg [v]float64
	for i := range n {
		for j := range n[i] {
			total += n[i][j]
			marg[i] += n[i][j]
		}
	}
	for _, alpha := range []float64{1, 0.75} {
		for _, k := range []float64{1, 5} {
			m := ppmiMatrix(counts, alpha, k)
			var z float64
			for _, x := range marg {
				z += math.Pow(x, alpha)
			}
			var negative bool
			for w := 0; w < v; w++ {
				for c := 0; c < v; c++ {
					want := 0.0
					if n[w][c] > 0 {
						pmi := math.Log((n[w][c] / total) / ((marg[w] / total) * (math.Pow(marg[c], alpha) / z)))
						negative = negative || pmi < 0
						want = max(pmi-math.Log(k), 0)
					}
					if got := m.At(w, c); math.Abs(got-want) > 1e-12 {
						t.Errorf("α=%v k=%v: SPPMI(%d,%d): got %v, want %v", alpha, k, w, c, got, want)
					}
				}
			}
			if !negative {
				t.Errorf("α=%v: no negative PMI: the test does not exercise the positive part", alpha)
			}
		}
	}
}

// TestPPMISVDPlanted fits PPMI-SVD on two planted groups. The dimensions are
// truncated (d ≪ |Γ|, the regime of real corpora): at full rank, p = 0 gives
// U·Uᵀ = I, every distance 1, and the evaluator's tie-break by term index
// would reward the planted groups' index order.
func TestPPMISVDPlanted(t *testing.T) {
	const per = 5
	docs := globalPlanted(2, 200, per)
	m, err := FitPPMISVD(context.Background(), docs, 2*per, PPMISVDOptions{Dims: []int{2, 3}, TuneDocs: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grid) < 2 {
		t.Fatalf("grid of %d points", len(m.Grid))
	}
	first := -1
	for i, g := range m.Grid {
		if first < 0 || g.TrainP2 > m.Grid[first].TrainP2 {
			first = i
		}
	}
	if g := m.Grid[first]; g.Shift != m.Shift || g.Dim != m.Dim || g.Power != m.Power || g.TrainP2 != m.TrainP2 {
		t.Errorf("chose %v/%d/%v P@2 %v, want the first best grid point %+v", m.Shift, m.Dim, m.Power, m.TrainP2, g)
	}
	if tun := m.Tuning(); tun["dim"] != m.Dim || tun["shift"] != m.Shift || tun["grid"] == nil {
		t.Errorf("Tuning %v", tun)
	}
	checkGroupsSeparated(t, m, per)
}

// TestPPMISVDRandomizedPath plants 60 groups of 20 terms (1,200 terms, above
// features.DefaultExactMaxTerms): the SPPMI matrix is block diagonal, and its
// 60 leading singular directions are one per block, so the randomized SVD at
// 60 dimensions must put every term's nearest neighbour in its own group.
func TestPPMISVDRandomizedPath(t *testing.T) {
	const groups, per = 60, 20
	rng := rand.New(rand.NewPCG(4, 4))
	var docs [][]int
	for range 6000 {
		g := rng.IntN(groups)
		var d []int
		for _, i := range rng.Perm(per)[:3+rng.IntN(3)] {
			d = append(d, g*per+i)
		}
		docs = append(docs, d)
	}
	v := groups * per
	m, err := FitPPMISVD(context.Background(), docs, v, PPMISVDOptions{Dims: []int{groups}, Powers: []float64{1}, Shifts: []float64{1}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Randomized || m.Dim != groups || len(m.Grid) != 0 {
		t.Fatalf("randomized %v dim %d grid %v", m.Randomized, m.Dim, m.Grid)
	}
	dst := make([]float64, v)
	wrong := 0
	for q := 0; q < v; q++ {
		m.Distances(nil, []int{q}, nil, dst)
		dst[q] = math.Inf(1)
		if nn := slices.Index(dst, slices.Min(dst)); nn/per != q/per {
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d terms have their nearest neighbour in another group", wrong, v)
	}
}

func TestPPMISVDDeterministic(t *testing.T) {
	docs := globalPlanted(3, 150, 4)
	opt := PPMISVDOptions{Dims: []int{3, 6}, TuneDocs: 60, Seed: 5}
	a, err := FitPPMISVD(context.Background(), docs, 8, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitPPMISVD(context.Background(), docs, 8, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Unit, b.Unit) || !slices.Equal(a.Grid, b.Grid) {
		t.Error("same seed gave different models")
	}
}

func TestPPMISVDCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitPPMISVD(ctx, globalPlanted(8, 50, 4), 8, PPMISVDOptions{Dims: []int{2}}); err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
	// Cancelled during the grid search: the next grid point stops.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	points := 0
	_, err := FitPPMISVD(ctx, globalPlanted(8, 50, 4), 8, PPMISVDOptions{Dims: []int{2, 3}, TuneDocs: 20,
		Progress: func(PPMISVDPoint) { points++; cancel() }})
	checkCancelledAfterOne(t, err, points)
}

func TestPPMISVDBadInput(t *testing.T) {
	ok := globalPlanted(1, 40, 4)
	fit := func(ctx context.Context, train [][]int, v int, opt PPMISVDOptions) error {
		_, err := FitPPMISVD(ctx, train, v, opt)
		return err
	}
	checkBadFits(t, fit, []badFit[PPMISVDOptions]{
		{"no pair", [][]int{{0}, {1}, {2, 2}}, 3, PPMISVDOptions{Dims: []int{2}}, "no two distinct terms"},
		{"shift below 1", ok, 8, PPMISVDOptions{Shifts: []float64{0.5}}, "shift"},
		{"negative power", ok, 8, PPMISVDOptions{Powers: []float64{-1}}, "eigenvalue weighting"},
		{"NaN power", ok, 8, PPMISVDOptions{Powers: []float64{math.NaN()}}, "eigenvalue weighting"},
		{"alpha above 1", ok, 8, PPMISVDOptions{Alpha: 1.5}, "exponent"},
		{"zero dimension", ok, 8, PPMISVDOptions{Dims: []int{0}}, "dimension"},
		{"huge shift", ok, 8, PPMISVDOptions{Dims: []int{2}, Shifts: []float64{1e9}}, "zero"},
	})
}

// TestPPMIVectorsWeighting checks U_d·Σ_d^p on a diagonal matrix, whose SVD is
// known: σ = (3, 2, 1) on the axes, so term i's vector is σ_i^p·e_i.
func TestPPMIVectorsWeighting(t *testing.T) {
	m := &features.Sparse{R: 3, C: 3, Ptr: []int{0, 1, 2, 3}, Ind: []int{0, 1, 2}, Val: []float64{2, 3, 1}}
	u, s, randomized, err := truncatedSVD(m, 2, 0)
	if err != nil || randomized {
		t.Fatal(err, randomized)
	}
	if !slices.Equal(s, []float64{3, 2}) {
		t.Fatalf("σ = %v, want [3 2]", s)
	}
	for _, p := range []float64{0, 0.5, 1} {
		vec := ppmiVectors(u, s, 2, p)
		// Term 1 holds σ=3 (component 0), term 0 σ=2 (component 1), term 2 nothing.
		want := []float64{0, math.Pow(2, p), math.Pow(3, p), 0, 0, 0}
		for i := range want {
			if math.Abs(math.Abs(vec[i])-want[i]) > 1e-12 {
				t.Errorf("p=%v: vec %v, want ± %v", p, vec, want)
				break
			}
		}
	}
}

// TestModernBaselinesRealData fits PPMI-SVD and GloVe on Corel5K's training
// subset (split.tsv) and evaluates them under extended priming on its
// validation subset: each must beat Random's MAP and AUC by at least 0.1
// (there Random's MAP is 0.008, LSA's 0.20; PPMI-SVD's and GloVe's 0.25 and
// 0.29 with these settings). The grids are reduced to keep the test short
// under the race detector.
func TestModernBaselinesRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two baselines on real data")
	}
	train, valid, v := globalLoadSubset(t, "corel5k", "valid")
	ctx := context.Background()
	random, err := eval.Evaluate(ctx, NewRandom(v), eval.Extended, valid, &eval.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d train docs, %d terms, %d valid docs; random MAP %.4f AUC %.4f", len(train), v, len(valid), random.MAP, random.AUC)
	fit := map[string]func() (eval.Model, error){
		"ppmi-svd": func() (eval.Model, error) {
			return FitPPMISVD(ctx, train, v, PPMISVDOptions{Dims: []int{50}, Shifts: []float64{1}, TuneDocs: 300, Seed: 1})
		},
		"glove": func() (eval.Model, error) {
			return FitGloVe(ctx, train, v, GloVeOptions{Dims: []int{50}, TuneDocs: 300, Seed: 1})
		},
	}
	for _, name := range []string{"ppmi-svd", "glove"} {
		start := time.Now()
		m, err := fit[name]()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		took := time.Since(start)
		r, err := eval.Evaluate(ctx, m, eval.Extended, valid, &eval.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: fitted in %v (%v): valid extended MAP %.4f AUC %.4f P@2 %.4f", name, took, m.(eval.Tuned).Tuning()["train_p2"], r.MAP, r.AUC, r.PAtK[1])
		if r.MAP < random.MAP+0.1 || r.AUC < random.AUC+0.1 {
			t.Errorf("%s: MAP %.4f AUC %.4f, want both at least 0.1 above Random's %.4f, %.4f", name, r.MAP, r.AUC, random.MAP, random.AUC)
		}
	}
}

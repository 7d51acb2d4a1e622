package baselines

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/features"
)

func TestInfoTheoPlanted(t *testing.T) {
	const per = 5
	docs := globalPlanted(3, 200, per)
	m, err := FitInfoTheo(context.Background(), docs, 2*per, InfoTheoOptions{TuneDocs: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grid) != len(infoTheoKs)*len(infoTheoAlphas) {
		t.Errorf("grid: got %d points, want %d", len(m.Grid), len(infoTheoKs)*len(infoTheoAlphas))
	}
	for _, g := range m.Grid {
		if g.TrainP2 > m.TrainP2 {
			t.Errorf("chosen P@2 %v below grid point %+v", m.TrainP2, g)
		}
	}
	checkGroupsSeparated(t, m, per)
}

// TestSmoothHand checks the associates and the smoothed matrix on five
// documents over four terms, computed by hand in the comments.
func TestSmoothHand(t *testing.T) {
	docs := [][]int{{0, 1}, {0, 2}, {3}, {3}, {1}}
	// df = [2, 2, 1, 2] → idf = log(5/3), log(5/3), log(5/2), log(5/3).
	// T_01 = T_02 = idf_0·idf_j·1 > 0, T_12 = 0, T_03 = 0: term 0's associates
	// are 2 (T_02 = log(5/3)·log(5/2)) then 1 (log²(5/3)); term 1's only is 0.
	_, idf, tm := features.TermMatrix(docs, 4)
	assoc := features.TopAssociates(tm, 5)
	want := [][]int{{2, 1}, {0}, {0}, {}}
	for i := range want {
		if !slices.Equal(assoc[i], want[i]) {
			t.Errorf("assoc[%d]: got %v, want %v", i, assoc[i], want[i])
		}
	}
	// k = 1, α = 0.3: doc {0,1}: 0's top-1 is 2 (absent) → 0.3; 1's top-1 is 0
	// (present, stays 1). doc {1}: 1's top-1 is 0 → 0.3.
	s := features.Smooth(docs, 4, idf, assoc, 1, 0.3)
	wantRows := [][]float64{
		{idf[0], idf[1], 0.3 * idf[2], 0},
		{idf[0], 0, idf[2], 0},
		{0, 0, 0, idf[3]},
		{0, 0, 0, idf[3]},
		{0.3 * idf[0], idf[1], 0, 0},
	}
	for d, row := range wantRows {
		for j, w := range row {
			if got := s.At(d, j); math.Abs(got-w) > 1e-15 {
				t.Errorf("S[%d][%d]: got %v, want %v", d, j, got, w)
			}
		}
	}
}

// TestInfoTheoAlphaZeroIsPCA: with no smoothing InfoTheo's aggregation is T and
// its vectors must equal the PCA baseline's (an identity of the construction).
func TestInfoTheoAlphaZeroIsPCA(t *testing.T) {
	docs := globalPlanted(4, 120, 4)
	const v, dim = 8, 3
	_, idf, tm := features.TermMatrix(docs, v)
	it, err := fitInfoTheoAt(docs, v, idf, features.TopAssociates(tm, 1), 1, 0, dim, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FitPCA(context.Background(), docs, v, PCAOptions{Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Unit {
		if math.Abs(p.Unit[i]-it.Unit[i]) > 1e-9 {
			t.Fatalf("Unit[%d]: infotheo %v, pca %v", i, it.Unit[i], p.Unit[i])
		}
	}
}

// TestInfoTheoLargeRefit: on a vocabulary large enough for the randomized PCA,
// the grid compares subspaces without power iterations, and the returned model
// must be the chosen (k, α) refitted at full precision, keeping the tuned P@2.
func TestInfoTheoLargeRefit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a 15-point grid on a 1,200-term vocabulary")
	}
	const per = 600 // two planted groups: 1,200 terms > features.DefaultExactMaxTerms
	docs := globalPlanted(7, 1500, per)
	v := 2 * per
	m, err := FitInfoTheo(context.Background(), docs, v, InfoTheoOptions{Dim: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grid) != len(infoTheoKs)*len(infoTheoAlphas) {
		t.Fatalf("grid of %d points", len(m.Grid))
	}
	var tuned float64
	for _, g := range m.Grid {
		if g.K == m.K && g.Alpha == m.Alpha {
			tuned = g.TrainP2
		}
	}
	if m.TrainP2 != tuned {
		t.Fatalf("TrainP2 %v, grid has %v for k=%d α=%v", m.TrainP2, tuned, m.K, m.Alpha)
	}
	_, idf, tm := features.TermMatrix(docs, v)
	assoc := features.TopAssociates(tm, slices.Max(infoTheoKs))
	full, err := fitInfoTheoAt(docs, v, idf, assoc, m.K, m.Alpha, m.Dim, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	approx, err := fitInfoTheoAt(docs, v, idf, assoc, m.K, m.Alpha, m.Dim, 3, tunePowerIters)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Unit, full.Unit) {
		t.Fatal("returned vectors differ from the full-precision refit")
	}
	if slices.Equal(m.Unit, approx.Unit) {
		t.Fatal("the full-precision and the tuning fits coincide: the test cannot tell them apart")
	}
}

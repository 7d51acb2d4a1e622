package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

const tol = 1e-12

func closeTo(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The expected values below were computed by hand from the definitions in the
// paper (§6.1.3): P@K = hits(K)/K, AP = mean of P@1..P@|δ|, interpolated
// precision = max precision at recall ≥ ℓ, AUC = trapezoid rule with step 0.1.
func TestScoreRanks(t *testing.T) {
	const a, b = 2.0 / 3.0, 3.0 / 7.0
	tests := []struct {
		name  string
		ranks []int
		patk  [MaxK]float64
		ap    float64
		pr    [RecallLevels]float64
		auc   float64
	}{
		{
			name:  "single hit at top",
			ranks: []int{1},
			patk:  [MaxK]float64{1, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8, 1.0 / 9, 1.0 / 10},
			ap:    1,
			pr:    [RecallLevels]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
			auc:   1,
		},
		{
			// hits at 1 and 3: precisions at hits 1/1 and 2/3; recall 0.5 after the first.
			name:  "ranks 1 3",
			ranks: []int{1, 3},
			patk:  [MaxK]float64{1, 1.0 / 2, 2.0 / 3, 2.0 / 4, 2.0 / 5, 2.0 / 6, 2.0 / 7, 2.0 / 8, 2.0 / 9, 2.0 / 10},
			ap:    0.75, // (1 + 1/2)/2
			pr:    [RecallLevels]float64{1, 1, 1, 1, 1, 1, a, a, a, a, a},
			auc:   0.85, // 0.1·(6 + 5·2/3 − (1 + 2/3)/2)
		},
		{
			// hits at 2, 3, 7: precisions 1/2, 2/3, 3/7 at recalls 1/3, 2/3, 1.
			name:  "ranks 2 3 7",
			ranks: []int{2, 3, 7},
			patk:  [MaxK]float64{0, 1.0 / 2, 2.0 / 3, 2.0 / 4, 2.0 / 5, 2.0 / 6, 3.0 / 7, 3.0 / 8, 3.0 / 9, 3.0 / 10},
			ap:    7.0 / 18, // (0 + 1/2 + 2/3)/3
			pr:    [RecallLevels]float64{a, a, a, a, a, a, a, b, b, b, b},
			auc:   0.1 * (7*a + 4*b - (a+b)/2),
		},
		{
			// ten relevant terms at ranks 11..20: P@K = 0 for K ≤ 10, precision at
			// hit i is i/(10+i), increasing, so every level takes the last, 1/2.
			name:  "late hits",
			ranks: []int{11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
			ap:    0,
			pr:    [RecallLevels]float64{.5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5},
			auc:   0.5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Scores
			ScoreRanks(tt.ranks, &s)
			checkFigures(t, s.PAtK, s.AP, s.PR, AUC(&s.PR), tt.patk, tt.ap, tt.pr, tt.auc)
		})
	}
}

// TestScoreRanksBruteForce compares ScoreRanks with a direct walk down the ranked
// list that recomputes precision and recall at every K (an independent
// implementation of the same definitions).
func TestScoreRanksBruteForce(t *testing.T) {
	cases := [][]int{{1, 2, 3}, {4}, {1, 5, 6, 30}, {2, 4, 6, 8, 10, 12, 14}, {3, 9, 10, 11, 40, 41, 42, 43, 44, 45, 46, 99}}
	for _, ranks := range cases {
		var s Scores
		ScoreRanks(ranks, &s)
		n := len(ranks)
		last := ranks[n-1]
		rel := make(map[int]bool)
		for _, r := range ranks {
			rel[r] = true
		}
		prec := make([]float64, last+1)
		rec := make([]float64, last+1)
		hits := 0
		for k := 1; k <= last; k++ {
			if rel[k] {
				hits++
			}
			prec[k] = float64(hits) / float64(k)
			rec[k] = float64(hits) / float64(n)
		}
		ap := 0.0
		for k := 1; k <= n; k++ {
			ap += prec[k]
		}
		ap /= float64(n)
		if !closeTo(s.AP, ap, tol) {
			t.Errorf("ranks %v AP: got %v, want %v", ranks, s.AP, ap)
		}
		for l := 0; l < RecallLevels; l++ {
			want := 0.0
			for k := 1; k <= last; k++ {
				if rec[k] >= float64(l)/10-1e-12 && prec[k] > want {
					want = prec[k]
				}
			}
			if !closeTo(s.PR[l], want, tol) {
				t.Errorf("ranks %v PR[%d]: got %v, want %v", ranks, l, s.PR[l], want)
			}
		}
	}
}

func TestRanksTo(t *testing.T) {
	nan := math.NaN()
	// Order by distance then index, NaN last: 1 (0.1), 4 (0.2), 0, 2, 5 (0.5), 3, 6 (NaN).
	dist := []float64{0.5, 0.1, 0.5, nan, 0.2, 0.5, nan}
	rel := []int{2, 0, 3, 1, 6, 5, 4}
	want := []int{4, 3, 6, 1, 7, 5, 2}
	got := make([]int, len(rel))
	RanksTo(got, dist, rel)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rank of term %d: got %d, want %d", rel[i], got[i], want[i])
		}
	}
}

func TestAUCBounds(t *testing.T) {
	zero := [RecallLevels]float64{}
	if got := AUC(&zero); got != 0 {
		t.Errorf("AUC of zero curve: got %v, want 0", got)
	}
}

// TestKernelRanksTo checks the counting kernel of RanksTo against the Go loops
// on lists with ties, NaNs, infinities and signed zeros, of lengths around
// its blocks of eight.
func TestKernelRanksTo(t *testing.T) {
	if !useCountCmp {
		t.Skip("no AVX2: RanksTo counts in Go")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	values := []float64{0, math.Copysign(0, -1), 0.25, 0.5, 1, math.Inf(1), math.Inf(-1), math.NaN()}
	for n := 1; n <= 40; n++ {
		for range 20 {
			dist := make([]float64, n)
			for j := range dist {
				if rng.IntN(2) == 0 {
					dist[j] = values[rng.IntN(len(values))]
				} else {
					dist[j] = rng.Float64()
				}
			}
			rel := rng.Perm(n)[:1+rng.IntN(n)]
			got, want := make([]int, len(rel)), make([]int, len(rel))
			RanksTo(got, dist, rel)
			useCountCmp = false
			RanksTo(want, dist, rel)
			useCountCmp = true
			if !slices.Equal(got, want) {
				t.Fatalf("dist %v rel %v: ranks %v, Go loops %v", dist, rel, got, want)
			}
		}
	}
}

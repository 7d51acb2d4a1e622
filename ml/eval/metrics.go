package eval

import (
	"fmt"
	"math"
	"slices"
)

// MaxK is the largest prime level K of the reported P@K (K = 1..MaxK, paper §6.1.3).
const MaxK = 10

// RecallLevels is the number of standard recall levels ℓ = 0.0, 0.1, ..., 1.0 (Eq. 12).
const RecallLevels = 11

// Interpolation names the precision-recall interpolation used by ScoreRanks; reports
// carry it so that a reader knows how Precision(ℓ|x) was obtained.
const Interpolation = "interpolated: Precision(l|x) = max P@K over the K with Recall(K|x) at least l " +
	"(Manning et al. 2008, §8.4); AUC by the trapezoid rule over the 11 levels"

// Scores holds the priming accuracy of one ranked list x (one query in the priming
// protocol, one document in the extended protocol) against its ground truth.
type Scores struct {
	// PAtK[K-1] = P@K(x) = |Prime_K(x) ∩ δ| / K, K = 1..MaxK (paper §6.1.3, the
	// summand of Eq. 10). K may exceed |δ|, as in the paper.
	PAtK [MaxK]float64

	// AP(x) = Σ_{K=1}^{|δ|} P@K(x) / |δ|, the paper's average precision (the summand
	// of Eq. 11). Note that this is the mean of P@K over the first |δ| prime levels,
	// as the paper defines it, not the IR average precision over relevant ranks.
	AP float64

	// PR[l] = Precision(ℓ|x) at recall level ℓ = l/10 (the summand of Eq. 12), with
	// the standard IR interpolation: the maximum precision P@K over all prime levels
	// K whose recall |Prime_K(x) ∩ δ|/|δ| is at least ℓ (Manning et al. 2008, §8.4).
	// The paper's literal definition (P@K at the K where recall equals ℓ exactly) is
	// undefined for most ℓ when |δ| is not a multiple of 10, hence the interpolation.
	PR [RecallLevels]float64
}

// AUC returns the area under the 11-point precision-recall curve pr (Eq. 12) by the
// trapezoid rule with step 0.1: AUC = 0.1·(Σ_l pr[l] − (pr[0]+pr[10])/2). It lies in
// [0, 1]. Because it is linear in pr, the AUC of the mean curve equals the mean AUC.
func AUC(pr *[RecallLevels]float64) float64 {
	s := 0.0
	for _, p := range pr {
		s += p
	}
	return 0.1 * (s - 0.5*(pr[0]+pr[RecallLevels-1]))
}

// RanksTo fills ranks[i] with the 1-based rank of term rel[i] in the list of all
// len(dist) vocabulary terms ordered by increasing dist (Eq. 8 and 9), ties broken by
// increasing term index, NaN ordered after every number (as +Inf, then by index).
// It counts instead of sorting: O(len(dist)·len(rel)) time, no allocation.
//
// It panics if len(ranks) != len(rel) or a term of rel is outside [0, len(dist)).
func RanksTo(ranks []int, dist []float64, rel []int) {
	if len(ranks) != len(rel) {
		panic("eval: RanksTo: len(ranks) != len(rel)")
	}
	for i, r := range rel {
		if r < 0 || r >= len(dist) {
			panic(fmt.Sprintf("eval: RanksTo: term %d outside vocabulary of %d", r, len(dist)))
		}
		ranks[i] = 1
	}
	for i, r := range rel {
		dr := dist[r]
		n := 0
		if math.IsNaN(dr) {
			// Every number precedes r; NaNs precede it when their index is lower.
			for j, d := range dist {
				if !math.IsNaN(d) || j < r {
					n++
				}
			}
		} else if useCountCmp {
			// The same counts, four comparisons at a time.
			n = countCmp(dist[:r], dr, false) + countCmp(dist[r+1:], dr, true)
		} else {
			for _, d := range dist[:r] {
				if d <= dr { // d < dr, or a tie won by the lower index j < r
					n++
				}
			}
			for _, d := range dist[r+1:] {
				if d < dr {
					n++
				}
			}
		}
		ranks[i] += n
	}
}

// ScoreRanks fills s from the 1-based ranks of the |δ| = len(ranks) ground-truth
// terms in a ranked list. ranks must be distinct, positive and sorted in increasing
// order (slices.Sort after RanksTo). It panics if ranks is empty.
//
// With r_1 < r_2 < ... < r_n the sorted ranks and hits(K) = #{i : r_i ≤ K}:
//
//	P@K = hits(K)/K                               (Eq. 10, per list)
//	AP  = Σ_{K=1}^{n} hits(K)/K / n               (Eq. 11, per list)
//	PR[l] = max_{i : i/n ≥ l/10} i/r_i            (Eq. 12, interpolated)
//
// The interpolated precision only needs the ranks of the hits: between two hits
// the precision falls, so its maximum over K with recall ≥ ℓ is attained at a hit.
func ScoreRanks(ranks []int, s *Scores) {
	n := len(ranks)
	if n == 0 {
		panic("eval: ScoreRanks: no ground-truth term")
	}
	hits := 0
	for k := 1; k <= MaxK; k++ {
		for hits < n && ranks[hits] <= k {
			hits++
		}
		s.PAtK[k-1] = float64(hits) / float64(k)
	}
	hits = 0
	ap := 0.0
	for k := 1; k <= n; k++ {
		for hits < n && ranks[hits] <= k {
			hits++
		}
		ap += float64(hits) / float64(k)
	}
	s.AP = ap / float64(n)

	// Running maximum from the last hit backwards: best[i] = max_{j ≥ i} j/r_j.
	// Level l needs hits i with 10·i ≥ l·n (exact in integers).
	best := 0.0
	l := RecallLevels - 1
	for i := n; i >= 1; i-- {
		if p := float64(i) / float64(ranks[i-1]); p > best {
			best = p
		}
		// Levels l with i-1 < l·n/10 ≤ i are served by hits i..n.
		for l >= 0 && 10*(i-1) < l*n {
			s.PR[l] = best
			l--
		}
	}
	for ; l >= 0; l-- {
		s.PR[l] = best
	}
}

// ScoreList ranks the ground truth rel in dist and scores the list: RanksTo, sort,
// ScoreRanks. ranks is a workspace of length len(rel).
func ScoreList(dist []float64, rel []int, ranks []int, s *Scores) {
	RanksTo(ranks, dist, rel)
	slices.Sort(ranks)
	ScoreRanks(ranks, s)
}

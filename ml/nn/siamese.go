package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// PairType is the situation of a Siamese training pair (§4.3.3).
type PairType uint8

const (
	// I1: both members are positive examples.
	I1 PairType = 1 + iota
	// I2: both members are negative examples.
	I2
	// I3: one member is positive, the other negative.
	I3
)

// SiameseConfig holds the parameters of Eq. 6. Zero values mean the defaults.
type SiameseConfig struct {
	// Beta is the scale β of the CE space; default √dim(CE) (§5.2).
	Beta float64
	// Rho is the importance ρ of I2 pairs; default 0.5 (§5.2).
	Rho float64

	// Group > 1 selects the ranking form of the distance loss instead of Eq. 6
	// (taglens's extension, GroupLoss): the pairs come in groups of Group
	// consecutive rows that share their first member, the group's first pair
	// being the positive one. Beta, Rho, the pair types and D are then unused.
	Group int
	// Temperature T of GroupLoss; default 1.
	Temperature float64
	// Anchors A ≥ 2 selects the set form of GroupLoss (taglens's extension):
	// a group's Group rows are Group/A candidates of A rows each, candidate
	// k's rows pairing it with the A anchors, and a candidate scores by its
	// nearest anchor, as Eq. 9 does. 0 or 1: one anchor, the rows as above.
	Anchors int
}

// ContextSimilarity returns D = exp(-λ/2 · KL(l1, l2)) of §4.3.3 with the symmetric
// divergence KL(l1, l2) = Σ_c (l1[c] - l2[c]) log(l1[c]/l2[c]) of two topic
// proportion vectors. Entries are floored at 1e-12 before the logarithm so that a
// zero proportion gives a large finite divergence. It panics if the lengths differ.
func ContextSimilarity(l1, l2 []float64, lambda float64) float64 {
	if len(l1) != len(l2) {
		panic(fmt.Sprintf("nn: context vectors of lengths %d and %d", len(l1), len(l2)))
	}
	var kl float64
	for c := range l1 {
		a, b := math.Max(l1[c], 1e-12), math.Max(l2[c], 1e-12)
		kl += (a - b) * math.Log(a/b)
	}
	return math.Exp(-lambda / 2 * kl)
}

// SiameseLoss returns the Siamese distance loss of Eq. 6 averaged over the N pairs of
// a batch (the 1/K of Appendix A.3; Eq. 6 itself writes the plain sum, a constant
// factor absorbed by α of Eq. 7):
//
//	L_S = 1/N Σ_n [ I1 (E - β(1-D))² + I2 ρ (E - β(1-D))² + I3 D (E - β)² ],
//	E = ‖ce1_n - ce2_n‖₂,
//
// where ce1, ce2 are N×dim(CE) (row n = CE of the pair's two members), types[n] is
// the pair's situation and d[n] its context similarity D (ContextSimilarity, computed
// by the caller because it depends only on the inputs). β(1-D) and D do not depend on
// the network.
//
// If g1 and g2 are not nil they receive ∂L_S/∂ce1 and ∂L_S/∂ce2 (overwritten):
//
//	∂L_S/∂ce1_n = 1/N · 2 w (E - t) (ce1_n - ce2_n)/E = -∂L_S/∂ce2_n,
//
// with (w, t) = (1, β(1-D)), (ρ, β(1-D)), (D, β) for I1, I2, I3. At E = 0 the
// direction (ce1-ce2)/E is undefined and taken as 0. These are the true gradients of
// the shared parameters' two paths; Appendix A.3's averaging of the two subnetworks'
// derivatives is the same up to the factor ½ absorbed by the learning rate.
//
// It panics on shape mismatches or an unknown pair type.
func SiameseLoss(ce1, ce2 *mat.Dense, types []PairType, d []float64, cfg SiameseConfig, g1, g2 *mat.Dense) float64 {
	N, _ := ce1.Dims()
	return siameseLoss(ce1, ce2, types, d, cfg, g1, g2, N, 1)
}

// siameseLoss is SiameseLoss normalised by totalN pairs, with the gradients scaled
// by scale (α of Eq. 7).
func siameseLoss(ce1, ce2 *mat.Dense, types []PairType, d []float64, cfg SiameseConfig, g1, g2 *mat.Dense, totalN int, scale float64) float64 {
	if cfg.Group > 1 {
		return groupLoss(ce1, ce2, cfg, g1, g2, totalN, scale)
	}
	N, dim := ce1.Dims()
	if r, c := ce2.Dims(); r != N || c != dim {
		panic(fmt.Sprintf("nn: CE matrices %d×%d and %d×%d", N, dim, r, c))
	}
	if len(types) != N || len(d) != N {
		panic(fmt.Sprintf("nn: %d pairs with %d types and %d similarities", N, len(types), len(d)))
	}
	if (g1 == nil) != (g2 == nil) {
		panic("nn: SiameseLoss needs both gradients or neither")
	}
	if g1 != nil {
		for _, g := range []*mat.Dense{g1, g2} {
			if r, c := g.Dims(); r != N || c != dim {
				panic(fmt.Sprintf("nn: gradient is %d×%d, want %d×%d", r, c, N, dim))
			}
		}
	}
	beta := cfg.Beta
	if beta == 0 {
		beta = math.Sqrt(float64(dim))
	}
	rho := cfg.Rho
	if rho == 0 {
		rho = 0.5
	}
	invN := 1 / float64(totalN)
	var loss float64
	for n := 0; n < N; n++ {
		a, b := ce1.RawRowView(n), ce2.RawRowView(n)
		var e2 float64
		for i, v := range a {
			t := v - b[i]
			e2 += t * t
		}
		E := math.Sqrt(e2)
		var w, t float64
		switch types[n] {
		case I1:
			w, t = 1, beta*(1-d[n])
		case I2:
			w, t = rho, beta*(1-d[n])
		case I3:
			w, t = d[n], beta
		default:
			panic(fmt.Sprintf("nn: unknown pair type %d", types[n]))
		}
		loss += w * (E - t) * (E - t)
		if g1 != nil {
			ga, gb := g1.RawRowView(n), g2.RawRowView(n)
			var s float64
			if E > 0 {
				s = scale * invN * 2 * w * (E - t) / E
			}
			for i, v := range a {
				q := s * (v - b[i])
				ga[i] = q
				gb[i] = -q
			}
		}
	}
	return loss * invN
}

// GroupLoss returns the ranking form of the distance loss (taglens's extension
// of Eq. 6, an InfoNCE loss over squared CE distances; Oord, Li & Vinyals 2018)
// averaged over the groups of a batch. Rows come in groups of G = cfg.Group
// consecutive pairs (ce1_r, ce2_r), C = G/A candidates of A = cfg.Anchors rows
// each (A = 1 unless set), the group's first candidate being its positive.
// With E_r² = ‖ce1_r − ce2_r‖² and candidate k's score its nearest row,
//
//	s_k = −min_{a < A} E²_{kA+a} / T,
//	L = 1/(N/G) Σ_groups [ −s_0 + log Σ_k exp(s_k) ],
//
// so the loss falls as the positive's distance falls below the others'. This is
// what Eq. 9 ranks by: a term scores by its nearest query term of δ in
// CE(·|δ). With one anchor a group holds an anchor, another term of its
// document and terms outside it; with A anchors, A terms of a document paired
// with each candidate (Config.RankingAnchors). Gradients (overwritten; zero on
// the rows that are not a candidate's nearest, the first on ties):
//
//	∂L/∂ce1_r = 1/(N/G) · (p_k − [k = 0]) · (−2/T) (ce1_r − ce2_r) = −∂L/∂ce2_r,
//
// r candidate k's nearest row, p the softmax of s over the group. It panics
// when N is not a multiple of G or G not a multiple of A.
func GroupLoss(ce1, ce2 *mat.Dense, cfg SiameseConfig, g1, g2 *mat.Dense) float64 {
	N, _ := ce1.Dims()
	return groupLoss(ce1, ce2, cfg, g1, g2, N, 1)
}

// groupLoss is GroupLoss normalised by the groups of totalN pairs, with the
// gradients scaled by scale.
func groupLoss(ce1, ce2 *mat.Dense, cfg SiameseConfig, g1, g2 *mat.Dense, totalN int, scale float64) float64 {
	N, dim := ce1.Dims()
	G, A := cfg.Group, max(cfg.Anchors, 1)
	if r, c := ce2.Dims(); r != N || c != dim {
		panic(fmt.Sprintf("nn: CE matrices %d×%d and %d×%d", N, dim, r, c))
	}
	if N%G != 0 || totalN%G != 0 || G%A != 0 {
		panic(fmt.Sprintf("nn: %d pairs (of %d) are not groups of %d with %d anchors", N, totalN, G, A))
	}
	if (g1 == nil) != (g2 == nil) {
		panic("nn: GroupLoss needs both gradients or neither")
	}
	T := cfg.Temperature
	if T == 0 {
		T = 1
	}
	C := G / A
	inv := float64(G) / float64(totalN)
	s := make([]float64, C)
	near := make([]int, C) // each candidate's nearest row within the group
	var loss float64
	for g := 0; g < N; g += G {
		for k := range C {
			for a := range A {
				r := k*A + a
				x, y := ce1.RawRowView(g+r), ce2.RawRowView(g+r)
				var e2 float64
				for i, v := range x {
					t := v - y[i]
					e2 += t * t
				}
				if a == 0 || -e2/T > s[k] {
					s[k], near[k] = -e2/T, r
				}
			}
		}
		l, mx, z := softmaxFirst(s)
		loss += l
		if g1 == nil {
			continue
		}
		if A > 1 {
			for r := range G {
				clear(g1.RawRowView(g + r))
				clear(g2.RawRowView(g + r))
			}
		}
		for k := range C {
			p := math.Exp(s[k]-mx) / z
			if k == 0 {
				p--
			}
			c := scale * inv * p * (-2 / T)
			r := g + near[k]
			x, y := ce1.RawRowView(r), ce2.RawRowView(r)
			ga, gb := g1.RawRowView(r), g2.RawRowView(r)
			for i, v := range x {
				q := c * (v - y[i])
				ga[i] = q
				gb[i] = -q
			}
		}
	}
	return loss * inv
}

package nn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ColumnSample is the set of output units scored by the sampled prediction loss
// (SampledPredictionLoss) for one batch: a uniform sample U of M distinct units
// (Cols[:M]) followed by every listed target unit of the batch that is not in U
// (Cols[M:]). Its cost is O(M + Σ_k |Idx_k|), independent of |Γ| except for a
// position table of |Γ| int32 allocated once.
type ColumnSample struct {
	Cols []int
	M    int
	NOut int

	pos []int32     // pos[j] = index of unit j in Cols, or -1
	own lossScratch // scratch of SampledPredictionLoss
}

// lossScratch is the scratch space of sampledPredictionLoss.
type lossScratch struct {
	// extra holds one row's listed columns past the uniform sample.
	extra []int
	// arg, coef and lg hold one row's log arguments 1 ± ŷ, their loss weights and
	// their logarithms (sampledPredictionLoss takes the logs in one batch).
	arg, coef, lg []float64
}

// Draw fills s for a batch: U = m distinct units drawn uniformly without replacement
// from [0, nOut) with rng (Floyd's algorithm; all units when m ≥ nOut), then the
// listed units of every target. It panics if m < 1 or a target index is out of range.
func (s *ColumnSample) Draw(targets []Target, nOut, m int, rng *rand.Rand) {
	if m < 1 {
		panic("nn: ColumnSample needs m ≥ 1")
	}
	m = min(m, nOut)
	if len(s.pos) != nOut {
		s.pos = make([]int32, nOut)
		for j := range s.pos {
			s.pos[j] = -1
		}
	} else {
		for _, j := range s.Cols {
			s.pos[j] = -1
		}
	}
	s.Cols = s.Cols[:0]
	s.M, s.NOut = m, nOut
	add := func(j int) {
		if s.pos[j] < 0 {
			s.pos[j] = int32(len(s.Cols))
			s.Cols = append(s.Cols, j)
		}
	}
	if m == nOut {
		for j := 0; j < nOut; j++ {
			add(j)
		}
	} else {
		// Floyd: for i = nOut-m .. nOut-1 draw t in [0, i]; take t unless taken, else i.
		for i := nOut - m; i < nOut; i++ {
			t := rng.IntN(i + 1)
			if s.pos[t] >= 0 {
				t = i
			}
			add(t)
		}
	}
	for _, tg := range targets {
		for _, j := range tg.Idx {
			if j < 0 || j >= nOut {
				panic(fmt.Sprintf("nn: target index %d outside [0,%d)", j, nOut))
			}
			add(j)
		}
	}
}

// SampledPredictionLoss is an unbiased estimate of Eq. 5 whose cost per example is
// O(|Cols|) instead of O(|Γ|) (issue 7: large vocabularies). yhat is K×len(s.Cols):
// column c holds ŷ_k[s.Cols[c]] (MLP.ForwardCols with s.Cols). Write ℓ_k[j] for the
// Eq. 5 term of unit j (-κ_k log(1+ŷ)/(K|Γ|) if y_k[j] = +1, -(1-κ_k) log(1-ŷ)/(K|Γ|)
// if y_k[j] = -1; κ_k exact, from Target.Kappa). The listed units Idx_k (the minority
// class) are all in Cols and scored exactly; the unlisted ones are estimated from the
// uniform sample U (|U| = M, each unit included with probability M/|Γ|) by
// Horvitz-Thompson weighting:
//
//	L̂ = Σ_k [ Σ_{j ∈ Idx_k} ℓ_k[j] + |Γ|/M · Σ_{j ∈ U \ Idx_k} ℓ_k[j] ],
//
// so E[L̂] = L_P and, since L̂ is linear in the ℓ_k[j], E[∂L̂/∂ŷ] = ∂L_P/∂ŷ (tested
// numerically). Listed units of other examples that are in Cols but neither listed for
// k nor in U get weight 0 for k. If grad is not nil it receives ∂L̂/∂ŷ (K×len(Cols)).
// It uses scratch space in s: concurrent calls need distinct samples (Trainer does
// not share it).
func SampledPredictionLoss(yhat *mat.Dense, s *ColumnSample, targets []Target, grad *mat.Dense) float64 {
	K, _ := yhat.Dims()
	return sampledPredictionLoss(yhat, s, targets, grad, K, &s.own)
}

func sampledPredictionLoss(yhat *mat.Dense, s *ColumnSample, targets []Target, grad *mat.Dense, totalK int, st *lossScratch) float64 {
	K, nc := yhat.Dims()
	if nc != len(s.Cols) {
		panic(fmt.Sprintf("nn: sampled output has %d columns, sample has %d", nc, len(s.Cols)))
	}
	if len(targets) != K {
		panic(fmt.Sprintf("nn: %d targets for %d rows", len(targets), K))
	}
	if grad != nil {
		if r, c := grad.Dims(); r != K || c != nc {
			panic(fmt.Sprintf("nn: gradient is %d×%d, want %d×%d", r, c, K, nc))
		}
	}
	G, M := s.NOut, s.M
	inv := 1 / (float64(totalK) * float64(G))
	scale := float64(G) / float64(M)
	var loss float64
	for k := 0; k < K; k++ {
		t := targets[k]
		wPos, wNeg := t.Weights(G)
		wPos, wNeg = wPos*inv, wNeg*inv
		row := yhat.RawRowView(k)
		var grow []float64
		if grad != nil {
			grow = grad.RawRowView(k)
		}
		// The columns of U first, all as unlisted units (y = +1 exactly when the
		// target is a complement), weighted |Γ|/M; then the listed units among
		// them are scored again in place with weight 1. A term's log argument,
		// loss weight and gradient are 1 + ŷ, w·wPos and −w·wPos/(1 + ŷ) when
		// y = +1, and 1 − ŷ, w·wNeg and w·wNeg/(1 − ŷ) when y = −1.
		arg := slices.Grow(st.arg[:0], nc)[:M]
		coef := slices.Grow(st.coef[:0], nc)[:M]
		var gU []float64
		if grow != nil {
			gU = grow[:M]
		}
		if t.Complement {
			scoreUnits(arg, coef, gU, row[:M], true, scale*wPos, -scale*wPos)
		} else {
			scoreUnits(arg, coef, gU, row[:M], false, scale*wNeg, scale*wNeg)
		}
		// Listed units: y = +1 unless the target is a complement.
		up := !t.Complement
		cf, gn := wNeg, wNeg
		if up {
			cf, gn = wPos, -wPos
		}
		extra := st.extra[:0]
		for _, j := range t.Idx {
			p := int(s.pos[j])
			if p < 0 {
				panic(fmt.Sprintf("nn: target unit %d not in the column sample", j))
			}
			if p >= M {
				extra = append(extra, p)
				continue
			}
			a := logArg(row[p], up)
			arg[p], coef[p] = a, cf
			if grow != nil {
				grow[p] = gn / a
			}
		}
		// Columns past U hold the listed units of the batch that U missed: those
		// of this example count with weight 1, in column order, the others not.
		if grow != nil {
			clear(grow[M:])
		}
		slices.Sort(extra)
		for i, p := range extra {
			if i > 0 && p == extra[i-1] {
				continue
			}
			a := logArg(row[p], up)
			arg, coef = append(arg, a), append(coef, cf)
			if grow != nil {
				grow[p] = gn / a
			}
		}
		st.extra = extra
		// loss −= w·wPos·log(1+ŷ) or w·wNeg·log(1−ŷ), column by column as above.
		st.lg = slices.Grow(st.lg[:0], len(arg))[:len(arg)]
		logTo(st.lg, arg)
		for i, l := range st.lg {
			loss -= coef[i] * l
		}
		st.arg, st.coef = arg, coef
	}
	return loss
}

// logArg is the log argument of Eq. 5's term of an output ŷ (clamped by clampY):
// 1 + ŷ for a present entry (up), 1 − ŷ for an absent one.
func logArg(v float64, up bool) float64 {
	v = clampY(v)
	if up {
		return 1 + v
	}
	return 1 - v
}

// scoreUnits writes the log arguments (logArg), the loss weight cf and, when g
// is not nil, the gradients gn/arg of the outputs row, all of one class (up).
func scoreUnits(arg, coef, g, row []float64, up bool, cf, gn float64) {
	arg, coef = arg[:len(row)], coef[:len(row)]
	if up {
		for c, v := range row {
			arg[c] = 1 + clampY(v)
		}
	} else {
		for c, v := range row {
			arg[c] = 1 - clampY(v)
		}
	}
	for c := range coef {
		coef[c] = cf
	}
	if g != nil {
		g = g[:len(row)]
		for c, a := range arg {
			g[c] = gn / a
		}
	}
}

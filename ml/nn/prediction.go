package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Eps is the clamp of the prediction loss: ŷ is clamped to [-1+Eps, 1-Eps] inside the
// logarithms and divisions of Eq. 5 so that saturated tanh outputs (|ŷ| = 1 in
// floating point once |a| > 19) give a finite loss and gradient.
const Eps = 1e-12

// Target is the {-1,+1} target vector y_k of one example over the |Γ| output units,
// given sparsely (§4.3.1, design.md, decision 5). Idx holds distinct unit indices in
// [0, |Γ|), in any order.
//   - Complement false (positive example, y = BoW(δ)): y[j] = +1 for j in Idx and -1
//     elsewhere.
//   - Complement true (negative example, y = complement of BoW(δ)): y[j] = -1 for j
//     in Idx and +1 elsewhere.
//
// The listed entries are the minority class in practice (a document has few terms).
type Target struct {
	Idx        []int
	Complement bool
	// Balanced swaps the class weights of Eq. 5 (see Weights).
	Balanced bool
}

// Weights returns the weights of the present (y = +1) and absent (y = −1)
// entries of Eq. 5 for a target over nOut units, before the 1/(K|Γ|)
// normalisation: (κ, 1−κ) as Eq. 5 is printed, or (1−κ, κ) when Balanced.
//
// Balanced is the re-weighting the paper describes in words (§4.3.2: "we
// re-weight the cost of a false negative error ... to avoid a trivial solution
// where all terms are predicted to be absent"): the rare present entries of a
// positive example get weight 1−κ ≈ 1 and the many absent ones κ ≈ |δ|/|Γ|, so
// both classes carry the same total weight |Γ|κ(1−κ) per example. The printed
// formula does the opposite: it multiplies the present entries by κ (≈ 0.025 on
// mtg-jamendo), so a positive example's BoW content carries 1/40 of the gradient
// of its absent entries and the network first learns only "positive or
// negative example" (all −1 or all +1).
func (t Target) Weights(nOut int) (present, absent float64) {
	k := t.Kappa(nOut)
	if t.Balanced {
		return 1 - k, k
	}
	return k, 1 - k
}

// Kappa returns κ_k = |{j : y_k[j] = +1}| / |Γ| for a target over nOut units (Eq. 5).
func (t Target) Kappa(nOut int) float64 {
	pos := len(t.Idx)
	if t.Complement {
		pos = nOut - len(t.Idx)
	}
	return float64(pos) / float64(nOut)
}

// Dense writes the dense {-1,+1} vector of t into dst (len |Γ|).
func (t Target) Dense(dst []float64) {
	listed, other := 1.0, -1.0
	if t.Complement {
		listed, other = -1, 1
	}
	for j := range dst {
		dst[j] = other
	}
	for _, j := range t.Idx {
		dst[j] = listed
	}
}

// PredictionLoss returns the κ-weighted prediction loss of Eq. 5 for a batch,
//
//	L_P = -1/(2K|Γ|) Σ_k Σ_j [ κ_k (1+y_k[j]) log(1+ŷ_k[j]) + (1-κ_k)(1-y_k[j]) log(1-ŷ_k[j]) ],
//
// with K = the number of rows of yhat (the batch: the mean over the batch estimates
// the paper's mean over the data set), |Γ| its number of columns, targets[k] the
// target y_k and κ_k = Target.Kappa. Since y ∈ {-1,+1}, (1±y) ∈ {0, 2}: a present
// term contributes -κ_k log(1+ŷ)/(K|Γ|), an absent one -(1-κ_k) log(1-ŷ)/(K|Γ|). ŷ
// is clamped to [-1+Eps, 1-Eps] (Eps).
//
// If grad is not nil it receives ∂L_P/∂ŷ (K×|Γ|, overwritten; Eq. A.2):
//
//	∂L_P/∂ŷ_k[j] = -κ_k/(K|Γ|(1+ŷ))  if y_k[j] = +1,   (1-κ_k)/(K|Γ|(1-ŷ))  if y_k[j] = -1.
//
// It panics if len(targets) differs from the number of rows, a target index is out
// of range or grad has the wrong shape.
func PredictionLoss(yhat *mat.Dense, targets []Target, grad *mat.Dense) float64 {
	K, _ := yhat.Dims()
	return predictionLoss(yhat, targets, grad, K)
}

// predictionLoss is PredictionLoss normalised by totalK instead of the number of rows
// (a part of a larger batch).
func predictionLoss(yhat *mat.Dense, targets []Target, grad *mat.Dense, totalK int) float64 {
	return predictionLossFold(yhat, targets, grad, totalK, false)
}

// predictionLossFold is predictionLoss; with fold it writes into grad, instead of
// ∂L_P/∂ŷ, the gradient with respect to the output pre-activation a_H (ŷ = tanh(a_H)):
//
//	δ_H = ∂L_P/∂ŷ ⊙ (1 - ŷ²),
//
// the first step of back-propagation (MLP.backward with topDelta). For an unclamped
// ŷ (|ŷ| ≤ 1-Eps) the products of the default class reduce to
//
//	-wPos/(1+ŷ)·(1-ŷ²) = -wPos(1-ŷ),   wNeg/(1-ŷ)·(1-ŷ²) = wNeg(1+ŷ),
//
// which need no division; clamped and listed entries use the product as written.
func predictionLossFold(yhat *mat.Dense, targets []Target, grad *mat.Dense, totalK int, fold bool) float64 {
	K, G := yhat.Dims()
	if len(targets) != K {
		panic(fmt.Sprintf("nn: %d targets for %d rows", len(targets), K))
	}
	if grad != nil {
		if r, c := grad.Dims(); r != K || c != G {
			panic(fmt.Sprintf("nn: gradient is %d×%d, want %d×%d", r, c, K, G))
		}
	}
	inv := 1 / (float64(totalK) * float64(G))
	var loss float64
	for k := 0; k < K; k++ {
		t := targets[k]
		row := yhat.RawRowView(k)
		var grow []float64
		if grad != nil {
			grow = grad.RawRowView(k)
		}
		// Weights of the "present" (y=+1) and "absent" (y=-1) cases.
		wPos, wNeg := t.Weights(G)
		wPos, wNeg = wPos*inv, wNeg*inv
		// Default class of the unlisted entries.
		defPos := t.Complement
		var sum float64 // Σ of the default class's log terms over all j
		sgn, w := -1.0, wNeg
		if defPos {
			sgn, w = 1, wPos
		}
		switch {
		case fold && grow != nil:
			// δ = ∂L_P/∂ŷ ⊙ (1-ŷ²) of the default class, whose ∂L_P/∂ŷ is -sgn·w/(1+sgn·ŷ).
			sum = -w * foldRow(row, grow, sgn, -sgn*w)
		case grow == nil:
			sum = -w * sumLogProd(row, sgn)
		default:
			sum = -w * sumLogProd(row, sgn)
			for j, v := range row {
				grow[j] = -sgn * w / (1 + sgn*clampY(v))
			}
		}
		for _, j := range t.Idx {
			if j < 0 || j >= G {
				panic(fmt.Sprintf("nn: target index %d outside [0,%d)", j, G))
			}
			v := clampY(row[j])
			if defPos {
				// listed entry is absent (y = -1)
				sum += wPos*math.Log(1+v) - wNeg*math.Log(1-v)
				if grow != nil {
					grow[j] = wNeg / (1 - v)
				}
			} else {
				sum += wNeg*math.Log(1-v) - wPos*math.Log(1+v)
				if grow != nil {
					grow[j] = -wPos / (1 + v)
				}
			}
			if grow != nil && fold {
				grow[j] *= 1 - row[j]*row[j]
			}
		}
		loss += sum
	}
	return loss
}

func clampY(v float64) float64 {
	if v > 1-Eps {
		return 1 - Eps
	}
	if v < -1+Eps {
		return -1 + Eps
	}
	return v
}

// foldRow sets, for the default class of an Eq. 5 row (sgn = +1: y = +1 with
// ∂L_P/∂ŷ = sw/(1+ŷ), sw = -wPos; sgn = -1: y = -1 with ∂L_P/∂ŷ = sw/(1-ŷ), sw =
// wNeg), g[j] = ∂L_P/∂ŷ_j·(1-ŷ_j²), which is sw·(1 - sgn·ŷ_j) when ŷ_j is not
// clamped, and returns Σ_j log(1 + sgn·clamp(ŷ_j)) (sumLogProd). With the assembly
// kernels the first len(v) &^ 3 entries go through foldRowAVX2 (same δ bits, the
// log-sum from products in 4 lanes).
func foldRow(v, g []float64, sgn, sw float64) float64 {
	g = g[:len(v)]
	n4 := len(v) &^ 3
	if !useAsm || n4 == 0 {
		foldRowGo(v, g, sgn, sw)
		return sumLogProd(v, sgn)
	}
	var st foldState
	foldRowAVX2(&v[0], &g[0], n4, sgn, sw, &st)
	foldRowGo(v[n4:], g[n4:], sgn, sw)
	if st.nan != 0 {
		return math.NaN()
	}
	// The kernel renormalised each lane n4/64 + 1 times.
	e := int(st.e[0]+st.e[1]+st.e[2]+st.e[3]) - 4*1023*(n4/64+1)
	p := renorm(st.p[0]*st.p[1]*st.p[2]*st.p[3], &e)
	for _, x := range v[n4:] {
		p *= 1 + sgn*clampY(x)
	}
	return math.Log(p) + float64(e)*math.Ln2
}

// foldState receives the lane products (each in [1, 2)) and the summed biased
// exponents of foldRowAVX2.
type foldState struct {
	p   [4]float64
	e   [4]int64
	nan int64
}

// foldRowGo is the gradient part of foldRow in pure Go.
func foldRowGo(v, g []float64, sgn, sw float64) {
	g = g[:len(v)]
	for j, x := range v {
		if x >= -1+Eps && x <= 1-Eps {
			g[j] = sw * (1 - sgn*x)
		} else {
			g[j] = sw / (1 + sgn*clampY(x)) * (1 - x*x)
		}
	}
}

// sumLogProd returns Σ_j log(1 + sgn·clamp(v_j)), sgn = ±1, with one logarithm per
// call: the factors, each in [Eps, 2], are multiplied in four interleaved products;
// after at most 16 factors a product lies in [Eps^16, 2^17] ⊂ normal range
// (Eps^16 = 1e-192) and its binary exponent is moved into an integer counter
// (renorm), so that Σ log = log(p0·p1·p2·p3) + e·ln 2 with every p_i in [1, 2).
func sumLogProd(v []float64, sgn float64) float64 {
	p0, p1, p2, p3 := 1.0, 1.0, 1.0, 1.0
	e := 0
	for len(v) >= 64 {
		c := v[:64]
		for i := 0; i < 64; i += 4 {
			p0 *= 1 + sgn*clampY(c[i])
			p1 *= 1 + sgn*clampY(c[i+1])
			p2 *= 1 + sgn*clampY(c[i+2])
			p3 *= 1 + sgn*clampY(c[i+3])
		}
		p0, p1, p2, p3 = renorm(p0, &e), renorm(p1, &e), renorm(p2, &e), renorm(p3, &e)
		v = v[64:]
	}
	// At most 63 entries remain: at most 16 per product.
	for i, x := range v {
		f := 1 + sgn*clampY(x)
		switch i & 3 {
		case 0:
			p0 *= f
		case 1:
			p1 *= f
		case 2:
			p2 *= f
		default:
			p3 *= f
		}
	}
	p0, p1, p2, p3 = renorm(p0, &e), renorm(p1, &e), renorm(p2, &e), renorm(p3, &e)
	return math.Log(p0*p1*p2*p3) + float64(e)*math.Ln2
}

// renorm returns the mantissa m ∈ [1, 2) of a positive normal x = m·2^k and adds k
// to *e; NaN (from a NaN output) is returned as it is, so that it reaches the loss.
func renorm(x float64, e *int) float64 {
	b := math.Float64bits(x)
	if b>>52&0x7ff == 0x7ff {
		return x
	}
	*e += int(b>>52) - 1023
	return math.Float64frombits(b&(1<<52-1) | 1023<<52)
}

// PredictionLossDense is Eq. 5 with a dense K×|Γ| target matrix y of ±1 entries (for
// tests and small problems); κ_k is computed from row k of y. It returns the loss and,
// if grad is not nil, writes ∂L_P/∂ŷ into it. It is a direct transcription of Eq. 5,
// independent of PredictionLoss.
func PredictionLossDense(yhat, y *mat.Dense, grad *mat.Dense) float64 {
	K, G := yhat.Dims()
	if r, c := y.Dims(); r != K || c != G {
		panic(fmt.Sprintf("nn: targets are %d×%d, want %d×%d", r, c, K, G))
	}
	var loss float64
	for k := 0; k < K; k++ {
		pos := 0
		for j := 0; j < G; j++ {
			if y.At(k, j) > 0 {
				pos++
			}
		}
		kappa := float64(pos) / float64(G)
		for j := 0; j < G; j++ {
			yk, v := y.At(k, j), clampY(yhat.At(k, j))
			loss += kappa*(1+yk)*math.Log(1+v) + (1-kappa)*(1-yk)*math.Log(1-v)
			if grad != nil {
				grad.Set(k, j, -(kappa*(1+yk)/(1+v)-(1-kappa)*(1-yk)/(1-v))/(2*float64(K)*float64(G)))
			}
		}
	}
	return -loss / (2 * float64(K) * float64(G))
}

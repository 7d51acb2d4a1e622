package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/taglens/taglens/ml/features"
)

// SkipGramWindows is the window grid searched by FitSkipGram (paper §6.2.5: the
// best windows were 1 and 3; "the smaller the window size, the better").
var SkipGramWindows = []int{1, 3, 5}

// Defaults of SkipGramOptions (word2vec's skip-gram defaults where they apply).
const (
	DefaultSkipGramEpochs    = 10
	DefaultSkipGramNegatives = 5
	DefaultSkipGramRate      = 0.025
)

// SkipGramOptions tunes FitSkipGram. The zero value means the defaults.
type SkipGramOptions struct {
	// Dim is the embedding dimension; zero means LSA's dimension (§6.2.5: "the
	// same used for PCA", i.e. LSA's 90 % POV count).
	Dim int
	// Window, if positive, fixes the window instead of searching SkipGramWindows.
	Window int
	// Epochs over the training documents (default DefaultSkipGramEpochs).
	Epochs int
	// Negatives per positive pair (default DefaultSkipGramNegatives).
	Negatives int
	// Rate is the initial SGD learning rate, decayed linearly to Rate·1e-4 over
	// training (default DefaultSkipGramRate).
	Rate float64
	// TuneDocs is the number of training documents (seeded sample) on which
	// training P@2 picks the window (default DefaultTuneDocs).
	TuneDocs int
	// AddContext represents a term by the sum of its input and output vectors
	// (v + u, Levy, Goldberg & Dagan 2015) instead of word2vec's input vectors
	// alone (the default, as the paper used word2vec's output). On tag corpora the
	// input vectors' cosine reflects second-order similarity (terms sharing
	// co-occurring terms, e.g. alternative genres), which priming does not reward;
	// v + u adds the first-order (co-occurrence) signal.
	AddContext bool
	// Seed drives initialization, shuffling, negative sampling and tuning.
	Seed uint64
	// Progress, if not nil, is called after each window with its training P@2.
	Progress func(window int, p2 float64)
}

// SkipGram is the Skip-gram baseline with negative sampling (Mikolov et al.
// 2013), written here and trained on one goroutine so that a seed fixes the
// result bit for bit. Following paper §6.2.5, the order of the terms of each
// training document is shuffled (anew every epoch) so that no unreal syntactic
// structure is learnt; a term's context is the terms within Window positions
// of it in the shuffled document. For a (center c, context o) pair and N
// negatives n_1..n_N drawn from the unigram document-frequency distribution
// raised to 3/4 (word2vec), the loss is
//
//	ℓ = −log σ(<v_c, u_o>) − Σ_k log σ(−<v_c, u_{n_k}>),
//
// minimized by SGD with a linearly decaying rate (see sgnsLoss). Terms are
// represented by their input vectors v and compared by cosine distance. The
// window is chosen from {1, 3, 5} by training P@2 under the extended priming
// protocol (ties keep the smaller window). SkipGram is non-contextual.
type SkipGram struct {
	vectorModel
	Window, Dim, Epochs int
	// TrainP2 is the chosen window's training P@2 (0 with a fixed window).
	TrainP2 float64
	Grid    []SkipGramPoint
	// AddContext records whether terms are v + u (see SkipGramOptions).
	AddContext bool
}

// SkipGramPoint is one window of the Skip-gram tuning.
type SkipGramPoint struct {
	Window  int     `json:"window"`
	TrainP2 float64 `json:"train_p2"`
}

// FitSkipGram trains Skip-gram on the encoded training documents, searching the
// window unless fixed. opt may be nil. It stops with ctx.Err() when cancelled.
func FitSkipGram(ctx context.Context, train [][]int, v int, opt *SkipGramOptions) (*SkipGram, error) {
	if err := checkTrain("skipgram", train, v); err != nil {
		return nil, err
	}
	var o SkipGramOptions
	if opt != nil {
		o = *opt
	}
	if o.Epochs <= 0 {
		o.Epochs = DefaultSkipGramEpochs
	}
	if o.Negatives <= 0 {
		o.Negatives = DefaultSkipGramNegatives
	}
	if o.Rate <= 0 {
		o.Rate = DefaultSkipGramRate
	}
	dim, err := lsaDim(train, v, o.Dim, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("baselines: skipgram: %w", err)
	}
	o.Dim = dim
	if o.Window > 0 {
		return trainSkipGram(ctx, train, v, o.Window, &o)
	}
	tune := tuningDocs(train, v, o.TuneDocs, o.Seed)
	var best *SkipGram
	var grid []SkipGramPoint
	for _, w := range SkipGramWindows {
		m, err := trainSkipGram(ctx, train, v, w, &o)
		if err != nil {
			return nil, err
		}
		p2, err := tuneP2(ctx, m, tune, o.Seed)
		if err != nil {
			return nil, fmt.Errorf("baselines: skipgram: tuning: %w", err)
		}
		m.TrainP2 = p2
		grid = append(grid, SkipGramPoint{Window: w, TrainP2: p2})
		if o.Progress != nil {
			o.Progress(w, p2)
		}
		if best == nil || p2 > best.TrainP2 {
			best = m
		}
	}
	best.Grid = grid
	return best, nil
}

// sgnsLoss returns the negative-sampling loss of one pair,
// ℓ = −log σ(<x, y_0>) − Σ_{k≥1} log σ(−<x, y_k>), with ys[0] the context
// (output) vector and ys[1:] the negatives, and its gradient: gx = ∂ℓ/∂x and
// gy[k] = ∂ℓ/∂y_k (gy[k] may be nil to skip). Since d/dz −log σ(±z) = ∓(1−σ(±z)),
// with label l_k = 1 for k = 0 and 0 otherwise, ∂ℓ/∂z_k = σ(z_k) − l_k.
func sgnsLoss(x []float64, ys [][]float64, gx []float64, gy [][]float64) float64 {
	var loss float64
	for i := range gx {
		gx[i] = 0
	}
	for k, y := range ys {
		var z float64
		for i := range x {
			z += x[i] * y[i]
		}
		label := 0.0
		if k == 0 {
			label = 1
		}
		// −log σ(z) = log1p(e^{−z}); −log σ(−z) = log1p(e^{z}), computed stably.
		s := z
		if k == 0 {
			s = -z
		}
		if s > 0 {
			loss += s + math.Log1p(math.Exp(-s))
		} else {
			loss += math.Log1p(math.Exp(s))
		}
		g := sgnsSigmoid(z) - label
		for i := range x {
			gx[i] += g * y[i]
		}
		if gy != nil && gy[k] != nil {
			for i := range y {
				gy[k][i] = g * x[i]
			}
		}
	}
	return loss
}

func sgnsSigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// trainSkipGram trains one model with window w.
func trainSkipGram(ctx context.Context, train [][]int, v, w int, o *SkipGramOptions) (*SkipGram, error) {
	d := o.Dim
	rng := rand.New(rand.NewPCG(o.Seed, 0x5c1d9a3))
	in := make([]float64, v*d)
	out := make([]float64, v*d) // word2vec: input uniform in ±0.5/d, output zero
	for i := range in {
		in[i] = (rng.Float64() - 0.5) / float64(d)
	}
	// Noise distribution: df^0.75, sampled by binary search on its CDF.
	df := features.DocFreq(train, v)
	cdf := make([]float64, v)
	var acc float64
	for i, f := range df {
		acc += math.Pow(float64(f), 0.75)
		cdf[i] = acc
	}
	docs := make([][]int, 0, len(train))
	var pairsPerEpoch int
	for _, doc := range train {
		b := features.BoW(doc)
		if len(b) < 2 {
			continue
		}
		docs = append(docs, b)
		for i := range b {
			pairsPerEpoch += min(i+w, len(b)-1) - max(i-w, 0)
		}
	}
	total := float64(pairsPerEpoch * o.Epochs)
	done := 0.0
	ys := make([][]float64, 1+o.Negatives)
	gy := make([][]float64, 1+o.Negatives)
	for k := range gy {
		gy[k] = make([]float64, d)
	}
	idx := make([]int, 1+o.Negatives)
	gx := make([]float64, d)
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	var buf []int
	for ep := 0; ep < o.Epochs; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, di := range order {
			buf = append(buf[:0], docs[di]...)
			rng.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
			for i, c := range buf {
				x := in[c*d : (c+1)*d]
				for j := max(i-w, 0); j <= min(i+w, len(buf)-1); j++ {
					if j == i {
						continue
					}
					rate := o.Rate * max(1-done/total, 1e-4)
					done++
					idx[0] = buf[j]
					n := 1
					for n <= o.Negatives {
						t := sort.SearchFloat64s(cdf, (1-rng.Float64())*acc) // u ∈ (0, acc]: never a zero-mass term
						t = min(t, v-1)
						if t == idx[0] {
							continue
						}
						idx[n] = t
						n++
					}
					for k, t := range idx {
						ys[k] = out[t*d : (t+1)*d]
					}
					sgnsLoss(x, ys, gx, gy)
					for k := range idx {
						y := ys[k]
						for q := range y {
							y[q] -= rate * gy[k][q]
						}
					}
					for q := range x {
						x[q] -= rate * gx[q]
					}
				}
			}
		}
	}
	rep := in
	if o.AddContext {
		rep = make([]float64, len(in))
		for i := range rep {
			rep[i] = in[i] + out[i]
		}
	}
	return &SkipGram{
		vectorModel: vectorModel{TermVectors: NewTermVectors(v, d, rep), name: "skipgram"},
		Window:      w,
		Dim:         d,
		Epochs:      o.Epochs,
		AddContext:  o.AddContext,
	}, nil
}

// Tuning reports the chosen window and dimension (eval.Tuned).
func (m *SkipGram) Tuning() map[string]any {
	vec := "input"
	if m.AddContext {
		vec = "input+output"
	}
	t := map[string]any{"window": m.Window, "dim": m.Dim, "epochs": m.Epochs, "shuffled_order": true, "vectors": vec}
	if len(m.Grid) > 0 {
		t["train_p2"] = m.TrainP2
		t["criterion"] = "training P@2, extended priming"
		t["grid"] = slices.Clone(m.Grid)
	} else {
		t["criterion"] = "fixed by options"
	}
	return t
}

package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/internal/defaults"
)

// skipGramWindows is the window grid searched by FitSkipGram (paper §6.2.5: the
// best windows were 1 and 3; "the smaller the window size, the better").
var skipGramWindows = []int{1, 3, 5}

// SkipGramVectors names the term representation of a trained Skip-gram model.
// Both are compared by the cosine distance (paper §6.2.5).
type SkipGramVectors string

const (
	// SkipGramInput represents a term by its input vector v alone: what
	// word2vec writes out, and so the paper's reading.
	SkipGramInput SkipGramVectors = "input"
	// SkipGramInputOutput represents a term by the sum of its input and output
	// vectors, v + u ("adding context vectors", Levy, Goldberg & Dagan 2015,
	// "Improving distributional similarity with lessons learned from word
	// embeddings", TACL 3). The cosine of input vectors reflects second-order
	// similarity (terms sharing co-occurring terms, e.g. alternative genres);
	// v + u adds the first-order (co-occurrence) signal that priming rewards.
	SkipGramInputOutput SkipGramVectors = "input+output"
)

// skipGramRepresentations is the representation grid searched by FitSkipGram,
// in tie-breaking order (the paper's input vectors first).
var skipGramRepresentations = []SkipGramVectors{SkipGramInput, SkipGramInputOutput}

// Defaults of SkipGramOptions (word2vec.c's skip-gram defaults where they apply:
// iter 5, negative 5, alpha 0.025).
const (
	DefaultSkipGramEpochs    = 5
	DefaultSkipGramNegatives = 5
	DefaultSkipGramRate      = 0.025
	// SkipGramUpdateBudget bounds the default number of epochs on large corpora:
	// with P (center, context) pairs per epoch at a window, the default is
	// min(DefaultSkipGramEpochs, max(1, ⌈SkipGramUpdateBudget/P⌉)) epochs, so a
	// window costs at most about max(P, SkipGramUpdateBudget) SGD steps. Small
	// corpora keep word2vec's 5 epochs (mtg-jamendo's training subset has 0.17-0.3
	// million pairs per epoch, so windows 3 and 5 get 4 epochs); an epoch over a
	// large corpus already revisits every term pair many times.
	SkipGramUpdateBudget = 1_000_000
)

// SkipGramOptions tunes FitSkipGram. The zero value means the defaults.
type SkipGramOptions struct {
	// Dim is the embedding dimension; zero means LSA's dimension (§6.2.5: "the
	// same used for PCA", i.e. LSA's 90 % POV count).
	Dim int
	// Window, if positive, fixes the window instead of searching 1, 3 and 5
	// (skipGramWindows).
	Window int
	// Vectors, if not empty, fixes the representation instead of searching
	// SkipGramInput and SkipGramInputOutput (skipGramRepresentations). FitSkipGram
	// panics if it is neither.
	Vectors SkipGramVectors
	// Epochs over the training documents; zero means the rule of
	// SkipGramUpdateBudget (word2vec's 5 on small corpora).
	Epochs int
	// Negatives per positive pair (default DefaultSkipGramNegatives).
	Negatives int
	// Rate is the initial SGD learning rate, decayed linearly to Rate·1e-4 over
	// training (default DefaultSkipGramRate).
	Rate float64
	// TuneDocs is the number of training documents (seeded sample) on which
	// training P@2 picks the window and representation (default DefaultTuneDocs).
	TuneDocs int
	// Seed drives initialization, shuffling, negative sampling and tuning.
	Seed uint64
	// Progress, if not nil, is called after each searched grid point (the
	// representations of a window in grid order, one window after another).
	Progress func(SkipGramPoint)
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
// minimized by SGD with a linearly decaying rate, as word2vec does (see
// sgnsLoss and sgnsStep). Terms are represented by their input vectors v or by
// v + u (see SkipGramVectors) and compared by cosine distance. The window,
// from {1, 3, 5}, and the representation are chosen together by training P@2
// under the extended priming protocol, the paper's selection rule; ties keep
// the earlier grid point (smaller window, then input vectors). SkipGram is
// non-contextual.
type SkipGram struct {
	vectorModel
	Window, Dim, Epochs int
	// Vectors is the chosen (or fixed) representation.
	Vectors SkipGramVectors
	// TrainP2 is the chosen point's training P@2 (0 when nothing was searched).
	TrainP2 float64
	Grid    []SkipGramPoint
}

// SkipGramPoint is one point of the Skip-gram tuning grid.
type SkipGramPoint struct {
	Window  int             `json:"window"`
	Vectors SkipGramVectors `json:"vectors"`
	Epochs  int             `json:"epochs"`
	TrainP2 float64         `json:"train_p2"`
}

// FitSkipGram trains Skip-gram on the encoded training documents (term indices
// in [0, v)), searching the window and the representation unless fixed. It stops
// with ctx.Err() when cancelled, and panics if o.Vectors is not a known
// representation.
// Kept in one function: the grid's parallel fits and their in-order collection
// share the pairs and the results table.
func FitSkipGram(ctx context.Context, train [][]int, v int, o SkipGramOptions) (*SkipGram, error) {
	if err := checkTrain(NameSkipGram, train, v); err != nil {
		return nil, err
	}
	defaults.Positive(&o.Negatives, DefaultSkipGramNegatives)
	defaults.Positive(&o.Rate, DefaultSkipGramRate)
	reps := skipGramRepresentations
	if o.Vectors != "" {
		if !slices.Contains(skipGramRepresentations, o.Vectors) {
			panic(fmt.Sprintf("baselines: FitSkipGram: unknown vectors %q", o.Vectors))
		}
		reps = []SkipGramVectors{o.Vectors}
	}
	windows := skipGramWindows
	if o.Window > 0 {
		windows = []int{o.Window}
	}
	dim, err := lsaDim(ctx, train, v, o.Dim, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("baselines: skipgram: %w", err)
	}
	o.Dim = dim
	docs := sgDocs(train)
	search := len(windows)*len(reps) > 1
	var tune [][]int
	if search {
		tune = tuningDocs(train, v, o.TuneDocs, o.Seed)
	}
	tr := newSGTrainer(train, v, &o)
	if !search {
		in, out, epochs, err := tr.train(ctx, docs, windows[0])
		if err != nil {
			return nil, err
		}
		return newSkipGram(v, o.Dim, in, out, windows[0], epochs, reps[0]), nil
	}
	// Each window is trained from its own seeded stream, independently of the
	// others: the windows run on GOMAXPROCS goroutines and their results are
	// taken in grid order, so the choice (the first point of the largest
	// training P@2) and the progress reports are those of the serial loop.
	var best *SkipGram
	var grid []SkipGramPoint
	err = runInOrder(ctx, len(windows), func(i int) ([]*SkipGram, error) {
		w := windows[i]
		in, out, epochs, err := tr.train(ctx, docs, w)
		if err != nil {
			return nil, err
		}
		ms := make([]*SkipGram, len(reps))
		for r, rep := range reps {
			m := newSkipGram(v, o.Dim, in, out, w, epochs, rep)
			p2, err := tuneP2(ctx, m, tune, o.Seed)
			if err != nil {
				return nil, fmt.Errorf("baselines: skipgram: tuning: %w", err)
			}
			m.TrainP2 = p2
			ms[r] = m
		}
		return ms, nil
	}, func(i int, ms []*SkipGram) {
		for _, m := range ms {
			pt := SkipGramPoint{Window: m.Window, Vectors: m.Vectors, Epochs: m.Epochs, TrainP2: m.TrainP2}
			grid = append(grid, pt)
			if o.Progress != nil {
				o.Progress(pt)
			}
			if best == nil || m.TrainP2 > best.TrainP2 {
				best = m
			}
		}
	})
	if err != nil {
		return nil, err
	}
	best.Grid = grid
	return best, nil
}

// newSkipGram returns the model of window w whose terms are represented by r
// from the V×d input and output vectors.
func newSkipGram(v, d int, in, out []float64, w, epochs int, r SkipGramVectors) *SkipGram {
	rep := in
	if r == SkipGramInputOutput {
		rep = make([]float64, len(in))
		floats.AddTo(rep, in, out)
	}
	return &SkipGram{
		vectorModel: vectorModel{TermVectors: NewTermVectors(v, d, rep), name: NameSkipGram},
		Window:      w,
		Dim:         d,
		Epochs:      epochs,
		Vectors:     r,
	}
}

// sgDocs returns the deduplicated training documents with at least two terms
// (the only ones that yield pairs).
func sgDocs(train [][]int) [][]int {
	docs := make([][]int, 0, len(train))
	for _, doc := range train {
		if b := features.BoW(doc); len(b) >= 2 {
			docs = append(docs, b)
		}
	}
	return docs
}

// sgPairs returns the number of (center, context) pairs per epoch at window w.
func sgPairs(docs [][]int, w int) int {
	var n int
	for _, b := range docs {
		for i := range b {
			n += min(i+w, len(b)-1) - max(i-w, 0)
		}
	}
	return n
}

// sgEpochs returns the number of epochs: epochs if positive, else the rule of
// SkipGramUpdateBudget for pairs (center, context) pairs per epoch.
func sgEpochs(epochs, pairs int) int {
	if epochs > 0 {
		return epochs
	}
	return min(DefaultSkipGramEpochs, max(1, (SkipGramUpdateBudget+pairs-1)/max(pairs, 1)))
}

// sgnsLoss returns the negative-sampling loss of one pair,
// ℓ = −log σ(<x, y_0>) − Σ_{k≥1} log σ(−<x, y_k>), with ys[0] the context
// (output) vector and ys[1:] the negatives, and its gradient: gx = ∂ℓ/∂x and
// gy[k] = ∂ℓ/∂y_k (gy[k] may be nil to skip). Since d/dz −log σ(±z) = ∓(1−σ(±z)),
// with label l_k = 1 for k = 0 and 0 otherwise, ∂ℓ/∂z_k = σ(z_k) − l_k.
// It is the exact reference of the training step sgnsStep.
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

// Sigmoid table of the training step (word2vec's expTable, finer): σ sampled at
// the midpoints of sigmoidBins equal bins of [−sigmoidMax, sigmoidMax],
// saturating to 0 and 1 outside. Since |σ'| ≤ 1/4, its error is at most
// (1/4)·sigmoidMax/sigmoidBins (half a bin) inside and σ(−sigmoidMax) outside,
// so below 5·10⁻⁴.
const (
	sigmoidMax  = 8
	sigmoidBins = 4096
)

var sigmoidTable = func() *[sigmoidBins]float64 {
	var t [sigmoidBins]float64
	for i := range t {
		t[i] = sgnsSigmoid((float64(i)+0.5)/sigmoidBins*2*sigmoidMax - sigmoidMax)
	}
	return &t
}()

// fastSigmoid returns σ(z) from sigmoidTable (absolute error < 5·10⁻⁴).
func fastSigmoid(z float64) float64 {
	switch {
	case z >= sigmoidMax:
		return 1
	case z <= -sigmoidMax:
		return 0
	}
	i := int((z + sigmoidMax) * (sigmoidBins / (2 * sigmoidMax)))
	return sigmoidTable[min(i, sigmoidBins-1)]
}

// sgnsStep is one SGD step of rate on the loss of sgnsLoss for input vector x
// (a row of the input matrix) and the rows targets[0] (the context) and
// targets[1:] (the negatives) of the row-major output matrix out of d columns,
// in word2vec's order: for each target in turn, ∂ℓ/∂z_k = σ(z_k) − l_k with
// z_k = <x, y_k> (σ from fastSigmoid), y_k −= rate·∂ℓ/∂z_k·x, and the input
// gradient Σ_k ∂ℓ/∂z_k·y_k (old y_k) is accumulated in gx; then x −= rate·gx.
// With distinct targets this is x −= rate·∂ℓ/∂x, y_k −= rate·∂ℓ/∂y_k up to the
// table's error; a repeated negative sees its first update, as in word2vec.
func sgnsStep(x, out []float64, d int, targets []int, rate float64, gx []float64) {
	clear(gx)
	for k, t := range targets {
		y := out[t*d : (t+1)*d]
		g := fastSigmoid(floats.Dot(x, y))
		if k == 0 {
			g--
		}
		floats.AddScaled(gx, g, y)
		floats.AddScaled(y, -rate*g, x)
	}
	floats.AddScaled(x, -rate, gx)
}

// aliasTable samples index i with probability w_i/Σw in O(1) (Walker's alias
// method, in Vose's construction): draw a column i uniformly, keep it with
// probability prob[i], else take alias[i].
type aliasTable struct {
	prob  []float64
	alias []int
}

// newAliasTable returns the alias table of the nonnegative weights w, whose sum
// must be positive (else it panics).
func newAliasTable(w []float64) *aliasTable {
	n := len(w)
	var sum float64
	for _, x := range w {
		sum += x
	}
	if !(sum > 0) {
		panic("baselines: newAliasTable: weights do not sum to a positive number")
	}
	a := &aliasTable{prob: make([]float64, n), alias: make([]int, n)}
	scaled := make([]float64, n)
	var small, large []int
	for i, x := range w {
		scaled[i] = x * float64(n) / sum
		a.alias[i] = i
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s], a.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// Columns left over hold mass 1 up to rounding: keep them whole, except a
	// zero-weight column (left over only by rounding), which must never be
	// drawn: send it to the heaviest index.
	for _, l := range large {
		a.prob[l] = 1
	}
	for _, s := range small {
		if w[s] > 0 {
			a.prob[s] = 1
		} else {
			a.alias[s] = slices.Index(w, slices.Max(w))
		}
	}
	return a
}

// draw returns a random index.
func (a *aliasTable) draw(rng *rand.Rand) int {
	i := rng.IntN(len(a.prob))
	if rng.Float64() < a.prob[i] {
		return i
	}
	return a.alias[i]
}

// sgTrainer holds what every window's training shares.
type sgTrainer struct {
	v     int
	o     *SkipGramOptions
	noise *aliasTable
}

func newSGTrainer(train [][]int, v int, o *SkipGramOptions) *sgTrainer {
	// Noise distribution: df^0.75 (word2vec's unigram^0.75 over documents).
	df := features.DocFreq(train, v)
	w := make([]float64, v)
	for i, f := range df {
		w[i] = math.Pow(float64(f), 0.75)
	}
	return &sgTrainer{v: v, o: o, noise: newAliasTable(w)}
}

// train trains one model with window w on docs (sgDocs) and returns its V×Dim
// input and output vectors and the number of epochs.
func (tr *sgTrainer) train(ctx context.Context, docs [][]int, w int) (in, out []float64, epochs int, err error) {
	o, v, d := tr.o, tr.v, tr.o.Dim
	pairs := sgPairs(docs, w)
	epochs = sgEpochs(o.Epochs, pairs)
	rng := rand.New(rand.NewPCG(o.Seed, 0x5c1d9a3))
	in = make([]float64, v*d)
	out = make([]float64, v*d) // word2vec: input uniform in ±0.5/d, output zero
	for i := range in {
		in[i] = (rng.Float64() - 0.5) / float64(d)
	}
	total := float64(pairs * epochs)
	done := 0.0
	targets := make([]int, 1+o.Negatives)
	gx := make([]float64, d)
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	var buf []int
	for ep := 0; ep < epochs; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
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
					targets[0] = buf[j]
					for n := 1; n <= o.Negatives; {
						if t := tr.noise.draw(rng); t != targets[0] {
							targets[n] = t
							n++
						}
					}
					sgnsStep(x, out, d, targets, rate, gx)
				}
			}
		}
	}
	return in, out, epochs, nil
}

// Tuning reports the chosen window, representation and dimension (eval.Tuned).
func (m *SkipGram) Tuning() map[string]any {
	t := map[string]any{"window": m.Window, "dim": m.Dim, "epochs": m.Epochs, "shuffled_order": true,
		"vectors": string(m.Vectors), "distance": "cosine"}
	if len(m.Grid) > 0 {
		t["train_p2"] = m.TrainP2
		t["criterion"] = "training P@2, extended priming, over window × vectors"
		t["grid"] = slices.Clone(m.Grid)
	} else {
		t["criterion"] = "fixed by options"
	}
	return t
}

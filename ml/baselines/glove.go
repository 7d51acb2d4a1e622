package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/floats"

	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/internal/defaults"
	"github.com/taglens/taglens/ml/internal/prefetch"
)

// Defaults of GloVeOptions.
const (
	// DefaultGloVeRate is AdaGrad's initial learning rate (Pennington et al.
	// 2014, §4.2: "initial learning rate of 0.05").
	DefaultGloVeRate = 0.05
	// GloVeAlpha is the exponent of the weighting function (Eq. 9, α = 3/4).
	GloVeAlpha = 0.75
	// GloVePaperXMax is the paper's cutoff x_max = 100 (§3, Eq. 9), the upper
	// bound of the default data-scaled cutoff (see gloveXMax).
	GloVePaperXMax = 100
	// GloVeXMaxQuantile is the quantile of the nonzero counts X_ij taken as
	// the default x_max (see gloveXMax).
	GloVeXMaxQuantile = 0.99
	// DefaultGloVeEpochs is the largest default number of epochs (the paper
	// trains 50 iterations for vectors below 300 dimensions, §4.2).
	DefaultGloVeEpochs = 50
	// MinGloVeEpochs is the fewest default epochs on a large corpus.
	MinGloVeEpochs = 15
	// GloVeUpdateBudget bounds the default epochs: with N nonzero X_ij (both
	// orders of every pair), min(DefaultGloVeEpochs, max(MinGloVeEpochs,
	// ⌈GloVeUpdateBudget/N⌉)) epochs, so small corpora get the paper's 50 and a
	// 7,000-term corpus with 0.9-1.4 million nonzeros (whats-cooking,
	// citeulike-a) 15-23, about GloVeUpdateBudget AdaGrad steps per grid point.
	GloVeUpdateBudget = 20_000_000
	// MaxGloVeSteps bounds a GloVe grid point's AdaGrad steps (its epochs ×
	// its nonzero counts) in a comparison of every baseline: ten times
	// GloVeUpdateBudget. MinGloVeEpochs keeps 15 epochs however many counts
	// there are (fewer halved GloVe's MAP on pubmed-genes, docs/scale.md), so
	// above 1.3×10^7 counts its grid of three or four points alone outgrows
	// the 15 minutes of a whole comparison on two cores; there it is left out
	// of "all" with the reason (Skip) and trained only when named.
	MaxGloVeSteps = 10 * GloVeUpdateBudget
	// gloveCheckEvery is the number of steps between two looks at ctx.
	gloveCheckEvery = 1 << 16
	// gloveAheadEntry and gloveAheadRow are how many steps ahead train
	// prefetches an entry's counts and its two rows.
	gloveAheadEntry, gloveAheadRow = 16, 4
)

// GloVeOptions tunes FitGloVe. The zero value means the defaults.
type GloVeOptions struct {
	// Dims is the dimension grid; empty means LSA's dimension capped at
	// MaxModernDim, then 50, 100 and 200 (modernDims, see dimGrid), each capped
	// at |Γ|.
	Dims []int
	// Epochs, if positive, fixes the number of epochs over the nonzero counts;
	// zero means the rule of GloVeUpdateBudget, with the number of epochs
	// searched among its checkpoints, epochs 5, 10 and 25 below the last
	// (gloveCheckpoints).
	Epochs int
	// XMax is the cutoff of the weighting function; zero means gloveXMax.
	XMax float64
	// Rate is AdaGrad's initial learning rate (default DefaultGloVeRate).
	Rate float64
	// TuneDocs is the number of training documents (seeded sample) on which
	// training P@2 picks the dimension (default as DefaultTuneDocs).
	TuneDocs int
	// Seed drives initialization, the order of the updates and the tuning.
	Seed uint64
	// Progress, if not nil, is called after each evaluated grid point.
	Progress func(GloVePoint)
}

// GloVePoint is one point of the GloVe tuning grid.
type GloVePoint struct {
	Dim     int     `json:"dim"`
	Epochs  int     `json:"epochs"`
	Loss    float64 `json:"loss"` // Eq. 8 cost summed over the steps of the point's last epoch
	TrainP2 float64 `json:"train_p2"`
}

// GloVe is the global-vectors baseline of Pennington, Socher & Manning (2014,
// "GloVe: Global Vectors for Word Representation", EMNLP), written here and
// each dimension trained on one goroutine (the dimensions side by side) so that
// a seed fixes the result bit for bit. X_ij is
// the within-document co-occurrence count of two distinct terms (pairCounts,
// the same counts as PPMI-SVD); the cost of Eq. 8,
//
//	J = Σ_{X_ij > 0} f(X_ij)·(w_iᵀw̃_j + b_i + b̃_j − log X_ij)²,
//
// with the weighting of Eq. 9 (gloveWeight), is minimized by AdaGrad from the
// paper's initial rate 0.05, one step per nonzero X_ij (both orders of every
// pair) in an order shuffled anew every epoch from the seed (gloveGrad,
// adagrad). Terms are represented by w + w̃ (§4.2) and compared by cosine
// distance. The cutoff x_max is scaled to the data (gloveXMax). The dimension
// (dimGrid) and the number of epochs (the checkpoints of one run, see
// gloveCheckpoints and GloVeUpdateBudget) are chosen together by training P@2
// under the extended priming protocol, as InfoTheo is tuned (§6.2.5), ties
// keeping the earlier grid point (dimensions in grid order, then fewer
// epochs). Only the nonzero counts are stored. GloVe is non-contextual.
type GloVe struct {
	vectorModel
	// Dim and Epochs are the chosen dimension and number of epochs.
	Dim, Epochs int
	XMax, Rate  float64
	// Loss is the Eq. 8 cost summed over the last epoch's steps.
	Loss float64
	// TrainP2 is the chosen point's training P@2 (0 when nothing was searched).
	TrainP2 float64
	Grid    []GloVePoint
}

// gloveWeight is the weighting function of Pennington et al. (2014), Eq. 9:
// f(x) = (x/x_max)^α for x < x_max, else 1, with α = 3/4.
func gloveWeight(x, xMax float64) float64 {
	if x < xMax {
		return math.Pow(x/xMax, GloVeAlpha)
	}
	return 1
}

// gloveGrad returns one term of the GloVe cost, Pennington et al. (2014) Eq. 8,
//
//	J_ij = f·(w_iᵀw̃_j + b_i + b̃_j − log X_ij)²,
//
// for wi = w_i, wj = w̃_j, biases bi, bj, logX = log X_ij and weight
// f = f(X_ij), and its gradient: gwi = ∂J/∂w_i = g·w̃_j, gwj = ∂J/∂w̃_j = g·w_i
// and the returned g = ∂J/∂b_i = ∂J/∂b̃_j = 2f·(w_iᵀw̃_j + b_i + b̃_j − log X_ij).
func gloveGrad(wi, wj []float64, bi, bj, logX, weight float64, gwi, gwj []float64) (loss, g float64) {
	loss, g = gloveCost(wi, wj, bi, bj, logX, weight)
	for k := range wi {
		gwi[k] = g * wj[k]
		gwj[k] = g * wi[k]
	}
	return loss, g
}

// gloveStep is one AdaGrad step (adagrad) on w_i and on w̃_j with the
// gradients of gloveGrad, gwi = g·w̃_j and gwj = g·w_i, both taken before
// the step, fused into one pass over the coordinates: ri holds w_i (d values)
// then its AdaGrad sums, rj the same for w̃_j. The results are bit for bit
// those of gloveGrad's gwi and gwj followed by adagrad on each (the AVX-512
// loop, eight coordinates at a time, and the AVX2 loop, four, round every
// operation on its own).
func gloveStep(ri, rj []float64, d int, g, rate float64) {
	wi, si := ri[:d], ri[d:2*d]
	wj, sj := rj[:d], rj[d:2*d]
	k := 0
	switch {
	case useGloveAVX512 && d >= 8:
		gloveStepAVX512(&ri[0], &rj[0], d, g, rate)
		k = d &^ 7
	case useGloveAVX2 && d >= 4:
		gloveStepAVX2(&ri[0], &rj[0], d, g, rate)
		k = d &^ 3
	}
	for ; k < d; k++ {
		gi, gj := g*wj[k], g*wi[k]
		si[k] += gi * gi
		wi[k] -= rate * gi / math.Sqrt(si[k])
		sj[k] += gj * gj
		wj[k] -= rate * gj / math.Sqrt(sj[k])
	}
}

// gloveCost returns gloveGrad's loss and g without the vector gradients.
func gloveCost(wi, wj []float64, bi, bj, logX, weight float64) (loss, g float64) {
	diff := bi + bj - logX
	for k, x := range wi {
		diff += x * wj[k]
	}
	return weight * diff * diff, 2 * weight * diff
}

// adagrad is one AdaGrad step (Duchi, Hazan & Singer 2011) of rate on the
// parameters theta with gradient g and the per-parameter sums of squared
// gradients acc: acc += g², theta −= rate·g/√acc. The sums start at 1
// (gloveAccInit).
func adagrad(theta, acc, g []float64, rate float64) {
	for k, gk := range g {
		acc[k] += gk * gk
		theta[k] -= rate * gk / math.Sqrt(acc[k])
	}
}

// gloveAccInit is the initial value of AdaGrad's sums of squared gradients: at
// 1 the first steps are at most rate·|g|, so a rare pair's first large
// gradient does not move its vectors by a full rate per coordinate (the
// paper does not say how AdaGrad is initialized).
const gloveAccInit = 1

// gloveXMax returns the default cutoff x_max of Eq. 9 for the nonzero counts
// vals: their GloVeXMaxQuantile quantile, capped at the paper's 100 and at
// least 1. The paper's x_max = 100 was set for counts from billions of tokens,
// where it gives full weight to the few most frequent pairs only; tag counts
// are far smaller (median 1, 99th percentile 13 on citeulike-a, 52 on corel5k,
// 280 on steam-tags), so a fixed 100 would give nearly every pair a weight
// below 0.1 and the full weight to almost none. The quantile keeps the
// paper's shape: the most frequent 1 % of pairs saturate, the rest are
// down-weighted as (x/x_max)^¾.
func gloveXMax(vals []float64) float64 {
	s := slices.Clone(vals)
	slices.Sort(s)
	q := s[int(GloVeXMaxQuantile*float64(len(s)-1))]
	return min(max(q, 1), GloVePaperXMax)
}

// gloveEpochs returns epochs if positive, else the rule of GloVeUpdateBudget
// for nnz nonzero counts.
func gloveEpochs(epochs, nnz int) int {
	if epochs > 0 {
		return epochs
	}
	return min(DefaultGloVeEpochs, max(MinGloVeEpochs, (GloVeUpdateBudget+nnz-1)/max(nnz, 1)))
}

// GloVeSteps returns the AdaGrad steps of a point of FitGloVe's default grid
// on the training documents train over v terms: the epochs of the rule of
// GloVeUpdateBudget times the nonzero counts X_ij (both orders of a pair). The
// counts are first bounded by the documents' ordered pairs of terms, in one
// pass over their lengths, and counted only when the bound's steps exceed
// limit: a result not above limit may be a bound.
func GloVeSteps(train [][]int, v int, limit int64) (int64, error) {
	var bound int64
	for _, d := range train {
		k := int64(len(d))
		bound += k * (k - 1)
	}
	bound = min(bound, int64(v)*int64(v-1))
	// An upper bound of the steps that grows with the counts: n·epochs(n) ≤
	// max(15n, min(50n, GloVeUpdateBudget + n)).
	up := max(MinGloVeEpochs*bound, min(DefaultGloVeEpochs*bound, GloVeUpdateBudget+bound))
	if up <= limit {
		return up, nil
	}
	counts, err := pairCounts(train, v)
	if err != nil {
		return 0, fmt.Errorf("baselines: glove: %w", err)
	}
	n := counts.NNZ()
	return int64(gloveEpochs(0, n)) * int64(n), nil
}

// gloveCheckpoints are the epochs, below the last, after which a training run
// is also evaluated: the number of epochs is tuned with the dimension, by
// training P@2 (early stopping) at no extra training cost. On tag counts the
// cost of Eq. 8 keeps falling long after the ranking stops improving (only the
// nonzero X_ij are fitted; pairs that never co-occur are unconstrained).
var gloveCheckpoints = []int{5, 10, 25}

// checkpoints returns the evaluated epochs of a run of epochs epochs: the
// gloveCheckpoints below epochs, then epochs.
func checkpoints(epochs int) []int {
	var out []int
	for _, c := range gloveCheckpoints {
		if c < epochs {
			out = append(out, c)
		}
	}
	return append(out, epochs)
}

// gloveEntry is one nonzero count X_ij as a training entry: its row and
// column, log X_ij and the weight f(X_ij), together in 24 bytes (a step reads
// them from one place).
type gloveEntry struct {
	i, j    int32
	logX, f float64
}

// gloveData holds the nonzero counts as training entries.
type gloveData struct {
	v          int
	e          []gloveEntry
	xMax       float64
	epochs     int
	cps        []int // evaluated epochs (checkpoints)
	rate       float64
	seed       uint64
	checkEvery int
}

func newGloveData(counts *features.Sparse, o *GloVeOptions) *gloveData {
	n := counts.NNZ()
	g := &gloveData{v: counts.R, e: make([]gloveEntry, 0, n),
		epochs: gloveEpochs(o.Epochs, n), rate: o.Rate, seed: o.Seed, checkEvery: gloveCheckEvery}
	g.cps = []int{g.epochs}
	if o.Epochs == 0 {
		g.cps = checkpoints(g.epochs)
	}
	g.xMax = o.XMax
	defaults.Positive(&g.xMax, gloveXMax(counts.Val))
	for r := 0; r < counts.R; r++ {
		ind, val := counts.Row(r)
		for p, c := range ind {
			g.e = append(g.e, gloveEntry{i: int32(r), j: int32(c), logX: math.Log(val[p]), f: gloveWeight(val[p], g.xMax)})
		}
	}
	return g
}

// train runs AdaGrad at dimension d for g.epochs epochs and calls at after
// each epoch of g.cps with the epoch, the V×d term vectors
// w + w̃ (a scratch slice, valid during the call) and the cost summed over
// that epoch's steps. It stops with at's error or ctx.Err().
func (g *gloveData) train(ctx context.Context, d int, at func(epoch int, vec []float64, loss float64) error) error {
	v, d2 := g.v, 2*d
	rng := rand.New(rand.NewPCG(g.seed, 0x610e))
	// Row i of w holds w_i then its AdaGrad sums, row j of wt w̃_j then its
	// sums (one cache-friendly block per term); b and bt hold (b_i, sum) pairs.
	// Parameters start uniform in ±0.5/d, sums at gloveAccInit.
	w := make([]float64, v*d2)
	wt := make([]float64, v*d2)
	b := make([]float64, 2*v)
	bt := make([]float64, 2*v)
	for _, p := range [][]float64{w, wt} {
		for r := 0; r < v; r++ {
			row := p[r*d2 : (r+1)*d2]
			for k := 0; k < d; k++ {
				row[k] = (rng.Float64() - 0.5) / float64(d)
				row[d+k] = gloveAccInit
			}
		}
	}
	for _, p := range [][]float64{b, bt} {
		for r := 0; r < v; r++ {
			p[2*r] = (rng.Float64() - 0.5) / float64(d)
			p[2*r+1] = gloveAccInit
		}
	}
	gb := make([]float64, 1)
	vec := make([]float64, v*d)
	order := make([]int32, len(g.e))
	for k := range order {
		order[k] = int32(k)
	}
	steps := 0
	for ep := 1; ep <= g.epochs; ep++ {
		rng.Shuffle(len(order), func(a, c int) { order[a], order[c] = order[c], order[a] })
		var loss float64
		for p, e := range order {
			// The steps ahead's entries, then their rows, fetched into the
			// cache while this step runs (memory latency is most of a step's
			// time on a large vocabulary; the hints change no value).
			if p+gloveAheadEntry < len(order) {
				prefetch.Bytes(unsafe.Pointer(&g.e[order[p+gloveAheadEntry]]), int(unsafe.Sizeof(gloveEntry{})))
			}
			if p+gloveAheadRow < len(order) {
				x := &g.e[order[p+gloveAheadRow]]
				i, j := int(x.i), int(x.j)
				prefetch.Bytes(unsafe.Pointer(&w[i*d2]), 8*d2)
				prefetch.Bytes(unsafe.Pointer(&wt[j*d2]), 8*d2)
				prefetch.Bytes(unsafe.Pointer(&b[2*i]), 16)
				prefetch.Bytes(unsafe.Pointer(&bt[2*j]), 16)
			}
			if steps++; steps%g.checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			x := &g.e[e]
			i, j := int(x.i), int(x.j)
			ri, rj := w[i*d2:(i+1)*d2], wt[j*d2:(j+1)*d2]
			l, gbias := gloveCost(ri[:d], rj[:d], b[2*i], bt[2*j], x.logX, x.f)
			loss += l
			gloveStep(ri, rj, d, gbias, g.rate)
			gb[0] = gbias
			adagrad(b[2*i:2*i+1], b[2*i+1:2*i+2], gb, g.rate)
			adagrad(bt[2*j:2*j+1], bt[2*j+1:2*j+2], gb, g.rate)
		}
		if !slices.Contains(g.cps, ep) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for r := 0; r < v; r++ {
			// §4.2: W + W̃ as the term vectors.
			floats.AddTo(vec[r*d:(r+1)*d], w[r*d2:r*d2+d], wt[r*d2:r*d2+d])
		}
		if err := at(ep, vec, loss); err != nil {
			return err
		}
	}
	return nil
}

// FitGloVe trains GloVe on the encoded training documents (term indices in
// [0, v)), choosing the dimension and the number of epochs on the grid
// dimension × checkpoints unless it has one point. It returns an error for
// invalid input or options, or when no two terms co-occur, and ctx.Err() when
// ctx is cancelled.
func FitGloVe(ctx context.Context, train [][]int, v int, o GloVeOptions) (*GloVe, error) {
	if err := checkTrain(NameGloVe, train, v); err != nil {
		return nil, err
	}
	if o.Rate == 0 {
		o.Rate = DefaultGloVeRate
	}
	switch {
	case !(o.Rate > 0) || math.IsInf(o.Rate, 0):
		return nil, fmt.Errorf("baselines: glove: learning rate %v, want a finite rate > 0", o.Rate)
	case o.Epochs < 0:
		return nil, fmt.Errorf("baselines: glove: %d epochs", o.Epochs)
	case !(o.XMax >= 0) || math.IsInf(o.XMax, 0):
		return nil, fmt.Errorf("baselines: glove: x_max %v, want a finite x_max > 0 (0: default)", o.XMax)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	counts, err := pairCounts(train, v)
	if err != nil {
		return nil, fmt.Errorf("baselines: glove: %w", err)
	}
	dims, err := dimGrid(ctx, train, v, o.Dims, v, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("baselines: glove: %w", err)
	}
	data := newGloveData(counts, &o)
	search := len(dims)*len(data.cps) > 1
	var tune [][]int
	if search {
		tune = tuningDocs(train, v, o.TuneDocs, o.Seed)
	}
	// The dimensions train independently of one another (each from the seed),
	// so they run side by side; each keeps its best checkpoint (the first of
	// the largest training P@2, in epoch order), and the dimensions are taken
	// in grid order, so the choice, the grid and the progress are the serial
	// loop's.
	type dimResult struct {
		best   *GloVe
		points []GloVePoint
	}
	var best *GloVe
	var grid []GloVePoint
	fit := func(i int) (dimResult, error) {
		var r dimResult
		d := dims[i]
		err := data.train(ctx, d, func(ep int, vec []float64, loss float64) error {
			m := &GloVe{
				vectorModel: vectorModel{TermVectors: NewTermVectors(v, d, vec), name: NameGloVe},
				Dim:         d, Epochs: ep, XMax: data.xMax, Rate: o.Rate, Loss: loss,
			}
			if !search {
				r.best = m
				return nil
			}
			p2, err := tuneP2(ctx, m, tune, o.Seed)
			if err != nil {
				return fmt.Errorf("baselines: glove: tuning: %w", err)
			}
			m.TrainP2 = p2
			r.points = append(r.points, GloVePoint{Dim: d, Epochs: ep, Loss: loss, TrainP2: p2})
			if r.best == nil || p2 > r.best.TrainP2 {
				r.best = m
			}
			return nil
		})
		return r, err
	}
	take := func(_ int, r dimResult) {
		for _, pt := range r.points {
			grid = append(grid, pt)
			if o.Progress != nil {
				o.Progress(pt)
			}
		}
		if best == nil || r.best.TrainP2 > best.TrainP2 {
			best = r.best
		}
	}
	if err := runInOrder(ctx, len(dims), fit, take); err != nil {
		return nil, err
	}
	best.Grid = grid
	return best, nil
}

// Tuning reports the chosen dimension, the training settings and the grid
// (eval.Tuned).
func (m *GloVe) Tuning() map[string]any {
	t := map[string]any{"dim": m.Dim, "epochs": m.Epochs, "x_max": m.XMax, "rate": m.Rate, "loss": m.Loss,
		"weighting_alpha": GloVeAlpha, "optimizer": "AdaGrad", "vectors": "w+w̃", "distance": "cosine",
		"cooccurrence": "distinct term pairs within a training document"}
	if len(m.Grid) > 0 {
		t["train_p2"] = m.TrainP2
		t["criterion"] = "training P@2, extended priming, over dim × epochs"
		t["grid"] = slices.Clone(m.Grid)
	} else {
		t["criterion"] = "fixed by options"
	}
	return t
}

package tsne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
)

// Method selects how the gradient of the t-SNE objective is computed.
type Method string

const (
	// Auto picks Exact for n < ExactMaxAuto, BarnesHut for n < FFTMinAuto and
	// FFT otherwise.
	Auto Method = "auto"
	// Exact computes P from all pairs and the gradient and KL divergence exactly:
	// O(n²) time and memory per iteration. For small inputs only.
	Exact Method = "exact"
	// BarnesHut uses a sparse P over the 3·perplexity nearest neighbours and a
	// quadtree approximation of the repulsive forces (van der Maaten 2014).
	BarnesHut Method = "bh"
	// FFT uses the sparse P of BarnesHut and the FFT-accelerated interpolation of
	// the repulsive forces of Linderman et al. (2019), "FIt-SNE".
	FFT Method = "fft"
)

// NeighbourSearch selects how the nearest neighbours of the sparse methods are
// found.
type NeighbourSearch string

const (
	// NeighboursAuto searches exactly below ApproxMinAuto points and
	// approximately from there on.
	NeighboursAuto NeighbourSearch = "auto"
	// NeighboursExact finds the exact k nearest neighbours with a
	// vantage-point tree.
	NeighboursExact NeighbourSearch = "exact"
	// NeighboursApprox finds approximate nearest neighbours with random
	// projection trees refined by neighbour descent (knnapprox.go).
	NeighboursApprox NeighbourSearch = "approx"
)

// Thresholds of the Auto method choice.
const (
	ExactMaxAuto = 500  // Auto uses Exact below this many points
	FFTMinAuto   = 2000 // Auto uses FFT from this many points on
	// ApproxMinAuto is the size from which NeighboursAuto searches
	// approximately. On 50-dimensional Gaussian blobs (k = 90) the exact
	// search took 3 s of CPU at 20,000 points and 55 s at 70,000, the
	// approximate one about 5 s and 33 s (recall 0.97 and 0.92).
	ApproxMinAuto = 50000
)

// reduceAboveDims is the widest input embedded as given. Wider inputs are
// first reduced to their scores on at most 50 principal axes, computed by
// randomized SVD (see reduceInput): without it, the neighbour search and the
// affinities cost O(d) per distance, and forming a d×d covariance for the PCA
// initialisation would need O(d²) memory (3.2 GB for d = 20000). It equals
// exactPCAMaxDims, so the exact covariance path is only used for d ≤ 256.
const reduceAboveDims = exactPCAMaxDims

// exactMaxN bounds the Exact method: it stores dense n×n affinities.
const exactMaxN = 5000

// Options configures Embed and Transform. The zero value of every field means
// its default.
type Options struct {
	// Perplexity is the effective number of neighbours of every point
	// (default 30 for Embed, 5 for Transform). 3·Perplexity must be less than
	// the number of points.
	Perplexity float64
	// Iterations is the total number of gradient-descent iterations, early
	// exaggeration included (default 1000 for Embed, 250 for Transform).
	Iterations int
	// Method is the gradient method (default Auto).
	Method Method
	// Seed seeds the random numbers (random initialisation when PCA is
	// degenerate, vantage-point choice in the kNN tree, the projection trees
	// of the approximate kNN). Equal seeds and inputs
	// give bit-identical embeddings whatever Workers or GOMAXPROCS is.
	Seed uint64
	// Theta is the Barnes-Hut accuracy: a cell of side s at distance r from a
	// point is summarised when s/r < Theta (default 0.5).
	Theta float64
	// Workers is the number of goroutines (default runtime.GOMAXPROCS(0)).
	Workers int
	// LearningRate η multiplies ∂C/∂y / 4, the convention of openTSNE
	// (equivalently scikit-learn's η/4 on the full gradient). Default "auto":
	// max(n/EarlyExaggeration, 50) for Embed, 0.1 for Transform.
	LearningRate float64
	// EarlyExaggeration multiplies P during the first ExaggerationIters
	// iterations (default 12; Transform never exaggerates).
	EarlyExaggeration float64
	// ExaggerationIters is the length of the early-exaggeration phase
	// (default 250), run with momentum 0.5; later iterations use momentum 0.8.
	ExaggerationIters int
	// KLEvery is how often (in iterations) the KL divergence estimate passed to
	// Progress is recomputed (default 50; 1 recomputes it every iteration, which
	// costs one logarithm per non-zero of P). Embedding.KL is always computed at
	// the end.
	KLEvery int
	// Neighbours selects the neighbour search of the sparse methods (default
	// NeighboursAuto). The Exact method always uses all pairs.
	Neighbours NeighbourSearch
	// Init is the initial embedding, n×2, used instead of PCA when not nil
	// (Embed only).
	Init [][]float64
	// Progress, when not nil, is called after every iteration with the number
	// of iterations done (1-based), the latest KL estimate (see KLEvery) and
	// the current embedding as a flat slice y[2i], y[2i+1] that must not be
	// modified or retained. Returning false stops the run early; the embedding
	// reached so far is returned.
	Progress func(iter int, kl float64, y []float64) bool
}

// Embedding is the result of Embed.
type Embedding struct {
	// Y holds the embedded points, n×2, in input order.
	Y [][]float64
	// KL is the final Kullback-Leibler divergence KL(P‖Q): exact for the Exact
	// method; for BarnesHut and FFT it is computed against the sparse kNN P with
	// the method's approximation of the normalisation Z = Σ_{k≠l} (1+‖y_k−y_l‖²)⁻¹.
	KL float64
	// Iterations is the number of iterations run.
	Iterations int
	// Method is the method used (never Auto).
	Method Method
	// Perplexity is the perplexity used.
	Perplexity float64
	// Neighbours is the neighbour search used for P (never NeighboursAuto;
	// NeighboursExact for the Exact method).
	Neighbours NeighbourSearch

	n, d int
	red  *reduction // projection of wide inputs, nil if d ≤ reduceAboveDims
	x    []float64  // flat copy of the input (n×d, or its n×red.c scores), for Transform
	y    []float64  // flat n×2 backing of Y
	tree *vpTree    // kNN index over x, for Transform
}

var (
	// ErrTooFewPoints is returned for inputs with fewer than 4 points.
	ErrTooFewPoints = errors.New("tsne: need at least 4 points")
	// ErrPerplexity is returned when 3·perplexity is not less than the number of points.
	ErrPerplexity = errors.New("tsne: perplexity too large for the number of points (3·perplexity must be < n)")
)

// InputError describes a malformed input row.
type InputError struct {
	Row int    // 0-based row index
	Col int    // 0-based column index, or -1 for a whole-row problem
	Msg string // what is wrong
}

func (e *InputError) Error() string {
	if e.Col < 0 {
		return fmt.Sprintf("tsne: row %d: %s", e.Row, e.Msg)
	}
	return fmt.Sprintf("tsne: row %d column %d: %s", e.Row, e.Col, e.Msg)
}

// ErrDiverged is returned when the optimisation produced non-finite
// coordinates; no embedding is returned then.
var ErrDiverged = errors.New("tsne: the embedding diverged: non-finite coordinates")

// checkFinite returns ErrDiverged, naming the first point, if y (flat n×2)
// holds a NaN or an infinity.
func checkFinite(y []float64) error {
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w (point %d)", ErrDiverged, i/2)
		}
	}
	return nil
}

// maxAbsInput returns the largest input magnitude accepted for n points in d
// dimensions: with |x_ij| ≤ a, a squared distance is at most 4·d·a² and a
// covariance entry at most 4·n·a²/(n−1), so a = sqrt(MaxFloat64 / (4·(n+d)))
// keeps every squared distance, covariance and sum of them finite
// (about 1e153 for n + d = 10⁴).
func maxAbsInput(n, d int) float64 {
	return math.Sqrt(math.MaxFloat64 / (4 * float64(n+d)))
}

// flatten validates x (rectangular, finite, non-empty rows, magnitudes at
// most maxAbsInput) and returns it as a flat row-major array with its
// dimensions: the array x's rows lie in when they lie end to end in one (as
// the rows of a matrix do; then nothing is copied, which at 10⁶ points of 50
// values saves 400 MB), else a copy. Nothing here writes to the result.
func flatten(x [][]float64, wantD int) (flat []float64, n, d int, err error) {
	n = len(x)
	if n == 0 {
		return nil, 0, 0, errors.New("tsne: no points")
	}
	d = wantD
	if d <= 0 {
		d = len(x[0])
	}
	if d == 0 {
		return nil, 0, 0, &InputError{Row: 0, Col: -1, Msg: "empty row"}
	}
	limit := maxAbsInput(n, d)
	for i, row := range x {
		if len(row) != d {
			return nil, 0, 0, &InputError{Row: i, Col: -1, Msg: fmt.Sprintf("has %d values, want %d", len(row), d)}
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, 0, &InputError{Row: i, Col: j, Msg: fmt.Sprintf("value %v is not finite", v)}
			}
			if math.Abs(v) > limit {
				return nil, 0, 0, &InputError{Row: i, Col: j, Msg: fmt.Sprintf("value %v is too large: squared distances would overflow (|value| must be at most %.3g for %d points of %d values)", v, limit, n, d)}
			}
		}
	}
	if flat = rowsInPlace(x, d); flat != nil {
		return flat, n, d, nil
	}
	flat = make([]float64, n*d)
	for i, row := range x {
		copy(flat[i*d:], row)
	}
	return flat, n, d, nil
}

// rowsInPlace returns the array that the rows of x (d values each, d ≥ 1)
// lie in end to end, row i at i·d, or nil if they do not. The array is
// reached through the capacity of x[0], as rows sliced from one backing array
// (x[i] = back[i·d : (i+1)·d]) have it; rows whose capacity was cut to their
// length are copied.
func rowsInPlace(x [][]float64, d int) []float64 {
	n := len(x)
	if cap(x[0]) < n*d {
		return nil
	}
	base := x[0][: n*d : n*d]
	for i, row := range x {
		if &row[0] != &base[i*d] {
			return nil
		}
	}
	return base
}

func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o *Options) theta() float64 {
	if o.Theta > 0 {
		return o.Theta
	}
	return 0.5
}

func (o *Options) klEvery() int {
	if o.KLEvery > 0 {
		return o.KLEvery
	}
	return 50
}

// chooseMethod resolves Auto and validates m.
func chooseMethod(m Method, n int) (Method, error) {
	switch m {
	case "", Auto:
		switch {
		case n < ExactMaxAuto:
			return Exact, nil
		case n < FFTMinAuto:
			return BarnesHut, nil
		default:
			return FFT, nil
		}
	case Exact:
		if n > exactMaxN {
			return "", fmt.Errorf("tsne: exact method limited to %d points (it stores n×n affinities), got %d", exactMaxN, n)
		}
		return m, nil
	case BarnesHut, FFT:
		return m, nil
	}
	return "", fmt.Errorf("tsne: unknown method %q (want auto, exact, bh or fft)", m)
}

// chooseNeighbours resolves NeighboursAuto and validates s.
func chooseNeighbours(s NeighbourSearch, m Method, n int) (NeighbourSearch, error) {
	switch s {
	case "", NeighboursAuto:
		if m != Exact && n >= ApproxMinAuto {
			return NeighboursApprox, nil
		}
		return NeighboursExact, nil
	case NeighboursExact:
		return s, nil
	case NeighboursApprox:
		if m == Exact {
			return NeighboursExact, nil
		}
		return s, nil
	}
	return "", fmt.Errorf("tsne: unknown neighbour search %q (want auto, exact or approx)", s)
}

// Embed computes a two-dimensional t-SNE embedding of the rows of x
// (n observations × d features, n ≥ 4):
//
//	p_{j|i} ∝ exp(−β_i‖x_i−x_j‖²), β_i by binary search so that 2^{H(P_i)} = perplexity,
//	p_ij = (p_{j|i} + p_{i|j}) / 2n,  q_ij = (1+‖y_i−y_j‖²)⁻¹ / Σ_{k≠l}(1+‖y_k−y_l‖²)⁻¹,
//	C = KL(P‖Q) = Σ_{i≠j} p_ij log(p_ij/q_ij),
//	∂C/∂y_i = 4 Σ_j (p_ij − q_ij)(y_i − y_j)(1+‖y_i−y_j‖²)⁻¹
//
// (van der Maaten & Hinton 2008, Eq. 1, 4 and 5). The sparse methods restrict
// p_{j|i} to the ⌊3·perplexity⌋ nearest neighbours of i (exact kNN by a
// vantage-point tree). Optimisation: PCA initialisation scaled to standard
// deviation 1e-4, early exaggeration, momentum 0.5 then 0.8 and per-coordinate
// gains (+0.2 / ×0.8, floor 0.01), as in scikit-learn and openTSNE.
//
// Inputs wider than 256 dimensions are reduced to at most 50 principal
// components by randomized SVD first (see reduceAboveDims).
//
// Embed does not modify x. When the rows of x lie end to end in one array
// (the rows of a matrix, say) it reads that array in place instead of
// copying it, and the Embedding keeps reading it for Transform: x must then
// not change while the Embedding is used.
//
// Data errors (ragged or non-finite rows, values too large for the squared
// distances to stay finite, too few points, perplexity too large) are
// returned, as is ErrDiverged if the optimisation produced non-finite
// coordinates. Cancelling ctx stops the run, in any phase, with ctx's error.
// Kept in one function: the phases (input reduction, affinities,
// initialisation, optimisation) hand their buffers and options to one another
// in a fixed sequence that reads best in one place.
func Embed(ctx context.Context, x [][]float64, opt Options) (*Embedding, error) {
	flat, n, d, err := flatten(x, 0)
	if err != nil {
		return nil, err
	}
	if n < 4 {
		return nil, fmt.Errorf("%w, got %d", ErrTooFewPoints, n)
	}
	perp := opt.Perplexity
	if perp == 0 {
		perp = 30
	}
	if !(perp > 0) || math.IsInf(perp, 0) {
		return nil, fmt.Errorf("tsne: perplexity %v must be positive", perp)
	}
	if 3*perp >= float64(n) {
		return nil, fmt.Errorf("%w: perplexity %v, %d points", ErrPerplexity, perp, n)
	}
	method, err := chooseMethod(opt.Method, n)
	if err != nil {
		return nil, err
	}
	if opt.Init != nil && len(opt.Init) != n {
		return nil, fmt.Errorf("tsne: Init has %d rows, want %d", len(opt.Init), n)
	}
	iters := opt.Iterations
	if iters == 0 {
		iters = 1000
	}
	if iters < 0 {
		return nil, fmt.Errorf("tsne: negative iterations %d", iters)
	}
	workers := opt.workers()
	nbrSearch, err := chooseNeighbours(opt.Neighbours, method, n)
	if err != nil {
		return nil, err
	}
	e := &Embedding{Method: method, Perplexity: perp, Neighbours: nbrSearch, n: n, d: d}
	// Wide inputs are replaced by their scores on at most maxComponents
	// principal axes (randomized SVD, O(n·d) memory); flat and wd are the
	// points and dimension the affinities are computed from.
	wd := d
	if d > reduceAboveDims {
		red, scores, err := reduceInput(ctx, flat, n, d, opt.Seed)
		if err != nil {
			return nil, err
		}
		e.red, flat, wd = red, scores, red.c
	}
	e.x = flat
	if e.tree, err = newVPTree(ctx, flat, n, wd, opt.Seed); err != nil {
		return nil, err
	}

	var g gradienter
	switch method {
	case Exact:
		P, err := exactP(ctx, flat, n, wd, perp, workers)
		if err != nil {
			return nil, err
		}
		g = &exactGrad{P: P, n: n, workers: workers}
	default:
		k := numNeighbours(perp, n)
		var nbr []int32
		var dist []float64
		if e.Neighbours == NeighboursApprox {
			nbr, dist, err = approxKNN(ctx, flat, n, wd, k, opt.Seed, workers)
		} else {
			nbr, dist, err = exactKNN(ctx, e.tree, n, k, workers)
		}
		if err != nil {
			return nil, err
		}
		P, err := sparseP(ctx, nbr, dist, n, k, perp, workers)
		if err != nil {
			return nil, err
		}
		if method == BarnesHut {
			g = newBHGrad(P, n, opt.theta(), workers)
		} else {
			g = newFFTGrad(P, n, workers)
		}
	}

	y := make([]float64, 2*n)
	if opt.Init != nil {
		for i, row := range opt.Init {
			if len(row) != 2 {
				return nil, fmt.Errorf("tsne: Init row %d has %d values, want 2", i, len(row))
			}
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("tsne: Init row %d column %d: value %v is not finite", i, j, v)
				}
			}
			y[2*i], y[2*i+1] = row[0], row[1]
		}
	} else {
		if err := pcaInit(ctx, flat, n, wd, y, opt.Seed); err != nil {
			return nil, err
		}
	}

	lr := opt.LearningRate
	ee := opt.EarlyExaggeration
	if ee == 0 {
		ee = 12
	}
	if lr == 0 {
		lr = math.Max(float64(n)/ee, 50)
	}
	eeIters := opt.ExaggerationIters
	if eeIters == 0 {
		eeIters = 250
	}
	sched := schedule{
		iters: iters, lr: lr, exaggeration: ee, exaggerationIters: eeIters,
		momentum0: 0.5, momentum1: 0.8, klEvery: opt.klEvery(), progress: opt.Progress,
	}
	done, err := optimize(ctx, g, y, sched)
	if err != nil {
		return nil, err
	}
	if err := checkFinite(y); err != nil {
		return nil, err
	}
	e.Iterations = done
	e.KL = g.grad(y, make([]float64, 2*n), 1, true)
	e.y = y
	out := append([]float64(nil), y...) // Y is the caller's; Transform uses e.y
	e.Y = make([][]float64, n)
	for i := range e.Y {
		e.Y[i] = out[2*i : 2*i+2 : 2*i+2]
	}
	return e, nil
}

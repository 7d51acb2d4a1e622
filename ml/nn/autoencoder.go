package nn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// AEConfig configures the sparse auto-encoder of Appendix A.1 and the greedy
// layer-wise pre-training (Pretrain). Zero values mean the defaults.
type AEConfig struct {
	// Sparsity is α, the weight of the sparsity regulariser; default 2 (§5.2 "the
	// sparsity factor is 2", read as α of A.1).
	Sparsity float64
	// SparsityEps is ε in sqrt(z² + ε); default 1e-4 (the paper gives no value).
	SparsityEps float64
	// WeightDecay is λ of the weight-decay term λ/2 (‖W_1‖² + ‖W_2‖²) on the encoder and
	// decoder weights (not biases); default 0.02 (§5.2 "weight decay is 0.02"; A.1
	// does not write the term, we use the usual minFunc/UFLDL form).
	WeightDecay float64
	// MaxIterations bounds the L-BFGS major iterations per layer; default 100.
	MaxIterations int
	// MaxExamples bounds the number of training rows per layer: larger inputs are
	// sub-sampled uniformly without replacement (rng); default 20000. Negative means
	// no bound.
	MaxExamples int
	// Progress, if not nil, is called after every L-BFGS iteration with the layer
	// being trained (1-based), the iteration and the current loss L_A.
	Progress func(layer, iter int, loss float64)
}

func (c AEConfig) withDefaults() AEConfig {
	if c.Sparsity == 0 {
		c.Sparsity = 2
	}
	if c.SparsityEps == 0 {
		c.SparsityEps = 1e-4
	}
	if c.WeightDecay == 0 {
		c.WeightDecay = 0.02
	}
	if c.MaxIterations == 0 {
		c.MaxIterations = 100
	}
	if c.MaxExamples == 0 {
		c.MaxExamples = 20000
	}
	return c
}

// AutoEncoder is a one-hidden-layer sparse auto-encoder (Appendix A.1): encoder
// z = tanh(W_1 x + b_1) (Q units), decoder x̃ = tanh(W_2 z + b_2). Its parameters are
// those of the MLP with Sizes {n, Q, n}: W_1, b_1, W_2, b_2 in that order.
type AutoEncoder struct {
	Net *MLP
	Cfg AEConfig
	ws  *Workspace
}

// NewAutoEncoder returns an auto-encoder of n inputs and q hidden units with Glorot
// initial weights drawn from rng.
func NewAutoEncoder(n, q int, cfg AEConfig, rng *rand.Rand) *AutoEncoder {
	return &AutoEncoder{Net: NewMLP([]int{n, q, n}, rng), Cfg: cfg.withDefaults()}
}

// Loss returns the auto-encoder objective at params (len NumParams({n,Q,n})) for the
// rows of x and, if grad is not nil, writes its gradient into grad:
//
//	L_A = 1/K Σ_k [ ‖x̃(x_k) - x_k‖² + α Σ_q sqrt(z(x_k)[q]² + ε) ] + λ/2 (‖W_1‖² + ‖W_2‖²),
//
// the A.1 loss averaged over the K examples plus weight decay. ∂/∂x̃ = 2(x̃-x)/K and
// ∂/∂z = α z/sqrt(z²+ε)/K enter Backward at layers 2 and 1 (Eq. A.1).
func (a *AutoEncoder) Loss(params []float64, x *mat.Dense, grad []float64) float64 {
	cfg := a.Cfg.withDefaults()
	net := &MLP{Sizes: a.Net.Sizes, Params: params}
	K, n := x.Dims()
	if a.ws == nil {
		a.ws = NewWorkspace(net.Sizes, K)
	}
	net.ForwardTo(a.ws, x, 2)
	z, xt := a.ws.Out(1), a.ws.Out(2)
	q := net.Sizes[1]
	invK := 1 / float64(K)
	var gz, gx *mat.Dense
	if grad != nil {
		gz = mat.NewDense(K, q, nil)
		gx = mat.NewDense(K, n, nil)
	}
	var rec, sp float64
	for k := 0; k < K; k++ {
		xr, tr := x.RawRowView(k), xt.RawRowView(k)
		for j, v := range tr {
			d := v - xr[j]
			rec += d * d
			if gx != nil {
				gx.Set(k, j, 2*d*invK)
			}
		}
		for j, v := range z.RawRowView(k) {
			s := math.Sqrt(v*v + cfg.SparsityEps)
			sp += s
			if gz != nil {
				gz.Set(k, j, cfg.Sparsity*v/s*invK)
			}
		}
	}
	l := net.Layout()
	var wd float64
	for h := 1; h <= 2; h++ {
		for _, w := range params[l.W[h]:l.B[h]] {
			wd += w * w
		}
	}
	loss := (rec+cfg.Sparsity*sp)*invK + cfg.WeightDecay/2*wd
	if grad != nil {
		clear(grad)
		net.Backward(a.ws, []*mat.Dense{nil, gz, gx}, grad)
		for h := 1; h <= 2; h++ {
			axpyUnitary(cfg.WeightDecay, params[l.W[h]:l.B[h]], grad[l.W[h]:l.B[h]])
		}
	}
	return loss
}

// ctxRecorder stops L-BFGS when the context is cancelled and reports progress.
type ctxRecorder struct {
	ctx      context.Context
	layer    int
	iter     int
	progress func(layer, iter int, loss float64)
}

func (r *ctxRecorder) Init() error { return r.ctx.Err() }

func (r *ctxRecorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		r.iter++
		if r.progress != nil {
			r.progress(r.layer, r.iter, loc.F)
		}
	}
	return r.ctx.Err()
}

// Train minimises Loss over the rows of x with batch L-BFGS (gonum optimize.LBFGS,
// the paper used minFunc's L-BFGS), at most cfg.MaxIterations iterations, starting
// from and updating a.Net.Params. It returns the final loss, or the context's error
// when cancelled (the parameters then hold the best point found).
func (a *AutoEncoder) Train(ctx context.Context, x *mat.Dense, layer int) (float64, error) {
	cfg := a.Cfg.withDefaults()
	var (
		lastX    []float64
		lastF    float64
		lastG    []float64
		haveLast bool
	)
	eval := func(p []float64) {
		if haveLast && equalSlices(p, lastX) {
			return
		}
		if lastG == nil {
			lastG = make([]float64, len(p))
		}
		lastF = a.Loss(p, x, lastG)
		lastX = append(lastX[:0], p...)
		haveLast = true
	}
	prob := optimize.Problem{
		Func: func(p []float64) float64 { eval(p); return lastF },
		Grad: func(g, p []float64) { eval(p); copy(g, lastG) },
	}
	rec := &ctxRecorder{ctx: ctx, layer: layer, progress: cfg.Progress}
	settings := &optimize.Settings{
		MajorIterations: cfg.MaxIterations,
		Recorder:        rec,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-9, Iterations: 20},
	}
	res, err := optimize.Minimize(prob, a.Net.Params, settings, &optimize.LBFGS{})
	if res != nil && res.X != nil && !math.IsNaN(res.F) && !math.IsInf(res.F, 0) {
		copy(a.Net.Params, res.X)
	}
	if cerr := ctx.Err(); cerr != nil {
		return math.NaN(), cerr
	}
	if err != nil {
		var e optimize.ErrFunc
		if errors.As(err, &e) || res == nil {
			return math.NaN(), fmt.Errorf("nn: auto-encoder layer %d: %w", layer, err)
		}
		// Line-search failures and similar stop the run at the best point, which is
		// a usable initialisation.
	}
	if res == nil {
		return math.NaN(), fmt.Errorf("nn: auto-encoder layer %d: no result", layer)
	}
	return res.F, nil
}

func equalSlices(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Pretrain initialises a network of the given sizes by greedy layer-wise sparse
// auto-encoder training (§4.3.2, Appendix A.1): hidden layer h = 1..H-1 is the encoder
// of an auto-encoder trained on z_{h-1} of the (sub-sampled) rows of x, z_0 = x; the
// output layer W_H, b_H keeps the Glorot initialisation of NewMLP. x has rows =
// examples and Sizes[0] columns. It returns the network, or an error when ctx is
// cancelled or the data are not finite; it panics on a shape mismatch.
func Pretrain(ctx context.Context, x *mat.Dense, sizes []int, cfg AEConfig, rng *rand.Rand) (*MLP, error) {
	cfg = cfg.withDefaults()
	r, c := x.Dims()
	if c != sizes[0] {
		panic(fmt.Sprintf("nn: Pretrain input has %d columns, want %d", c, sizes[0]))
	}
	net := NewMLP(sizes, rng)
	if r == 0 {
		return nil, errors.New("nn: pretrain: no examples")
	}
	for i := 0; i < r; i++ {
		for _, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("nn: pretrain: row %d is not finite", i)
			}
		}
	}
	in := x
	if cfg.MaxExamples > 0 && r > cfg.MaxExamples {
		idx := rng.Perm(r)[:cfg.MaxExamples]
		sub := mat.NewDense(cfg.MaxExamples, c, nil)
		for i, j := range idx {
			copy(sub.RawRowView(i), x.RawRowView(j))
		}
		in = sub
	}
	l := net.Layout()
	H := len(sizes) - 1
	for h := 1; h < H; h++ {
		ae := NewAutoEncoder(sizes[h-1], sizes[h], cfg, rng)
		if _, err := ae.Train(ctx, in, h); err != nil {
			return nil, fmt.Errorf("nn: pretrain: %w", err)
		}
		// Copy the encoder (W_1, b_1 of the auto-encoder) into layer h.
		al := ae.Net.Layout()
		copy(l.Layer(net.Params, h), al.Layer(ae.Net.Params, 1))
		if h+1 < H {
			ws := NewWorkspace(ae.Net.Sizes, in.RawMatrix().Rows)
			ae.Net.ForwardTo(ws, in, 1)
			in = mat.DenseCopyOf(ws.Out(1))
		}
	}
	return net, nil
}

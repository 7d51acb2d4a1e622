package ce

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/nn"
)

// stepper assembles the mini-batches of stage 1 and stage 2 from examples and
// pairs and computes their loss and gradient with nn.Trainer, which splits a
// batch into nn.DefaultParts fixed parts run concurrently and sums their
// gradients in part order (deterministic). This is the training step of Train
// and of BenchmarkStage1/BenchmarkStage2.
//
// Where the formulas are: Eq. 5 is nn.Trainer.PredictionGrad (exact) or
// nn.Trainer.SampledPredictionGrad (sampled, see Config.OutputSample); Eq. 7,
// L = L_P(X¹) + L_P(X²) + α·L_S(X¹, X²) with tied weights and the Eq. 6 gradient
// injected at the CE layer, is nn.Trainer.SiameseGrad (or SampledSiameseGrad).
// Both normalise L_P by the number of rows of one member (examples or pairs),
// L_S by the number of pairs. The stepper only builds x(τ,δ), the sparse
// targets, the pair types and D = exp(−λ/2·KL_sym(l¹,l²)) (nn.ContextSimilarity).
type stepper struct {
	set   *trainSet
	tr    *nn.Trainer
	x1    *mat.Dense // maxBatch × input: inputs of the examples, or of the first members
	x2    *mat.Dense // maxBatch × input: inputs of the second members
	t1    []nn.Target
	t2    []nn.Target
	tAll  []nn.Target // t1[:n] then t2[:n], for drawing one column sample per Siamese batch
	types []nn.PairType
	d     []float64
	grad  []float64 // ∂L/∂θ of the last batch (layout of Net.Params)
	n     int       // rows (examples or pairs) of the assembled batch

	// sampleM is the number M of uniformly sampled output units of the sampled
	// Eq. 5; zero means the exact loss.
	sampleM int
	cs      nn.ColumnSample
	colRng  *rand.Rand // draws the column samples: its own stream, so that the
	// examples and pairs drawn from the trainer's stream do not depend on the loss
}

// newStepper returns a stepper for net and batches of up to maxBatch examples or
// pairs; sampleM > 0 selects the sampled Eq. 5 with M = sampleM, whose column
// samples are drawn from a stream seeded by seed.
func newStepper(set *trainSet, net *nn.MLP, maxBatch, sampleM int, seed uint64) *stepper {
	in := net.Sizes[0]
	return &stepper{
		set: set, tr: nn.NewTrainer(net, maxBatch),
		x1: mat.NewDense(maxBatch, in, nil), x2: mat.NewDense(maxBatch, in, nil),
		t1: make([]nn.Target, maxBatch), t2: make([]nn.Target, maxBatch), tAll: make([]nn.Target, 0, 2*maxBatch),
		types: make([]nn.PairType, maxBatch), d: make([]float64, maxBatch),
		grad: make([]float64, len(net.Params)), sampleM: sampleM,
		colRng: rand.New(rand.NewPCG(seed, 4)),
	}
}

func (s *stepper) rows(x *mat.Dense) *mat.Dense {
	_, c := x.Dims()
	return x.Slice(0, s.n, 0, c).(*mat.Dense)
}

// fill1 assembles a stage-1 batch: inputs x(τ,δ) and targets (BoW(δ) or its
// complement, §4.3.1) of the examples, and, for the sampled loss, the batch's
// column sample.
func (s *stepper) fill1(ex []example) {
	if len(ex) > len(s.t1) {
		panic(fmt.Sprintf("ce: batch of %d examples, stepper holds %d", len(ex), len(s.t1)))
	}
	s.n = len(ex)
	in := s.set.inputDim()
	s.set.fillInputs(ex, s.x1.RawMatrix().Data[:s.n*in])
	s.set.targetsTo(s.t1[:s.n], ex)
	if s.sampleM > 0 {
		s.cs.Draw(s.t1[:s.n], s.set.v, s.sampleM, s.colRng)
	}
}

// grad1 computes the Eq. 5 loss of the assembled stage-1 batch and its gradient
// into s.grad.
func (s *stepper) grad1() float64 {
	if s.sampleM > 0 {
		return s.tr.SampledPredictionGrad(s.rows(s.x1), s.t1[:s.n], &s.cs, s.grad)
	}
	return s.tr.PredictionGrad(s.rows(s.x1), s.t1[:s.n], s.grad)
}

// fill2 assembles a stage-2 batch of pairs: both members' inputs and targets,
// the pair types and D = exp(−λ/2·KL_sym) of the raw topic vectors of the two
// contexts (Eq. 6), and, for the sampled loss, one column sample over the targets
// of both members.
func (s *stepper) fill2(ps []pair, lambda float64) {
	if len(ps) > len(s.t1) {
		panic(fmt.Sprintf("ce: batch of %d pairs, stepper holds %d", len(ps), len(s.t1)))
	}
	s.n = len(ps)
	in := s.set.inputDim()
	x1, x2 := s.x1.RawMatrix().Data, s.x2.RawMatrix().Data
	for i, p := range ps {
		for k, e := range [2]example{p.a, p.b} {
			row := x1[i*in : (i+1)*in]
			tg := &s.t1[i]
			if k == 1 {
				row, tg = x2[i*in:(i+1)*in], &s.t2[i]
			}
			s.set.inputTo(row, e)
			*tg = nn.Target{Idx: s.set.docs[e.doc], Complement: e.neg, Balanced: s.set.balanced}
		}
		s.types[i] = p.kind
		s.d[i] = nn.ContextSimilarity(s.set.ctxRaw[p.a.doc], s.set.ctxRaw[p.b.doc], lambda)
	}
	if s.sampleM > 0 {
		s.tAll = append(append(s.tAll[:0], s.t1[:s.n]...), s.t2[:s.n]...)
		s.cs.Draw(s.tAll, s.set.v, s.sampleM, s.colRng)
	}
}

// grad2 computes the Eq. 7 loss of the assembled stage-2 batch, returning
// L_P(X¹)+L_P(X²) and L_S, and writes its gradient into s.grad.
func (s *stepper) grad2(alpha float64, sc nn.SiameseConfig) (lp, ls float64) {
	n := s.n
	if s.sampleM > 0 {
		return s.tr.SampledSiameseGrad(s.rows(s.x1), s.rows(s.x2), s.t1[:n], s.t2[:n], s.types[:n], s.d[:n], sc, alpha, &s.cs, s.grad)
	}
	return s.tr.SiameseGrad(s.rows(s.x1), s.rows(s.x2), s.t1[:n], s.t2[:n], s.types[:n], s.d[:n], sc, alpha, s.grad)
}

// gradSet computes the completion form's stage-2 loss (nn.Trainer.SetGrad:
// Eq. 5 on every example, α·nn.SetLoss at the CE layer) of the batch fill1
// assembled from groups of a anchors and c candidates, returning L_P and
// L_set, and writes its gradient into s.grad.
func (s *stepper) gradSet(a, c int, T, alpha float64) (lp, ls float64) {
	var cs *nn.ColumnSample
	if s.sampleM > 0 {
		cs = &s.cs
	}
	return s.tr.SetGrad(s.rows(s.x1), s.t1[:s.n], a, c, T, alpha, cs, s.grad)
}

// newSGD returns the optimizer of a stage with batches mini-batches per epoch:
// the rate decays every DecayEvery epochs, weights averaged with Config.Average.
func (c Config) newSGD(batches int) *nn.SGD {
	return &nn.SGD{LearningRate: c.LearningRate, Decay: c.Decay, DecayEvery: max(1, batches*c.DecayEvery),
		Momentum: c.Momentum, Average: max(c.Average, 0)}
}

// weightsOf returns the weights a stage validates and keeps: the moving
// average when opt keeps one, else the current iterate params.
func weightsOf(opt *nn.SGD, params []float64) []float64 {
	if a := opt.Averaged(); a != nil {
		return a
	}
	return params
}

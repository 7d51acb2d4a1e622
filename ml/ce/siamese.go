package ce

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/nn"
)

// siameseBatch is the input of one Siamese step: N pairs stacked as 2N rows, the
// first members in rows 0..N-1 and the second members in rows N..2N-1.
type siameseBatch struct {
	x       *mat.Dense    // 2N × input
	targets []nn.Target   // 2N targets of Eq. 5
	types   []nn.PairType // N pair situations of Eq. 6
	d       []float64     // N context similarities D = exp(−λ/2·KL(l¹,l²))
}

// siameseLoss is the multi-objective loss of Eq. 7 for one batch of the Siamese
// architecture with tied weights (one parameter vector net.Params shared by both
// subnetworks):
//
//	L = L_P(X¹, Y¹) + L_P(X², Y²) + α · L_S(X¹, X²)                        (Eq. 7)
//
// with L_P the κ-weighted prediction loss of Eq. 5 (nn.PredictionLoss, mean over
// the N rows of each member) and L_S the distance loss of Eq. 6
// (nn.SiameseLoss, mean over the N pairs). Both members run as one forward pass
// of 2N rows; since nn.PredictionLoss averages over its 2N rows, L_P(X¹)+L_P(X²)
// = 2·PredictionLoss(all rows). The gradient added to grad is the exact
// ∂L/∂θ of the shared parameters: the sum of both members' back-propagated
// derivatives (Appendix A.3 averages them, i.e. takes ½ of this sum, a factor
// that the learning rate absorbs). The Eq. 6 gradient is injected at the CE
// layer z_{H-1} and the Eq. 5 gradient at the output z_H, and one backward pass
// carries both (Eq. A.2-A.4).
//
// gOut (2N × |Γ|) and gCE (2N × dim CE) are caller-owned buffers.
func siameseLoss(net *nn.MLP, ws *nn.Workspace, b *siameseBatch, alpha float64, sc nn.SiameseConfig, gOut, gCE *mat.Dense, grad []float64) (loss, lossP, lossS float64) {
	rows, _ := b.x.Dims()
	n := rows / 2
	if rows != 2*n || len(b.types) != n || len(b.d) != n || len(b.targets) != rows {
		panic(fmt.Sprintf("ce: siamese batch with %d rows, %d types, %d similarities, %d targets", rows, len(b.types), len(b.d), len(b.targets)))
	}
	H := net.Layers()
	net.ForwardTo(ws, b.x, H)
	lossP = 2 * nn.PredictionLoss(ws.Out(H), b.targets, gOut)
	gOut.Scale(2, gOut)
	ce := ws.Out(H - 1)
	ce1 := ce.Slice(0, n, 0, net.Sizes[H-1]).(*mat.Dense)
	ce2 := ce.Slice(n, rows, 0, net.Sizes[H-1]).(*mat.Dense)
	g1 := gCE.Slice(0, n, 0, net.Sizes[H-1]).(*mat.Dense)
	g2 := gCE.Slice(n, rows, 0, net.Sizes[H-1]).(*mat.Dense)
	lossS = nn.SiameseLoss(ce1, ce2, b.types, b.d, sc, g1, g2)
	gCE.Scale(alpha, gCE)
	grads := make([]*mat.Dense, H+1)
	grads[H] = gOut
	grads[H-1] = gCE
	net.Backward(ws, grads, grad)
	return lossP + alpha*lossS, lossP, lossS
}

// fillSiamese assembles the batch of pairs ps into worker w's buffers.
func (t *trainer) fillSiamese(w int, ps []pair, lambda float64, b *siameseBatch) {
	n := len(ps)
	in := t.m.sizes[0]
	ex := make([]example, 2*n) // 2N small structs per batch
	for i, p := range ps {
		ex[i], ex[n+i] = p.a, p.b
		b.types[i] = p.kind
		b.d[i] = nn.ContextSimilarity(t.set.ctxRaw[p.a.doc], t.set.ctxRaw[p.b.doc], lambda)
	}
	t.set.fillInputs(ex, t.xb[w].RawMatrix().Data[:2*n*in])
	b.x = t.xb[w].Slice(0, 2*n, 0, in).(*mat.Dense)
	t.set.targetsTo(b.targets[:2*n], ex)
	b.targets = b.targets[:2*n]
	b.types, b.d = b.types[:n], b.d[:n]
}

// runSiamese trains t.net with Eq. 7 for up to maxEpochs epochs of epochPairs
// pairs, evaluating validation P@2 after every EvalEvery epochs, and leaves the
// best weights in t.net. It returns the best P@2, its epoch, the epochs run and
// the stop reason.
func (t *trainer) runSiamese(stage string, alpha, lambda float64, maxEpochs, epochPairs int, deadline time.Duration, fracLo, fracHi float64) (best float64, bestEpoch, epochs int, reason string, err error) {
	cfg := t.cfg
	sc := nn.SiameseConfig{Beta: cfg.Beta, Rho: cfg.Rho}
	batches := (epochPairs + cfg.BatchSize - 1) / cfg.BatchSize
	// Stage 2 decays every DecayEvery epochs like stage 1 (§5.2 decays every 10
	// mini-batches with thousands of epochs; our epochs are few).
	opt := &nn.SGD{LearningRate: cfg.LearningRate, Decay: cfg.Decay, DecayEvery: max(1, batches*cfg.DecayEvery), Momentum: cfg.Momentum}
	var sb [numWorkers]siameseBatch
	for w := range sb {
		sb[w] = siameseBatch{targets: make([]nn.Target, 2*cfg.BatchSize), types: make([]nn.PairType, cfg.BatchSize), d: make([]float64, cfg.BatchSize)}
	}
	ps := make([]pair, cfg.BatchSize)
	st := &early{}
	start := t.elapsed()
	reason = "max epochs"
	for epoch := 1; epoch <= maxEpochs; epoch++ {
		var sum float64
		var cnt int
		for b := 0; b < batches; b++ {
			if b%20 == 0 {
				if err := t.ctx.Err(); err != nil {
					return 0, 0, 0, "", err
				}
				if b > 0 && t.overBudget(deadline) {
					break // evaluate the partial epoch, then stop
				}
			}
			t.set.samplePairs(t.rng, cfg.WithinDoc, cfg.WithinDocI3, ps)
			var losses, weight [numWorkers]float64
			parallelBatch(len(ps), func(w, lo, hi int) {
				clear(t.grads[w])
				sbw := &sb[w]
				sbw.targets, sbw.types, sbw.d = sbw.targets[:cap(sbw.targets)], sbw.types[:cap(sbw.types)], sbw.d[:cap(sbw.d)]
				t.fillSiamese(w, ps[lo:hi], lambda, sbw)
				rows := 2 * (hi - lo)
				gOut := t.gOut[w].Slice(0, rows, 0, t.m.sizes[len(t.m.sizes)-1]).(*mat.Dense)
				gCE := t.gCE[w].Slice(0, rows, 0, t.m.sizes[len(t.m.sizes)-2]).(*mat.Dense)
				losses[w], _, _ = siameseLoss(t.net, t.ws[w], sbw, alpha, sc, gOut, gCE, t.grads[w])
				weight[w] = float64(hi-lo) / float64(len(ps))
			})
			var loss float64
			for w := range losses {
				loss += weight[w] * losses[w]
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return 0, 0, 0, "", fmt.Errorf("%s, epoch %d: %w", stage, epoch, ErrNaN)
			}
			opt.Step(t.net.Params, t.reduceGrads(weight))
			sum += loss
			cnt++
		}
		epochs = epoch
		loss := sum / float64(cnt)
		if epoch%cfg.EvalEvery == 0 || epoch == maxEpochs || t.overBudget(deadline) {
			p2, err := t.validP2(t.net.Params)
			if err != nil {
				return 0, 0, 0, "", err
			}
			t.m.info.Log = append(t.m.info.Log, LogEntry{Stage: stage, Epoch: epoch, Loss: loss, ValidP2: p2, Elapsed: t.elapsed()})
			stop := st.observe(p2, epoch, t.net.Params, cfg.Patience)
			if stage == "stage2" {
				t.bestSiam = st.best
			}
			frac := fracLo + (fracHi-fracLo)*max(float64(epoch)/float64(maxEpochs), t.stageFrac(start, deadline))
			t.report(Progress{Stage: stageName(stage), Epoch: epoch, Epochs: maxEpochs, Loss: loss, Fraction: frac,
				Message: fmt.Sprintf("%s: validation P@2 %.4f (best %.4f at epoch %d)", stage, p2, st.best, st.bestEpoch)})
			if stop {
				reason = fmt.Sprintf("no better validation P@2 in %d evaluations", cfg.Patience)
				break
			}
		}
		if t.overBudget(deadline) {
			reason = "time budget"
			break
		}
	}
	copy(t.net.Params, st.params)
	return st.best, st.bestEpoch, epochs, reason, nil
}

func stageName(s string) string {
	if s == "stage2" {
		return s
	}
	return "pilot"
}

// stage2 chooses α and λ on validation P@2 by short pilot runs from the stage-1
// weights when Config.Alpha or Config.Lambda is zero, then continues the best
// pilot with early stopping.
func (t *trainer) stage2() error {
	cfg := t.cfg
	info := &t.m.info
	start := t.elapsed()
	remaining := cfg.Budget - start
	epochPairs := cfg.EpochExamples
	if epochPairs == 0 {
		n := 0
		for _, d := range t.set.docs {
			n += 2 * len(d)
		}
		epochPairs = min(n, 120000)
	}
	alphas, lambdas := []float64{cfg.Alpha}, []float64{cfg.Lambda}
	if cfg.Alpha == 0 {
		alphas = cfg.AlphaGrid
	}
	if cfg.Lambda == 0 {
		lambdas = cfg.LambdaGrid
	}
	stage1 := slices.Clone(t.net.Params)
	alpha, lambda := alphas[0], lambdas[0]
	var bestParams []float64
	// Pilots need time: with less than 20 s of budget left for stage 2 the grid
	// is skipped and its first values are used (recorded in Info).
	if len(alphas)*len(lambdas) > 1 && (cfg.Reproducible || remaining > 20*time.Second) {
		// Pilots: one short epoch each (a quarter of an epoch's pairs), together
		// at most 30 % of the remaining budget.
		pilotPairs := max(epochPairs/4, cfg.BatchSize)
		per := time.Duration(float64(remaining) * 0.3 / float64(len(alphas)*len(lambdas)))
		bestP2 := math.Inf(-1)
		i := 0
		for _, a := range alphas {
			for _, l := range lambdas {
				copy(t.net.Params, stage1)
				name := fmt.Sprintf("pilot α=%g λ=%g", a, l)
				p2, _, _, _, err := t.runSiamese(name, a, l, 1, pilotPairs, t.elapsed()+per,
					0.5+0.15*float64(i)/float64(len(alphas)*len(lambdas)), 0.5+0.15*float64(i+1)/float64(len(alphas)*len(lambdas)))
				if err != nil {
					return err
				}
				i++
				if p2 > bestP2 {
					bestP2, alpha, lambda = p2, a, l
					bestParams = slices.Clone(t.net.Params)
				}
			}
		}
		copy(t.net.Params, bestParams)
	}
	info.Alpha, info.Lambda = alpha, lambda
	best, bestEpoch, epochs, reason, err := t.runSiamese("stage2", alpha, lambda, cfg.MaxEpochs2, epochPairs, cfg.Budget, 0.65, 1)
	if err != nil {
		return err
	}
	info.Epochs2, info.BestEpoch2, info.ValidP2Siamese, info.StopReason2 = epochs, bestEpoch, best, reason
	return nil
}

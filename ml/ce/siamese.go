package ce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/taglens/taglens/ml/nn"
)

// runSiamese trains t.net with Eq. 7 for up to maxEpochs epochs of epochPairs
// pairs, evaluating validation P@2 after every EvalEvery epochs, and leaves the
// best weights in t.net. It returns the best P@2, its epoch, the epochs run and
// the stop reason.
func (t *trainer) runSiamese(stage string, alpha, lambda float64, maxEpochs, epochPairs int, deadline time.Duration, fracLo, fracHi float64) (best validation, bestEpoch, epochs int, reason string, err error) {
	cfg := t.cfg
	if cfg.Stage2Loss != Stage2Eq6 && len(t.set.multi) == 0 {
		return validation{}, 0, 0, "", fmt.Errorf("%s: the %s loss draws its groups from training documents of two or more terms, and there is none", stage, cfg.Stage2Loss)
	}
	sc := nn.SiameseConfig{Beta: cfg.Beta, Rho: cfg.Rho}
	nb := cfg.BatchSize
	if cfg.Stage2Loss == Stage2Ranking {
		// Whole groups, as many in each of the trainer's two parts.
		sc.Group, sc.Temperature = cfg.RankingGroup, cfg.RankingTemperature
		if cfg.RankingAnchors > 1 {
			sc.Anchors = cfg.RankingAnchors
			sc.Group *= sc.Anchors
		}
		nb = 2 * sc.Group * max(1, cfg.BatchSize/(2*sc.Group))
	}
	// The completion form: whole groups of examples (anchors, then
	// candidates), as many in each of the trainer's two parts, on a stepper
	// of its own sized for them; its column samples draw from a stream of
	// their own.
	var setStep *stepper
	var setEx []example
	setA, setC := cfg.RankingAnchors, cfg.RankingGroup
	if cfg.Stage2Loss == Stage2Completion {
		g := setA + setC
		nb = 2 * g * max(1, cfg.BatchSize/(2*g))
		setStep = newStepper(t.set, t.net, nb, t.step.sampleM, cfg.Seed)
		setStep.colRng = rand.New(rand.NewPCG(cfg.Seed, 7))
		setEx = make([]example, nb)
		t.set.loo = make([][]float64, nb/g)
		for i := range t.set.loo {
			t.set.loo[i] = make([]float64, len(t.set.ctxX[0]))
		}
	}
	batches := (epochPairs + nb - 1) / nb
	// Stage 2 decays every DecayEvery epochs like stage 1 (§5.2 decays every 10
	// mini-batches with thousands of epochs; our epochs are few).
	opt := cfg.newSGD(batches)
	if cfg.LearningRate2 > 0 {
		opt.LearningRate = cfg.LearningRate2
	}
	ps := make([]pair, nb)
	var idx []int
	st := &early{crit: cfg.EarlyStop}
	start := t.elapsed()
	reason = "max epochs"
	for epoch := 1; epoch <= maxEpochs; epoch++ {
		epochStart := time.Now()
		var sum float64
		var cnt int
		for b := 0; b < batches; b++ {
			if b%20 == 0 {
				if err := t.ctx.Err(); err != nil {
					return validation{}, 0, 0, "", err
				}
				if b > 0 && t.overTime(deadline) {
					break // evaluate the partial epoch, then stop
				}
			}
			if setStep != nil {
				idx = t.set.sampleCompletionGroups(t.rng, setA, setC, setEx, idx)
				setStep.fill1(setEx)
				lp, ls := setStep.gradSet(setA, setC, cfg.RankingTemperature, alpha)
				loss := lp + alpha*ls
				if math.IsNaN(loss) || math.IsInf(loss, 0) {
					return validation{}, 0, 0, "", fmt.Errorf("%s, epoch %d: %w", stage, epoch, ErrNaN)
				}
				opt.StepWith(setStep.tr, t.net.Params, setStep.grad)
				sum += loss
				cnt++
				continue
			} else if sc.Anchors > 1 {
				idx = t.set.sampleSetGroups(t.rng, sc.Group/sc.Anchors, sc.Anchors, ps, idx)
			} else if sc.Group > 1 {
				t.set.sampleGroups(t.rng, sc.Group, ps)
			} else {
				t.set.samplePairs(t.rng, cfg.WithinDoc, cfg.WithinDocI3, ps)
			}
			loss, err := t.step2(ps, alpha, lambda, sc, opt)
			if err != nil {
				return validation{}, 0, 0, "", fmt.Errorf("%s, epoch %d: %w", stage, epoch, err)
			}
			sum += loss
			cnt++
		}
		epochs = epoch
		loss := sum / float64(cnt)
		t.clk.pair = time.Since(epochStart) / time.Duration(cnt*nb)
		if epoch%cfg.EvalEvery == 0 || epoch == maxEpochs || t.overTime(deadline) {
			cur := weightsOf(opt, t.net.Params)
			v, err := t.validate(cur)
			if err != nil {
				return validation{}, 0, 0, "", err
			}
			t.m.info.Log = append(t.m.info.Log, LogEntry{Stage: stage, Epoch: epoch, Loss: loss, ValidP2: v.p2, ValidMAP: v.mapExt, ValidMRR: v.mrr})
			if cfg.epochHook != nil {
				cfg.epochHook(stage, epoch, t)
			}
			stop := st.observe(v, epoch, cur, cfg.Patience)
			if stage == "stage2" {
				t.bestSiam = st.bestVal.p2
			}
			frac := fracLo + (fracHi-fracLo)*max(float64(epoch)/float64(maxEpochs), t.stageFrac(start, deadline))
			var eta time.Duration
			if stage == "stage2" {
				eta = time.Duration(epochsLeft(epoch, st.bestEpoch, cfg.Patience, cfg.EvalEvery, maxEpochs))*t.epoch2Time(epochPairs) + t.finalTime()
			} else { // a pilot: the pilots left, then stage 2
				t.nPilots = max(t.nPilots-1, 0)
				eta = t.etaAfterStage1(t.nPilots)
			}
			t.report(Progress{Stage: stageName(stage), Epoch: epoch, Epochs: maxEpochs, Loss: loss, Fraction: frac, ETA: eta, ValidMAP: v.mapExt,
				Message: fmt.Sprintf("%s: validation P@2 %.4f, extended MAP %.4f (best %s %.4f at epoch %d)", stage, v.p2, v.mapExt, cfg.EarlyStop, st.best, st.bestEpoch)})
			if stop {
				reason = fmt.Sprintf("no better validation %s in %d evaluations", cfg.EarlyStop, cfg.Patience)
				break
			}
		}
		if t.overTime(deadline) {
			reason = "time limit"
			break
		}
	}
	copy(t.net.Params, st.params)
	return st.bestVal, st.bestEpoch, epochs, reason, nil
}

func stageName(s string) string {
	if s == "stage2" {
		return s
	}
	return "pilot"
}

// stage2Grid returns the α and λ values stage 2's pilots try: a set value
// alone, else its grid; the completion form has no D, so one λ, unused.
func (c Config) stage2Grid() (alphas, lambdas []float64) {
	alphas, lambdas = []float64{c.Alpha}, []float64{c.Lambda}
	if c.Alpha == 0 {
		alphas = c.AlphaGrid
	}
	if c.Lambda == 0 && c.Stage2Loss != Stage2Completion {
		lambdas = c.LambdaGrid
	}
	return alphas, lambdas
}

// stage2 chooses α and λ on the validation criterion by short pilot runs from
// the stage-1 weights when Config.Alpha or Config.Lambda is zero, with one more
// pilot from stage 1's first weights (Config.Stage2Start), then continues the
// best pilot with early stopping. Kept in one function: the pilots share the
// best score, the kept weights and the time budget that stage 2 then uses.
func (t *trainer) stage2() error {
	cfg := t.cfg
	info := &t.m.info
	if cfg.Kappa == KappaBalancedStage2 {
		t.set.balanced = true // Eq. 7's prediction losses with balanced weights
	}
	start := t.elapsed()
	remaining := cfg.MaxTime - start
	epochPairs := t.epochWork()
	alphas, lambdas := cfg.stage2Grid()
	stage1 := slices.Clone(t.net.Params)
	alpha, lambda := alphas[0], lambdas[0]
	var bestParams []float64
	info.Stage2From = info.BestEpoch1 // unless the pilot from the first epoch wins
	// Pilots need time: under an explicit time limit with less than 20 s left
	// for stage 2 the grid is skipped and its first values are used (recorded
	// in Info).
	if len(alphas)*len(lambdas) > 1 && (cfg.MaxTime <= 0 || remaining > 20*time.Second) {
		// Pilots: one short epoch each (a quarter of an epoch's pairs); under a
		// time limit, together at most 30 % of the time that remains.
		pilotPairs := max(epochPairs/4, cfg.BatchSize)
		t.nPilots = t.pilotCount()
		per := time.Duration(float64(remaining) * 0.3 / float64(len(alphas)*len(lambdas)))
		bestScore := math.Inf(-1)
		i := 0
		for _, a := range alphas {
			for _, l := range lambdas {
				copy(t.net.Params, stage1)
				name := fmt.Sprintf("pilot α=%g λ=%g", a, l)
				v, _, _, _, err := t.runSiamese(name, a, l, 1, pilotPairs, t.elapsed()+per,
					0.5+0.15*float64(i)/float64(len(alphas)*len(lambdas)), 0.5+0.15*float64(i+1)/float64(len(alphas)*len(lambdas)))
				if err != nil {
					return err
				}
				i++
				if s := v.score(cfg.EarlyStop); s > bestScore {
					bestScore, alpha, lambda = s, a, l
					bestParams = slices.Clone(t.net.Params)
				}
			}
		}
		// The other start (Config.Stage2Start): one pilot with the chosen α
		// and λ from the weights of stage 1's first evaluation.
		if cfg.Stage2Start == Stage2Choose && t.first != nil && t.firstEpoch != info.BestEpoch1 {
			copy(t.net.Params, t.first)
			name := fmt.Sprintf("pilot α=%g λ=%g from stage-1 epoch %d", alpha, lambda, t.firstEpoch)
			// The pilot draws its pairs and column samples from streams of its
			// own, so that when it loses, stage 2 runs exactly as with
			// Stage2Best (same weights; the file differs by the log entry).
			rng, colRng := t.rng, t.step.colRng
			t.rng, t.step.colRng = rand.New(rand.NewPCG(cfg.Seed, 5)), rand.New(rand.NewPCG(cfg.Seed, 6))
			v, _, _, _, err := t.runSiamese(name, alpha, lambda, 1, pilotPairs, t.elapsed()+per, 0.65, 0.65)
			t.rng, t.step.colRng = rng, colRng
			if err != nil {
				return err
			}
			if s := v.score(cfg.EarlyStop); s > bestScore {
				bestParams = slices.Clone(t.net.Params)
				info.Stage2From = t.firstEpoch
			}
		} else {
			t.nPilots = 0
		}
		copy(t.net.Params, bestParams)
	}
	info.Alpha, info.Lambda = alpha, lambda
	best, bestEpoch, epochs, reason, err := t.runSiamese("stage2", alpha, lambda, cfg.MaxEpochs2, epochPairs, cfg.MaxTime, 0.65, 1)
	if err != nil {
		return err
	}
	t.siamVal = best
	info.Epochs2, info.BestEpoch2, info.ValidP2Siamese, info.ValidMAPSiamese, info.StopReason2 = epochs, bestEpoch, best.p2, best.mapExt, reason
	return nil
}

// keepCE makes Siamese-CE CE's network when CE scores higher on validation as
// the model ranks (quality notes, D54): by the extended MAP with the fitted
// term widths when early stopping is on that MAP and widths are fitted, else
// by the early-stopping criterion. Stage 2's kept epoch is then 0, and its
// stop reason and the training's last log line say so. Stage 2's own early
// stopping is untouched: its patience counts from its own best epoch.
func (t *trainer) keepCE() {
	in, crit := &t.m.info, t.cfg.EarlyStop
	ce, siam := t.ceVal.score(crit), t.siamVal.score(crit)
	what := "validation " + crit
	if crit == EarlyStopMAP && in.Width == WidthFit {
		ce, siam, what = in.ValidMAPWidthCE, in.ValidMAPWidthSiamese, "validation extended MAP with the term widths"
	}
	if !(ce > siam) {
		return
	}
	t.m.params[VariantSiamese] = slices.Clone(t.m.params[VariantCE])
	in.BestEpoch2, in.ValidP2Siamese, in.ValidMAPSiamese = 0, in.ValidP2CE, in.ValidMAPCE
	in.WidthSiamese, in.ValidMAPWidthSiamese = in.WidthCE, in.ValidMAPWidthCE
	in.StopReason2 += fmt.Sprintf("; CE's network scored higher (%s %.4f against %.4f), and Siamese-CE keeps it", what, ce, siam)
	t.bestSiam = in.ValidP2CE
	t.report(Progress{Stage: "stage2", Fraction: 1, Loss: math.NaN(), Message: "stage2: " + in.StopReason2})
}

// step2 runs one stage-2 SGD step (Eq. 7) on the pairs ps and returns the loss
// L_P(X¹)+L_P(X²)+α·L_S; it returns ErrNaN when the loss is not finite.
func (t *trainer) step2(ps []pair, alpha, lambda float64, sc nn.SiameseConfig, opt *nn.SGD) (float64, error) {
	t.step.fill2(ps, lambda)
	lp, ls := t.step.grad2(alpha, sc)
	loss := lp + alpha*ls
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, ErrNaN
	}
	opt.StepWith(t.step.tr, t.net.Params, t.step.grad)
	return loss, nil
}

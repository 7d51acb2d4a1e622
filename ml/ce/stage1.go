package ce

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/taglens/taglens/ml/nn"
)

// Stage 1 (§4.3.2, Eq. 5): prediction learning from stage 0's weights, with
// early stopping on validation and the flat-start rule (Config.FlatStage1).

// step1 runs one stage-1 SGD step (Eq. 5) on the examples of batch and returns
// the batch loss; it returns ErrNaN (and leaves the parameters unchanged) when
// the loss is not finite.
func (t *trainer) step1(batch []example, opt *nn.SGD) (float64, error) {
	t.step.fill1(batch)
	loss := t.step.grad1()
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, ErrNaN
	}
	opt.StepWith(t.step.tr, t.net.Params, t.step.grad)
	return loss, nil
}

// stage1 trains the network on Eq. 5 (prediction learning) for up to
// MaxEpochs1 epochs of EpochExamples examples, validating after every
// EvalEvery epochs, and leaves the best weights in t.net ("CE"). Kept in one
// function: the epoch loop's optimizer, early-stopping record and progress
// estimate are shared by every step of it.
func (t *trainer) stage1() error {
	cfg := t.cfg
	set := t.set
	prep := t.elapsed()
	deadline := prep + (cfg.MaxTime-prep)/2
	limit := t.epochWork()
	var buf []example
	batches := (limit + cfg.BatchSize - 1) / cfg.BatchSize
	opt := cfg.newSGD(batches)
	st := &early{crit: cfg.EarlyStop}
	info := &t.m.info
	info.StopReason1 = "max epochs"
	t.nPilots = t.pilotCount() // the α/λ pilots of stage 2, for the time estimate
	epochs := 0
	log0 := len(info.Log)
	var losses []float64 // training losses of the epochs so far, for the flat check
	for epoch := 1; epoch <= cfg.MaxEpochs1; epoch++ {
		epochStart := time.Now()
		buf = set.epochExamples(t.rng, limit, buf)
		var sum float64
		var cnt int
		for b := 0; b < len(buf); b += cfg.BatchSize {
			if b%(20*cfg.BatchSize) == 0 {
				if err := t.ctx.Err(); err != nil {
					return err
				}
				if b > 0 && t.overTime(deadline) {
					break // evaluate the partial epoch, then stop
				}
			}
			batch := buf[b:min(b+cfg.BatchSize, len(buf))]
			loss, err := t.step1(batch, opt)
			if err != nil {
				return fmt.Errorf("stage 1, epoch %d: %w", epoch, err)
			}
			sum += loss * float64(len(batch))
			cnt += len(batch)
		}
		epochs = epoch
		loss := sum / float64(cnt)
		trained := time.Since(epochStart)
		losses = append(losses, loss)
		flat := t.flat(losses)
		if flat && cfg.FlatStage1 == FlatRestart {
			// Start again from random initial weights: the network, the
			// optimizer's state, the early-stopping record and the log.
			copy(t.net.Params, t.randomNet().Params)
			opt = cfg.newSGD(batches)
			st = &early{crit: cfg.EarlyStop}
			info.Log = info.Log[:log0]
			info.Stage1Restart = flatWhy(losses) + ": stage 1 started again from random initial weights"
			t.first, t.firstEpoch = nil, 0
			t.report(Progress{Stage: "stage1", Epoch: epoch, Epochs: cfg.MaxEpochs1, Loss: loss, Fraction: 0.1, ETA: t.etaFrom(false), Message: info.Stage1Restart})
			losses = losses[:0]
			epoch = 0
			continue
		}
		if epoch%cfg.EvalEvery == 0 || epoch == cfg.MaxEpochs1 || t.overTime(deadline) || flat {
			cur := weightsOf(opt, t.net.Params)
			v, err := t.validate(cur)
			if err != nil {
				return err
			}
			info.Log = append(info.Log, LogEntry{Stage: "stage1", Epoch: epoch, Loss: loss, ValidP2: v.p2, ValidMAP: v.mapExt, ValidMRR: v.mrr})
			if cfg.epochHook != nil {
				cfg.epochHook("stage1", epoch, t)
			}
			if t.first == nil {
				t.first, t.firstEpoch = slices.Clone(cur), epoch
			}
			stop := st.observe(v, epoch, cur, cfg.Patience)
			t.bestCE = st.bestVal.p2
			frac := 0.1 + 0.4*max(float64(epoch)/float64(cfg.MaxEpochs1), t.stageFrac(prep, deadline))
			t.clk.ex1 = trained / time.Duration(cnt)
			left := epochsLeft(epoch, st.bestEpoch, cfg.Patience, cfg.EvalEvery, cfg.MaxEpochs1)
			if t.flatStopExpected(losses) {
				left = min(left, 1)
			}
			eta := time.Duration(left)*t.epoch1Time() + t.etaAfterStage1(t.nPilots)
			t.report(Progress{Stage: "stage1", Epoch: epoch, Epochs: cfg.MaxEpochs1, Loss: loss, Fraction: frac, ETA: eta, ValidMAP: v.mapExt,
				Message: fmt.Sprintf("validation P@2 %.4f, extended MAP %.4f (best %s %.4f at epoch %d)", v.p2, v.mapExt, cfg.EarlyStop, st.best, st.bestEpoch)})
			if stop {
				info.StopReason1 = fmt.Sprintf("no better validation %s in %d evaluations", cfg.EarlyStop, cfg.Patience)
				break
			}
		}
		if flat { // FlatStop
			info.StopReason1 = flatPrefix + flatWhy(losses)
			break
		}
		if t.overTime(deadline) {
			info.StopReason1 = "time limit"
			break
		}
	}
	copy(t.net.Params, st.params)
	info.Epochs1, info.BestEpoch1, info.ValidP2CE, info.ValidMAPCE, t.ceVal = epochs, st.bestEpoch, st.bestVal.p2, st.bestVal.mapExt, st.bestVal
	return nil
}

// flatPrefix begins Info.StopReason1 when FlatStop ended a flat stage 1.
const flatPrefix = "flat: "

// flatWhy says why flat held for the first two epochs' losses: the words of
// Info.StopReason1 (after flatPrefix) and Info.Stage1Restart.
func flatWhy(losses []float64) string {
	return fmt.Sprintf("stage 1's training loss of Eq. 5 stayed at its all-zero-output value after stage 0 (%.2g and %.2g after epochs 1 and 2)", losses[0], losses[1])
}

// flat reports whether stage 1 should start again or stop (Config.FlatStage1):
// stage 0 initialised the network, stage 1 has not started again yet, and the
// training losses of its first two epochs (losses) stayed at Eq. 5's value
// when every output is 0, within 10·FlatLoss and FlatLoss of it.
func (t *trainer) flat(losses []float64) bool {
	return len(losses) == 2 && t.flatFirst(losses[0]) && math.Abs(losses[1]) < t.flatBound()
}

// flatBound is FlatLoss, or the tests' bound.
func (t *trainer) flatBound() float64 {
	if t.cfg.flatLoss != 0 {
		return t.cfg.flatLoss
	}
	return FlatLoss
}

// flatFirst reports whether stage 1's first epoch, with training loss first,
// leaves flat's test to the second epoch's loss: the rule is on, stage 0 ran,
// stage 1 has not started again and has a third epoch to run, and the loss is
// within 10·FlatLoss of Eq. 5's all-zero-output value.
func (t *trainer) flatFirst(first float64) bool {
	return (t.cfg.FlatStage1 == FlatRestart || t.cfg.FlatStage1 == FlatStop) && t.m.info.Pretrained && t.m.info.Stage1Restart == "" &&
		t.cfg.MaxEpochs1 > 2 && math.Abs(first) < 10*t.flatBound()
}

// flatStopExpected reports whether the time estimate after stage 1's epochs
// so far (losses) should expect FlatStop to end stage 1 after the second
// epoch: after a first epoch that flatFirst accepts. The estimate cannot know
// the second loss yet; when it is not flat, the next estimate expects early
// stopping's epochs again.
func (t *trainer) flatStopExpected(losses []float64) bool {
	return t.cfg.FlatStage1 == FlatStop && len(losses) == 1 && t.flatFirst(losses[0])
}

package ce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/topic"
)

// prepReportEvery is the least time between two progress reports of prepare
// (wall-clock time decides only when a line is logged, never what is learned).
const prepReportEvery = 5 * time.Second

// prepState is how far the two fits of prepare are, shared between the term
// features' goroutine and the training's.
type prepState struct {
	mu                  sync.Mutex
	step                string // the term features' current step
	stepDone, stepTotal int
	termsDone           bool
	sweeps, ofSweeps, k int // LDA's final fit: sweeps done, their number, K
	ldaDone             bool

	// For the time estimate: when LDA's final fit began, when the term
	// features' PCA began and when its last product ended.
	ldaStart, pcaStart, pcaLast time.Time
	ldaEnd                      time.Time
}

// left estimates the time the two fits and the topic mixtures still need at
// now, or reports false while it cannot yet: until the first of the term
// features' PCA products has been timed (the PCA is most of the features' time
// above features.DefaultExactMaxTerms) and LDA's final fit has run 10 sweeps.
// The features' time left is the PCA's products left at the rate of those
// done, plus the projection of every term (about one product); LDA's, its
// sweeps left at the rate of those done; the two run at once. Then every
// document's topic mixture is folded in, which took as long as about a tenth
// of LDA's sweeps on pubmed-genes (2 cores: 7.3 s against 70 s).
func (p *prepState) left(now time.Time) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var lda, perSweep time.Duration
	switch {
	case p.ldaDone:
		perSweep = p.ldaEnd.Sub(p.ldaStart) / time.Duration(max(p.ofSweeps, 1))
	case p.sweeps > 0:
		perSweep = now.Sub(p.ldaStart) / time.Duration(p.sweeps)
		lda = time.Duration(p.ofSweeps-p.sweeps) * perSweep
	default:
		return 0, false
	}
	var terms time.Duration
	switch {
	case p.termsDone:
	case p.step == "pca" && p.stepDone > 0:
		per := p.pcaLast.Sub(p.pcaStart) / time.Duration(p.stepDone)
		terms = max(0, time.Duration(p.stepTotal-p.stepDone+1)*per-now.Sub(p.pcaLast))
	case p.step == "projection":
		terms = 0 // less than a product; its end is near
	default:
		return 0, false
	}
	return max(lda, terms) + time.Duration(p.ofSweeps)*perSweep/10, true
}

// note is the progress line of the two fits.
func (p *prepState) note() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	lda := "LDA: choosing K"
	switch {
	case p.ldaDone:
		lda = fmt.Sprintf("LDA done (K=%d)", p.k)
	case p.ofSweeps > 0:
		lda = fmt.Sprintf("LDA sweep %d/%d (K=%d)", p.sweeps, p.ofSweeps, p.k)
	}
	terms := "term features done"
	if !p.termsDone {
		terms = "term features: " + p.step
		if p.stepTotal > 1 {
			terms += fmt.Sprintf(" %d/%d", p.stepDone, p.stepTotal)
		}
	}
	return lda + "; " + terms
}

// prepProgress is a progress report of prepare saying msg, with the time
// estimate once st.left has one (a Fraction above 0.02 makes report show it).
func (t *trainer) prepProgress(st *prepState, msg string) Progress {
	p := Progress{Stage: "lda", Fraction: 0.02, Message: msg}
	if left, ok := st.left(time.Now()); ok {
		p.Fraction, p.ETA = 0.03, left+t.etaFrom(true)
	}
	return p
}

// prepare fits the term features t(τ) of Eq. 2 and the LDA of Eq. 3 on the
// training documents, then every training document's topic mixture. The two
// fits do not depend on each other: the features are fitted on another
// goroutine while LDA runs (LDA's Gibbs sampler is sequential); each is
// deterministic on its own. The training's goroutine reports how far both are
// at most every prepReportEvery: after an LDA sweep, then while it waits for
// the features.
func (t *trainer) prepare(docs [][]int, V int, scaling features.Scaling) (*features.TermFeatures, *topic.LDA, *mat.Dense, error) {
	cfg := t.cfg
	t.probe(docs, V, cfg.Topics)
	st := &prepState{step: "counts"}
	last := time.Now()
	report := func() {
		if time.Since(last) < prepReportEvery {
			return
		}
		t.report(t.prepProgress(st, st.note()))
		last = time.Now()
	}
	termsCtx, stopTerms := context.WithCancel(t.ctx)
	defer stopTerms()
	var terms *features.TermFeatures
	termsDone := make(chan error, 1)
	go func() {
		var err error
		terms, err = features.FitTermsContext(termsCtx, docs, V, &features.TermOptions{PCA: features.PCAOptions{Dim: cfg.TermDim, Scaling: scaling},
			Normalize: cfg.TermNorm == "unit", Smooth: cfg.TermSmooth,
			Step: func(step string, done, total int) {
				now := time.Now()
				st.mu.Lock()
				st.step, st.stepDone, st.stepTotal = step, done, total
				if step == "pca" && done == 0 {
					st.pcaStart = now
				}
				st.pcaLast = now
				st.mu.Unlock()
			}})
		st.mu.Lock()
		st.termsDone = true
		st.mu.Unlock()
		termsDone <- err
	}()

	t.report(Progress{Stage: "lda", Fraction: 0.02, Message: "fitting LDA and the term features"})
	// Under an explicit time limit LDA must end within it too: it has no
	// partial result worth keeping, so running out of time there is an error.
	ldaCtx, cancelLDA := t.within(cfg.MaxTime)
	lda, err := fitContext(ldaCtx, docs, V, cfg.Topics, cfg.Seed, func(done, total, k int) {
		st.mu.Lock()
		st.sweeps, st.ofSweeps, st.k = done, total, k
		if done == 0 {
			st.ldaStart = time.Now()
		}
		st.mu.Unlock()
		if done > 0 {
			report()
		}
	})
	cancelLDA()
	if err != nil {
		stopTerms()
	}
	st.mu.Lock()
	st.ldaDone, st.ldaEnd = true, time.Now()
	st.mu.Unlock()
	var termsErr error
	for waiting := true; waiting; {
		select {
		case termsErr = <-termsDone:
			waiting = false
		case <-time.After(prepReportEvery):
			report()
		}
	}
	if err != nil {
		if t.ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, nil, nil, fmt.Errorf("the time limit (%v) was reached while fitting LDA with %d documents: allow more time or fewer topics", cfg.MaxTime, len(docs))
		}
		return nil, nil, nil, fmt.Errorf("lda: %w", err)
	}
	if termsErr != nil {
		return nil, nil, nil, termsErr
	}
	t.report(t.prepProgress(st, fmt.Sprintf("topic mixtures of %d training documents", len(docs))))
	raw := mat.NewDense(len(docs), lda.NumTopics(), nil)
	// Each document's topic mixture is computed alone (deterministic variational
	// estimate): two halves in parallel give the same rows.
	inHalves(len(docs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lda.InferVBTo(raw.RawRowView(i), docs[i])
		}
	})
	return terms, lda, raw, nil
}

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// demoParams are the demo model's training parameters: the defaults with a
// smaller budget, so that the demo model is ready within a minute of a first
// start on two cores (docs/quality-notes.md, D24): epochs of 40,000 examples
// instead of 120,000, at most 10 epochs of stage 1 and 15 of stage 2, a
// patience of 4 evaluations, and 10 LDA topics (what the perplexity search
// chooses on the demo corpus, without the search). Budgets count examples and
// epochs, never seconds, so the demo model is the same on every machine; its
// page lists these parameters.
func demoParams() trainParams {
	return trainParams{Config: ce.Config{Topics: 10, EpochExamples: 40000, MaxEpochs1: 10, MaxEpochs2: 15, Patience: 4}}
}

// SeedDemo, on a store without corpora, loads the built-in demo corpus and starts
// training the demo model in the background. It does nothing when Config.Demo is
// false or the store already holds data.
func (s *Server) SeedDemo(ctx context.Context) error {
	if !s.cfg.Demo {
		return nil
	}
	cs, err := s.store.Corpora(ctx)
	if err != nil {
		return err
	}
	if len(cs) > 0 {
		return nil
	}
	c, split, err := demoCorpus()
	if err != nil {
		return fmt.Errorf("demo corpus: %w", err)
	}
	row, err := s.store.InsertCorpus(ctx, c, store.StatsOf(c), split, true)
	if err != nil {
		return err
	}
	pj, err := json.Marshal(demoParams())
	if err != nil {
		return err
	}
	m := &store.ModelRow{CorpusID: row.ID, Name: "demo model", Seed: 1, Params: pj}
	job, err := s.trainNew(m)
	if err != nil {
		return err
	}
	s.log.Info("demo corpus loaded; training the demo model in the background", "corpus", row.ID, "docs", row.Docs, "model", m.ID, "job", job.ID)
	// When the model is ready, compute the explorer's default map and a first
	// comparison, so that every page has real content for a newcomer.
	go func() {
		j, err := s.jobs.Wait(s.root, job.ID)
		if err != nil || j.State != store.JobDone {
			return
		}
		if _, err := s.mapJob(m.ID, string(ce.DefaultVariant), demoTerm, []string{row.ID}, nil); err != nil {
			s.log.Warn("demo map not started", "err", err)
		}
		// Every baseline, so that the first screen can say plainly whether the
		// method or a baseline ranks best on the demo corpus.
		req := evalRequest{ModelIDs: []string{m.ID}, Baselines: []string{"all"}, Protocol: "extended", Trials: 3}
		if _, _, err := s.createEval(s.root, req); err != nil {
			s.log.Warn("demo comparison not started", "err", err)
		}
	}()
	return nil
}

// demoVerdict returns the home page's summary of the first finished
// evaluation of model id, or nil when there is none: the better of CE and
// Siamese-CE against the best baseline in MAP and AUC.
func (s *Server) demoVerdict(ctx context.Context, id string) (*views.Verdict, error) {
	es, err := s.store.Evals(ctx)
	if err != nil {
		return nil, err
	}
	for i := len(es) - 1; i >= 0; i-- { // oldest first
		e := es[i]
		if !e.Reported {
			continue
		}
		var req evalRequest
		if err := json.Unmarshal(e.Request, &req); err != nil || len(req.ModelIDs) != 1 || req.ModelIDs[0] != id {
			continue
		}
		// A report never changes: its verdict is computed once.
		if v, ok := s.verdicts.Load(e.ID); ok {
			return v.(*views.Verdict), nil
		}
		if e, err = s.store.Eval(ctx, e.ID); err != nil {
			return nil, err
		}
		var rep eval.Report
		if err := json.Unmarshal(e.Report, &rep); err != nil {
			return nil, fmt.Errorf("evaluation %s: %w", e.ID, err)
		}
		v := &views.Verdict{EvalID: e.ID, Setting: fmt.Sprintf("The demo model against every baseline: %s priming on the %s documents of the demo corpus, %d trials.", rep.Protocol, rep.Subset, rep.Trials)}
		for _, metric := range []string{"map", "auc"} {
			l, ok := rep.LeadOf(metric, ce.VariantNames(ce.Variants))
			if !ok {
				return nil, nil
			}
			line := views.LeadLine{First: l.First()}
			m := strings.ToUpper(metric)
			if l.First() {
				line.Headline = fmt.Sprintf("%s: our %s ranks first", m, ce.VariantLabel(l.Ours))
				line.Detail = fmt.Sprintf(", %.3f against %.3f for the best baseline, %s (%+.1f %%).", l.OursMean, l.OtherMean, l.Other, 100*l.Margin())
			} else {
				line.Headline = fmt.Sprintf("%s: the %s baseline beats our method on this corpus", m, l.Other)
				line.Detail = fmt.Sprintf(", %.3f against %.3f for our best variant, %s (ours ranks %d of %d).", l.OtherMean, l.OursMean, ce.VariantLabel(l.Ours), l.Rank, l.Models)
			}
			v.Leads = append(v.Leads, line)
		}
		s.verdicts.Store(e.ID, v)
		return v, nil
	}
	return nil, nil
}

package server

import (
	"context"
	"encoding/json"
	"fmt"
)

// demoParams train the demo model fast: a small network, few epochs of few
// examples, no pilot grid (fixed α and λ), so that a newcomer's first screens
// fill within a minute on two cores. They are ordinary training parameters,
// shown on the model's page; no time limit, so the demo model is the same on
// every machine.
func demoParams() TrainParams {
	return TrainParams{
		Hidden:             []int{48, 32, 10},
		MaxEpochs1:         8,
		MaxEpochs2:         6,
		Patience:           2,
		EpochExamples:      20000,
		PretrainIterations: 15,
		Alpha:              0.1,
		Lambda:             2,
	}
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
	row, err := s.store.InsertCorpus(ctx, c, computeStats(c), split, true)
	if err != nil {
		return err
	}
	pj, _ := json.Marshal(demoParams())
	m := &ModelRow{CorpusID: row.ID, Name: "demo model", Seed: 1, Params: pj}
	if err := s.store.InsertModel(ctx, m); err != nil {
		return err
	}
	job, err := s.startTraining(m)
	if err != nil {
		return err
	}
	s.log.Info("demo corpus loaded; training the demo model in the background", "corpus", row.ID, "docs", row.Docs, "model", m.ID, "job", job.ID)
	// When the model is ready, compute the explorer's default map and a first
	// comparison, so that every page has real content for a newcomer.
	go func() {
		j, err := s.jobs.Wait(s.root, job.ID)
		if err != nil || j.State != JobDone {
			return
		}
		if _, err := s.mapJob(m.ID, "siamese-ce", demoTerm, []string{row.ID}); err != nil {
			s.log.Warn("demo map not started", "err", err)
		}
		req := EvalRequest{ModelIDs: []string{m.ID}, Baselines: []string{"random", "lsa", "lda"}, Protocol: "extended", Trials: 3}
		if _, _, err := s.createEval(s.root, req); err != nil {
			s.log.Warn("demo comparison not started", "err", err)
		}
	}()
	return nil
}

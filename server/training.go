package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/internal/lru"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// trainParams are the hyper-parameters accepted by POST /api/models
// ("params"): the training parameters documented in ce.Params, under their
// names (ce.Config's JSON keys), with the time limit in seconds. Zero or
// absent fields mean ce.Config's defaults.
type trainParams struct {
	ce.Config
	// MaxTimeSeconds is an explicit wall-clock limit (ce.Config.MaxTime), off
	// when zero: without it the same corpus, split, parameters and seed give
	// the same model on any machine.
	MaxTimeSeconds float64 `json:"max_time_seconds,omitempty"`
}

// validate checks the parameters with ce.Config.Validate, the one check of
// training parameters shared with taglens train; the error names the API field.
func (p trainParams) validate() error {
	if !(p.MaxTimeSeconds >= 0 && p.MaxTimeSeconds <= ce.MaxTrainTime.Seconds()) {
		return fmt.Errorf("max_time_seconds: %v: must be in 0..%v (0 = no limit)", p.MaxTimeSeconds, ce.MaxTrainTime.Seconds())
	}
	if err := p.config(0).Validate(); err != nil {
		var pe *ce.ParamError
		if errors.As(err, &pe) && pe.Param == "max_time" {
			pe.Param = "max_time_seconds"
		}
		return err
	}
	return nil
}

// config is the training configuration of the parameters with seed.
func (p trainParams) config(seed uint64) ce.Config {
	c := p.Config
	c.Seed = seed
	c.MaxTime = time.Duration(p.MaxTimeSeconds * float64(time.Second))
	return c
}

// trainSplit is the split of a model of corpus c whose row is row, trained
// with the given split seed: app.ModelSplit with the corpus's stored split
// (the web app reserves no OOV tags). Training uses corpus.DefaultSplitSeed,
// so every model of a corpus shares one split; a map uses the seed its model
// recorded.
func trainSplit(row *store.CorpusRow, c *corpus.Corpus, seed uint64) corpus.Split {
	return app.ModelSplit(c, ownSplit(row), nil, seed)
}

// ownSplit is the split stored with a corpus, or nil when it has none.
func ownSplit(row *store.CorpusRow) *corpus.Split {
	if len(row.Split.Train) > 0 {
		return &row.Split
	}
	return nil
}

// startTraining submits the training job of a stored model row: a restart
// of an interrupted or failed model, or the first training of a row stored
// without a job. The model's move to "training" under the new job is written
// in the transaction that stores the job, before the job can start; a model
// whose state allows no training (it is training or ready) answers 409 and
// nothing is stored.
func (s *Server) startTraining(m *store.ModelRow) (*store.JobRow, error) {
	return s.submitTraining(m, func(tx *store.Tx, job *store.JobRow) error {
		err := tx.StartModelJob(s.root, m.ID, job.ID)
		if errors.Is(err, store.ErrModelBusy) {
			return app.Conflict("%v; only cancelled, interrupted or failed models restart", err)
		}
		return err
	})
}

// trainNew stores a new model row and its training job in one transaction
// and starts the job: a model never exists without the job that trains it.
func (s *Server) trainNew(m *store.ModelRow) (*store.JobRow, error) {
	return s.submitTraining(m, func(tx *store.Tx, job *store.JobRow) error {
		m.JobID = job.ID
		return tx.InsertModel(s.root, m)
	})
}

// submitTraining submits the training job of model m, with record writing
// the model's side in the job's transaction.
func (s *Server) submitTraining(m *store.ModelRow, record func(*store.Tx, *store.JobRow) error) (*store.JobRow, error) {
	var p trainParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, fmt.Errorf("model %s params: %w", m.ID, err)
	}
	if m.ID == "" {
		m.ID = store.NewID() // the job's target and its closure name the model before it is stored
	}
	id, corpusID, seed := m.ID, m.CorpusID, m.Seed
	return s.jobs.SubmitWith("train", id, map[string]any{"model_id": id}, func(ctx context.Context, rep *jobs.Reporter) error {
		return s.runTraining(ctx, rep, id, corpusID, seed, p)
	}, record)
}

// runTraining trains model modelID on corpus corpusID with seed and the
// parameters p, reporting its progress to rep, and saves it; on failure it
// marks the model failed, cancelled when a user cancelled the job, or
// interrupted when the server's shutdown stopped it. Each of
// these writes changes the model only while it is training under this job.
func (s *Server) runTraining(ctx context.Context, rep *jobs.Reporter, modelID, corpusID string, seed uint64, p trainParams) (err error) {
	st := s.store
	bg := context.WithoutCancel(ctx)
	defer func() {
		if err != nil {
			state := store.ModelFailed
			switch {
			case errors.Is(context.Cause(ctx), jobs.ErrCancelled):
				state = store.ModelCancelled
			case ctx.Err() != nil:
				state = store.ModelInterrupted
			}
			if serr := st.EndModelJob(bg, modelID, rep.ID(), state); serr != nil {
				s.log.Error("recording a model's state", "model", modelID, "state", state, "err", serr)
			}
		}
	}()
	rep.Progress(0, "loading", "reading the corpus")
	row, err := st.CorpusWithSplit(ctx, corpusID)
	if err != nil {
		return fmt.Errorf("corpus %s: %w", corpusID, err)
	}
	c, err := st.Documents(ctx, corpusID)
	if err != nil {
		return err
	}
	t := app.Training{Corpus: c, OwnSplit: ownSplit(row), Config: p.config(seed), Progress: s.trainProgress(bg, rep, modelID)}
	t.Config.SplitSeed = corpus.DefaultSplitSeed // of the random split, when the corpus has none
	if err := st.ResetModelLog(bg, modelID); err != nil {
		return err
	}
	m, err := app.Train(ctx, t)
	if err != nil {
		return err
	}
	return s.saveTrainedModel(bg, rep, modelID, m)
}

// trainProgress returns the progress callback of a model's training: it
// passes the trainer's progress and time estimate to rep and records each
// epoch of stage 1 or 2 as a point of the model's training curve (bg is the
// training's context without its cancellation).
func (s *Server) trainProgress(bg context.Context, rep *jobs.Reporter, modelID string) func(ce.Progress) {
	st := s.store
	var mu sync.Mutex
	lastKey := ""
	epochs := 0
	return func(pr ce.Progress) {
		mu.Lock()
		defer mu.Unlock()
		msg := pr.Message
		if msg == "" {
			msg = pr.Stage
			if pr.Epochs > 0 {
				msg = fmt.Sprintf("%s epoch %d/%d, loss %.4g", pr.Stage, pr.Epoch, pr.Epochs, pr.Loss)
			}
		}
		rep.Estimate(pr.ETA) // ce estimates from its epochs' cost and early stopping
		key := fmt.Sprintf("%s/%d", pr.Stage, pr.Epoch)
		if (pr.Stage == "stage1" || pr.Stage == "stage2") && pr.Epoch > 0 && key != lastKey {
			lastKey = key
			epochs++
			v := pr.ValidP2CE
			if pr.Stage == "stage2" {
				v = pr.ValidP2Siamese
			}
			pt := store.TrainPoint{Stage: pr.Stage, Epoch: pr.Epoch, Loss: pr.Loss}
			if v > 0 {
				pt.ValidP2 = &v
			}
			if m := pr.ValidMAP; m > 0 {
				pt.ValidMAP = &m
			}
			if err := st.AppendModelLog(bg, modelID, pt); err != nil {
				s.log.Warn("recording a training point", "model", modelID, "err", err)
			}
			rep.Point(pr.Fraction, pr.Stage, msg, pt)
			return
		}
		rep.Progress(pr.Fraction, pr.Stage, msg)
	}
}

// saveTrainedModel writes the trained model's file, replaces the live
// training curve by the model's own and marks the model trained.
func (s *Server) saveTrainedModel(bg context.Context, rep *jobs.Reporter, modelID string, m *ce.Model) error {
	st := s.store
	rep.Progress(0.99, "saving", "writing the model file")
	rel := store.ModelPath(modelID)
	size, err := st.WriteFileAtomic(rel, m.Write)
	if err != nil {
		return fmt.Errorf("writing model file: %w", err)
	}
	info := m.Info()
	// The exact validation curve from the model's own log replaces the live one.
	var log []store.TrainPoint
	for _, e := range info.Log {
		if e.Stage != "stage1" && e.Stage != "stage2" {
			continue
		}
		v, m := e.ValidP2, e.ValidMAP
		log = append(log, store.TrainPoint{Stage: e.Stage, Epoch: e.Epoch, Loss: e.Loss, ValidP2: &v, ValidMAP: &m})
	}
	if len(log) > 0 {
		if err := st.ResetModelLog(bg, modelID); err != nil {
			return fmt.Errorf("recording the training curve: %w", err)
		}
		if err := st.AppendModelLog(bg, modelID, log...); err != nil {
			return fmt.Errorf("recording the training curve: %w", err)
		}
	}
	ij, err := json.Marshal(infoSummary(info))
	if err != nil {
		return fmt.Errorf("encoding the training record: %w", err)
	}
	if err := st.FinishModel(bg, modelID, rep.ID(), rel, size, ij); err != nil {
		os.Remove(filepath.Join(st.Dir(), rel))
		return err
	}
	s.models.drop(modelID)
	rep.Progress(1, "done", "trained: "+info.ValidationNote())
	return nil
}

// infoSummary is the training record shown on the model page: ce.Info as JSON
// without its log (stored apart, as the training curve).
func infoSummary(in *ce.Info) ce.Info {
	sum := *in
	sum.Log = nil
	return sum
}

// modelCache keeps the most recently used models in memory (internal/lru):
// beyond its size a new model evicts the least recently used.
type modelCache struct {
	mu sync.Mutex
	c  *lru.Cache[string, *ce.Model]
}

func newModelCache(max int) *modelCache { return &modelCache{c: lru.New[string, *ce.Model](max)} }

func (c *modelCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.Remove(id)
}

// get returns the cached model id and marks it most recently used.
func (c *modelCache) get(id string) (*ce.Model, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.Get(id)
}

// put caches m as id, most recently used, evicting the least recently used
// models beyond the cache's size.
func (c *modelCache) put(id string, m *ce.Model) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.Add(id, m)
}

// model returns the loaded model of a ready model row.
func (s *Server) model(ctx context.Context, id string) (*store.ModelRow, *ce.Model, error) {
	row, err := s.store.Model(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if row.State != store.ModelReady {
		return row, nil, errModelNotReady
	}
	path := filepath.Join(s.store.Dir(), row.Path)
	if m, ok := s.models.get(id); ok {
		// The loaded model serves as long as its file is still there (a
		// deleted file would be a ready model whose download is a 404).
		if _, err := os.Stat(path); err != nil {
			s.models.drop(id)
			return s.brokenModel(ctx, row, err)
		}
		return row, m, nil
	}
	m, err := ce.ReadFile(path)
	if err != nil {
		// ReadFile checks the file's length and SHA-256: a damaged or missing
		// file marks the model failed with the reason, and it is never served.
		return s.brokenModel(ctx, row, err)
	}
	s.models.put(id, m)
	return row, m, nil
}

// brokenModel marks a ready model whose file cannot be read failed, with
// the reason, and returns the errModelBroken error naming it.
func (s *Server) brokenModel(ctx context.Context, row *store.ModelRow, err error) (*store.ModelRow, *ce.Model, error) {
	reason := "the model file cannot be read: " + err.Error()
	if serr := s.store.SetModelBroken(ctx, row.ID, reason); serr != nil {
		s.log.Error("marking a damaged model failed", "model", row.ID, "err", serr)
	}
	s.log.Error("damaged model file", "model", row.ID, "path", row.Path, "err", err)
	row.State, row.Error = store.ModelFailed, reason
	return row, nil, fmt.Errorf("model %q: %s: %w", row.ID, reason, errModelBroken)
}

var (
	errModelNotReady = errors.New("the model is not trained yet")
	errModelBroken   = errors.New("the model is marked failed")
)

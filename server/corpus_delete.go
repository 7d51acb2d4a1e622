package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/store"
)

// corpusModels returns the models trained on corpus id, newest first.
func (s *Server) corpusModels(ctx context.Context, id string) ([]*store.ModelRow, error) {
	all, err := s.store.Models(ctx)
	if err != nil {
		return nil, err
	}
	var out []*store.ModelRow
	for _, m := range all {
		if m.CorpusID == id {
			out = append(out, m)
		}
	}
	return out, nil
}

// modelList names models as “name” (id), joined by commas.
// refuseTraining is the 409 that keeps a corpus or group (what, id) whose
// models ms include one in training, naming those models; nil when none
// trains.
func refuseTraining(what, id string, ms []*store.ModelRow) error {
	var training []*store.ModelRow
	for _, m := range ms {
		if m.State == store.ModelTraining {
			training = append(training, m)
		}
	}
	if len(training) == 0 {
		return nil
	}
	verb := "are"
	if len(training) == 1 {
		verb = "is"
	}
	return app.Conflict("%s %q: %s %s training; cancel the training first (nothing was deleted)", what, id, modelList(training), verb)
}

func modelList(ms []*store.ModelRow) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = fmt.Sprintf("%q (%s)", m.Name, m.ID)
	}
	return strings.Join(names, ", ")
}

// corpusInUseErr is the 409 refusing to delete corpus id that the models used
// use: it names every one of them.
func corpusInUseErr(id string, used []*store.ModelRow) error {
	if len(used) == 1 {
		return app.Conflict("corpus %q is used by model %s; delete the model first, or delete the corpus with its model", id, modelList(used))
	}
	return app.Conflict("corpus %q is used by %d models: %s; delete the models first, or delete the corpus with its models", id, len(used), modelList(used))
}

// deleteModel deletes a model that is not training (409 otherwise) with its
// file, its stored maps and everything cached of it.
func (s *Server) deleteModel(ctx context.Context, m *store.ModelRow) error {
	if m.State == store.ModelTraining {
		return app.Conflict("model %q is training; cancel job %q first", m.ID, m.JobID)
	}
	if err := s.store.DeleteModel(ctx, m.ID); err != nil {
		if errors.Is(err, store.ErrModelBusy) { // restarted since it was read
			return app.Conflict("model %q is training; cancel its job first", m.ID)
		}
		return notFound(err, "model", m.ID)
	}
	s.models.drop(m.ID)
	s.maps.dropModel(m.ID)
	s.centroids.dropModel(m.ID)
	s.ctxDocs.Delete(m.ID)
	return nil
}

// deleteCorpusWithModels deletes the models trained on corpus id, then the
// corpus. It deletes nothing when one of them is training (409 naming them
// all); a model that starts training while the others are deleted stops it
// with a 409, the corpus kept.
func (s *Server) deleteCorpusWithModels(ctx context.Context, id string) error {
	if _, err := s.store.Corpus(ctx, id); err != nil {
		return notFound(err, "corpus", id)
	}
	used, err := s.corpusModels(ctx, id)
	if err != nil {
		return err
	}
	if err := refuseTraining("corpus", id, used); err != nil {
		return err
	}
	for _, m := range used {
		if err := s.deleteModel(ctx, m); err != nil {
			return err
		}
	}
	return s.deleteCorpus(ctx, id)
}

package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// maxSeedGroup bounds the models of one seed group (the train form's "Seeds").
const maxSeedGroup = 10

// createGroupReq is the body of POST /api/groups: the training of Seeds
// models on one corpus with the same parameters and the seeds Seed, Seed+1, ….
type createGroupReq struct {
	CorpusID string       `json:"corpus_id"`
	Name     string       `json:"name"`
	Seed     *uint64      `json:"seed"`
	Seeds    int          `json:"seeds"`
	Params   *trainParams `json:"params"`
}

// createGroup stores a seed group and starts the trainings of its members:
// the use case behind POST /api/groups and the training form's "Seeds". The
// group and its first member are stored with the first member's job, in one
// transaction, so nothing is stored when that job is refused; a later
// refusal (a full queue) leaves the group with the members whose trainings
// started, and its error says so.
func (s *Server) createGroup(ctx context.Context, req createGroupReq) (*store.GroupRow, []*store.JobRow, error) {
	n := req.Seeds
	if n < 2 || n > maxSeedGroup {
		return nil, nil, app.BadInput("seeds", "must be an integer in 2..%d (one model: POST /api/models)", maxSeedGroup)
	}
	first := uint64(1)
	if req.Seed != nil {
		first = *req.Seed
	}
	if first > math.MaxUint64-uint64(n-1) {
		return nil, nil, app.BadInput("seed", "%d seeds from %d pass the largest seed", n, first)
	}
	name := strings.TrimSpace(req.Name)
	if len(name) > 200 {
		return nil, nil, app.BadInput("name", "is longer than 200 bytes")
	}
	g := &store.GroupRow{}
	var jobs []*store.JobRow
	for k := range n {
		seed := first + uint64(k)
		r := createModelReq{CorpusID: req.CorpusID, Seed: &seed, Params: req.Params}
		if name != "" {
			r.Name = fmt.Sprintf("%s · seed %d", name, seed)
		}
		m, corpus, err := s.newModelRow(ctx, r)
		if err != nil {
			return nil, nil, err // the first member: nothing is stored yet
		}
		if k == 0 {
			g.CorpusID, g.Params, g.Name = corpus.ID, m.Params, name
			if g.Name == "" {
				g.Name = groupName(corpus.Name, m.Params, first, n)
			}
		}
		job, err := s.submitTraining(m, func(tx *store.Tx, job *store.JobRow) error {
			m.JobID = job.ID
			if k == 0 {
				if err := tx.InsertGroup(s.root, g); err != nil {
					return err
				}
			}
			if err := tx.InsertModel(s.root, m); err != nil {
				return err
			}
			return tx.AddGroupMember(s.root, g.ID, m.ID, k)
		})
		if err != nil {
			if k == 0 {
				return nil, nil, err
			}
			return g, jobs, partialGroupErr(g, k, n, first, err)
		}
		g.Members = append(g.Members, m)
		jobs = append(jobs, job)
	}
	return g, jobs, nil
}

// partialGroupErr is the refusal of a group's member k of n after the
// first k started: the refusal (its kind, and so its status) with what was
// stored.
func partialGroupErr(g *store.GroupRow, k, n int, first uint64, err error) error {
	return fmt.Errorf("seed group %q holds %d of the %d models asked for (seeds %d–%d), whose trainings started; the next was refused: %w",
		g.ID, k, n, first, first+uint64(k-1), err)
}

// groupName is a group's default name: its corpus, the parameters that are
// not defaults, and its seeds.
func groupName(corpusName string, params []byte, first uint64, n int) string {
	var m map[string]any
	settings := "defaults"
	if err := jsonUnmarshal(params, &m); err == nil && len(m) > 0 {
		parts := make([]string, 0, len(m))
		for _, kv := range kvs(m) {
			parts = append(parts, kv.Key+" "+kv.Value)
		}
		settings = strings.Join(parts, ", ")
		if len(settings) > 120 {
			cut := 117
			for cut > 0 && !isRuneStart(settings[cut]) {
				cut--
			}
			settings = settings[:cut] + "…"
		}
	}
	return fmt.Sprintf("%s · %s · seeds %d–%d", corpusName, settings, first, first+uint64(n-1))
}

// isRuneStart reports whether b starts a UTF-8 encoded rune.
func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// deleteGroup deletes group id. withModels deletes its models too (their
// files, maps and caches), and then refuses with a 409 naming them when one
// of them trains, deleting nothing; without it the models stay, in no
// group.
func (s *Server) deleteGroup(ctx context.Context, id string, withModels bool) error {
	g, err := s.store.Group(ctx, id)
	if err != nil {
		return notFound(err, "group", id)
	}
	if withModels {
		if err := refuseTraining("group", id, g.Members); err != nil {
			return err
		}
		for _, m := range g.Members {
			if err := s.deleteModel(ctx, m); err != nil {
				return err
			}
		}
	}
	// Deleting its last model deleted the group.
	if err := s.store.DeleteGroup(ctx, id); err != nil && !(withModels && errors.Is(err, store.ErrNotFound)) {
		return notFound(err, "group", id)
	}
	return nil
}

// liveJobs are the jobs queued or running, by id, from memory.
func (s *Server) liveJobs() map[string]jobs.Live {
	out := map[string]jobs.Live{}
	for _, j := range s.jobs.Active() {
		out[j.Row.ID] = j
	}
	return out
}

package server

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/server/store"
)

type groupsAPI struct{ s *Server }

// groupJSON is the API form of a seed group.
type groupJSON struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	CorpusID  string            `json:"corpus_id"`
	Params    any               `json:"params"`
	CreatedAt string            `json:"created_at"`
	Models    []groupMemberJSON `json:"models"`
}

// groupMemberJSON is a member of a group: its model and, while its training
// job is queued or running, the job's state, progress and message (a queued
// job's says its place in the queue).
type groupMemberJSON struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Seed        uint64  `json:"seed"`
	State       string  `json:"state"`
	JobID       string  `json:"job_id"`
	JobState    string  `json:"job_state,omitempty"`
	JobProgress float64 `json:"job_progress,omitempty"`
	JobMessage  string  `json:"job_message,omitempty"`
}

// groupsJSON is the API form of groups, with the jobs at work of their
// members.
func (s *Server) groupsJSON(gs []*store.GroupRow) []groupJSON {
	jobs := s.liveJobs()
	out := make([]groupJSON, 0, len(gs))
	for _, g := range gs {
		gj := groupJSON{ID: g.ID, Name: g.Name, CorpusID: g.CorpusID, Params: g.Params,
			CreatedAt: g.CreatedAt.UTC().Format(time.RFC3339), Models: []groupMemberJSON{}}
		for _, m := range g.Members {
			mj := groupMemberJSON{ID: m.ID, Name: m.Name, Seed: m.Seed, State: m.State, JobID: m.JobID}
			if j, ok := jobs[m.JobID]; ok {
				mj.JobState, mj.JobProgress, mj.JobMessage = j.Row.State, j.Row.Progress, j.Row.Message
			}
			gj.Models = append(gj.Models, mj)
		}
		out = append(out, gj)
	}
	return out
}

// create: POST /api/groups → 202 {"group_id","model_ids","job_ids"}.
func (h *groupsAPI) create(c echo.Context) error {
	var req createGroupReq
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	g, jobs, err := h.s.createGroup(c.Request().Context(), req)
	if err != nil {
		return err
	}
	jobIDs := make([]string, len(jobs))
	for i, j := range jobs {
		jobIDs[i] = j.ID
	}
	return c.JSON(http.StatusAccepted, map[string]any{"group_id": g.ID, "model_ids": g.ModelIDs(), "job_ids": jobIDs})
}

// list: GET /api/groups — every group, newest first.
func (h *groupsAPI) list(c echo.Context) error {
	gs, err := h.s.store.Groups(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.s.groupsJSON(gs))
}

func (h *groupsAPI) get(c echo.Context) error {
	id := c.Param("id")
	g, err := h.s.store.Group(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "group", id)
	}
	return c.JSON(http.StatusOK, h.s.groupsJSON([]*store.GroupRow{g})[0])
}

// delete: DELETE /api/groups/:id[?with_models=1] → 204; with_models=1
// deletes the group's models too (409 while one of them trains).
func (h *groupsAPI) delete(c echo.Context) error {
	if err := h.s.deleteGroup(c.Request().Context(), c.Param("id"), c.QueryParam("with_models") == "1"); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

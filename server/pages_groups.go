package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/textlist"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// groupsOnModelsPage is how many seed groups the models page lists (the
// newest); every group has its page.
const groupsOnModelsPage = 20

// groupVMs are the views of groups with their members; with live, each
// member's job while it is queued or running (its widget follows it).
func (p *pages) groupVMs(c echo.Context, gs []*store.GroupRow, names map[string]string, live bool) ([]views.Group, error) {
	jobs := map[string]jobs.Live{}
	if live {
		jobs = p.s.liveJobs()
	}
	out := make([]views.Group, 0, len(gs))
	for _, g := range gs {
		vm := views.Group{ID: g.ID, Name: g.Name, CorpusID: g.CorpusID, CorpusName: names[g.CorpusID], Created: fmtTime(g.CreatedAt)}
		if vm.CorpusName == "" {
			vm.CorpusName = "(deleted)"
		}
		if len(g.Params) > 0 { // a stored group
			var params map[string]any
			if err := jsonUnmarshal(g.Params, &params); err != nil {
				return nil, fmt.Errorf("group %s: stored parameters: %w", g.ID, err)
			}
			vm.Params = kvs(params)
			if len(params) == 0 {
				vm.Params = []views.KV{{Key: "(all)", Value: "defaults"}}
			}
		}
		for _, m := range g.Members {
			gm := views.GroupMember{Model: newModelVM(m, names, nil), Seed: m.Seed}
			if j, ok := jobs[m.JobID]; ok {
				gm.Model.JobState = j.Row.State
				gm.Job = jobVM(j.Row, j.ETA, "", "")
			}
			vm.Members = append(vm.Members, gm)
		}
		out = append(out, vm)
	}
	return out, nil
}

// modelsPageGroups are the newest seed groups the models page lists, with
// their members' states.
func (p *pages) modelsPageGroups(c echo.Context) ([]views.Group, error) {
	gs, err := p.s.store.Groups(c.Request().Context(), groupsOnModelsPage)
	if err != nil || len(gs) == 0 {
		return nil, err
	}
	_, names, err := p.corpusVMs(c)
	if err != nil {
		return nil, err
	}
	return p.groupVMs(c, gs, names, false)
}

// group: GET /groups/:id — a seed group: its members' live progress, the
// comparison of the group once they are ready, its deletion.
func (p *pages) group(c echo.Context) error {
	id := c.Param("id")
	g, err := p.s.store.Group(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "group", id)
	}
	_, names, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	vms, err := p.groupVMs(c, []*store.GroupRow{g}, names, true)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.GroupPageView(views.GroupPage{Group: vms[0]}))
}

// deleteGroup: DELETE /groups/:id[?with_models=1] from the group page's
// buttons (htmx, with the page's CSRF token): the group alone, or with its
// models. Deleted, htmx goes to the models page (HX-Redirect); a refusal is
// the error handler's error box.
func (p *pages) deleteGroup(c echo.Context) error {
	if err := p.s.deleteGroup(context0(c), c.Param("id"), c.QueryParam("with_models") == "1"); err != nil {
		return err
	}
	c.Response().Header().Set("HX-Redirect", "/models")
	return c.NoContent(http.StatusNoContent)
}

// compareGroup is the seed group the compare page's group parameter names,
// with its members' live progress, and the ids of its members: a stored
// group's id, or (as older links have it) the comma-separated ids of the
// models; nil when the parameter is empty.
func (p *pages) compareGroup(c echo.Context, param string, names map[string]string) (*views.Group, []string, error) {
	ids := textlist.Split(param)
	if len(ids) == 0 {
		return nil, nil, nil
	}
	ctx := c.Request().Context()
	g, err := p.s.store.Group(ctx, ids[0])
	switch {
	case err == nil && len(ids) == 1:
	case errors.Is(err, store.ErrNotFound) || err == nil:
		// A list of models: a group of no stored row.
		g = &store.GroupRow{}
		for _, id := range ids {
			m, err := p.s.store.Model(ctx, id)
			if err != nil {
				return nil, nil, notFound(err, "model", id)
			}
			g.Members = append(g.Members, m)
		}
	default:
		return nil, nil, err
	}
	vms, err := p.groupVMs(c, []*store.GroupRow{g}, names, true)
	if err != nil {
		return nil, nil, err
	}
	return &vms[0], g.ModelIDs(), nil
}

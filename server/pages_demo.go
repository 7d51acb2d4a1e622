package server

import (
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// demoTraining is the live progress of the demo model's training while it
// is queued or running, nil otherwise: the pages that have no model to show
// before it is ready (home, explorer, priming) say so instead of "no model";
// done is the page loaded when it is ready.
func (p *pages) demoTraining(c echo.Context, done string) (*views.Job, error) {
	ctx := c.Request().Context()
	m, err := p.s.store.TrainingDemoModel(ctx)
	if err != nil || m == nil || m.JobID == "" {
		return nil, err
	}
	j, eta, err := p.s.jobs.Get(ctx, m.JobID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && j.Finished()) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return jobVM(j, eta, "", done), nil
}

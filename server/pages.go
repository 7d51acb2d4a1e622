package server

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// pages renders the HTML pages; all data comes from the same store and helpers
// as the JSON API.
type pages struct{ s *Server }

func fmtTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

func fmtSize(n int64) string {
	switch {
	case n <= 0:
		return "—"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func corpusVM(r *store.CorpusRow) views.Corpus {
	format := r.Format
	if format == "" {
		format = "built-in"
	}
	return views.Corpus{ID: r.ID, Name: r.Name, Format: format, Detected: r.Detected, Created: fmtTime(r.CreatedAt), Docs: r.Docs, Tags: r.Tags, Builtin: r.Builtin}
}

func (p *pages) corpusVMs(c echo.Context) ([]views.Corpus, map[string]string, error) {
	rows, err := p.s.store.Corpora(c.Request().Context())
	if err != nil {
		return nil, nil, err
	}
	out := make([]views.Corpus, len(rows))
	names := map[string]string{}
	for i, r := range rows {
		out[i] = corpusVM(r)
		names[r.ID] = r.Name
	}
	return out, names, nil
}

func (p *pages) modelVMs(c echo.Context) ([]views.Model, error) {
	// The models with their jobs' stored states in one query, the states
	// of the jobs at work from memory.
	return p.modelPage(c, 0, 0)
}

// modelPage is modelVMs for at most limit models (0: all) from the offset-th.
func (p *pages) modelPage(c echo.Context, limit, offset int) ([]views.Model, error) {
	rows, err := p.s.store.ModelList(c.Request().Context(), limit, offset)
	if err != nil {
		return nil, err
	}
	_, names, err := p.corpusVMs(c)
	if err != nil {
		return nil, err
	}
	live := p.s.jobs.LiveStates()
	out := make([]views.Model, len(rows))
	for i, r := range rows {
		out[i] = newModelVM(r, names, nil)
		if st, ok := live[r.JobID]; ok {
			out[i].JobState = st
		} else {
			out[i].JobState = r.JobState
		}
	}
	return out, nil
}

// modelVM is the view of one model row (a model page).
func (p *pages) modelVM(c echo.Context, r *store.ModelRow, names map[string]string) views.Model {
	var job *store.JobRow
	if r.JobID != "" {
		if j, _, err := p.s.jobs.Get(c.Request().Context(), r.JobID); err == nil {
			job = j
		}
	}
	return newModelVM(r, names, job)
}

// newModelVM is the view of a model row with its corpus names and its job
// (nil when it has none).
func newModelVM(r *store.ModelRow, names map[string]string, job *store.JobRow) views.Model {
	vm := views.Model{ID: r.ID, Name: r.Name, CorpusID: r.CorpusID, CorpusName: names[r.CorpusID], State: r.State,
		Created: fmtTime(r.CreatedAt), Size: fmtSize(r.Size), JobID: r.JobID, Error: r.Error}
	if vm.CorpusName == "" {
		vm.CorpusName = "(deleted)"
	}
	if job != nil {
		vm.JobState = job.State
	}
	return vm
}

func jobVM(j *store.JobRow, eta float64, chartID, doneURL string) *views.Job {
	return &views.Job{ID: j.ID, Kind: j.Kind, State: j.State, Stage: j.Stage, Message: j.Message, Progress: j.Progress,
		ETA: eta, ChartID: chartID, DoneURL: doneURL}
}

func (p *pages) home(c echo.Context) error {
	ctx := c.Request().Context()
	// Counts, not lists: the page costs the same however many models and
	// evaluations there are.
	var vm views.HomePage
	var err error
	vm.Corpora, vm.Models, vm.Evals, vm.DemoModelID, err = p.s.store.Counts(ctx)
	if err != nil {
		return err
	}
	vm.DemoReady = vm.DemoModelID != ""
	if vm.DemoReady {
		if vm.Verdict, err = p.s.demoVerdict(ctx, vm.DemoModelID); err != nil {
			return err
		}
	}
	// While the demo model trains, the page says so with its progress.
	if vm.DemoTraining, err = p.demoTraining(c, "/"); err != nil {
		return err
	}
	// The jobs at work, from memory: the page costs the same after 10,000 jobs.
	for _, j := range p.s.jobs.Active() {
		if vm.DemoTraining != nil && j.Row.ID == vm.DemoTraining.ID {
			continue // shown above
		}
		done := ""
		if j.Row.Kind == "train" {
			done = "/models/" + j.Row.TargetID
		}
		vm.Jobs = append(vm.Jobs, *jobVM(j.Row, j.ETA, "", done))
	}
	return render(c, http.StatusOK, views.HomePageView(vm))
}

func (p *pages) corpora(c echo.Context) error {
	cs, _, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.CorporaPageView(views.CorporaPage{Corpora: cs, MaxUpload: fmtSize(p.s.cfg.MaxUpload)}))
}

// upload: POST /corpora — the htmx upload form; answers a fragment (or, without
// htmx, redirects to the new corpus).
func (p *pages) upload(c echo.Context) error {
	row, _, err := p.s.uploadCorpus(c)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			err = app.TooLarge("upload too large: the limit is %s", fmtSize(mb.Limit))
		}
		if code, msg, known := errStatus(err); known && c.Request().Header.Get("HX-Request") == "true" {
			return errorBox(c, code, msg)
		}
		return err
	}
	if c.Request().Header.Get("HX-Request") != "true" {
		return c.Redirect(http.StatusSeeOther, "/corpora/"+row.ID)
	}
	all, _, err := p.corpusVMs(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.UploadOK(corpusVM(row), all))
}

// deleteCorpus: DELETE /corpora/:id[?with_models=1] from the corpus page's
// buttons (htmx, with the page's CSRF token). Deleted, htmx goes to the list
// (HX-Redirect). Refused because models use the corpus, the answer (status
// in X-Status) names them all and offers to delete the corpus with its
// models (with_models=1: deleteCorpusWithModels, which refuses while one
// trains); other refusals are the error handler's error box.
func (p *pages) deleteCorpus(c echo.Context) error {
	ctx, id := context0(c), c.Param("id")
	if c.QueryParam("with_models") == "1" {
		if err := p.s.deleteCorpusWithModels(ctx, id); err != nil {
			return err
		}
	} else if err := p.s.deleteCorpus(ctx, id); err != nil {
		if !errors.Is(err, app.ErrConflict) || c.Request().Header.Get("HX-Request") != "true" {
			return err
		}
		used, uerr := p.s.corpusModels(ctx, id)
		cr, cerr := p.s.store.Corpus(ctx, id)
		if uerr != nil || cerr != nil || len(used) == 0 {
			return err
		}
		_, names, nerr := p.corpusVMs(c)
		if nerr != nil {
			return nerr
		}
		vm := views.CorpusInUseView{Message: err.Error(), Corpus: corpusVM(cr)}
		for _, m := range used {
			vm.Models = append(vm.Models, p.modelVM(c, m, names))
		}
		setXStatus(c, err)
		return render(c, http.StatusOK, views.CorpusInUse(vm))
	}
	c.Response().Header().Set("HX-Redirect", "/corpora")
	return c.NoContent(http.StatusNoContent)
}

func (p *pages) corpus(c echo.Context) error {
	id := c.Param("id")
	r, err := p.s.store.Corpus(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "corpus", id)
	}
	top := r.Stats.TagCounts
	if len(top) > 60 {
		top = top[:60]
	}
	vm := views.CorpusPage{Corpus: corpusVM(r), MeanTags: r.Stats.MeanTags, LeftOut: leftOut(r.Stats),
		TagUse: tagUseChart("taguse", r.Stats), Cardinality: cardinalityChart("cardinality", r.Stats.Cardinality)}
	for _, t := range top {
		vm.TopTags = append(vm.TopTags, views.TagCount{Tag: t.Tag, Count: t.Count})
	}
	if sz := r.SplitSizes; sz.Train > 0 {
		vm.Split = fmt.Sprintf("the corpus's own: %d train, %d valid, %d test, %d OOV documents", sz.Train, sz.Valid, sz.Test, sz.OOV)
	} else {
		vm.Split = "none given; training draws a seeded random split (2/3 train, a validation set, the rest test)"
	}
	return render(c, http.StatusOK, views.CorpusPageView(vm))
}

package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/store"
)

// TestBrowserMapWhileTraining: with two slots and two long trainings running
// (a third one queued), the whole-space map of a trained model opened in
// Chromium is computed and drawn within 60 s (its jobs have a lane of their
// own; before, the map waited behind every training), and the queued
// training's job says its place in the queue and why it waits, in
// /api/jobs/{id} and on its model page.
func TestBrowserMapWhileTraining(t *testing.T) {
	ctx := browser(t)
	if testing.Short() {
		t.Skip("trains models")
	}
	ts := newTestServer(t, Config{TrainSlots: 2})
	dc, _ := corpus.Demo(corpus.DemoSeed)
	row, err := ts.store.InsertCorpus(t.Context(), dc, store.StatsOf(dc), corpus.DemoSplit(dc), true)
	if err != nil {
		t.Fatal(err)
	}
	c := row.ID
	train := func(params string) (model, job string) {
		t.Helper()
		rec := ts.doJSON(http.MethodPost, "/api/models", `{"corpus_id":"`+c+`","params":`+params+`}`)
		if rec.Code != http.StatusAccepted {
			t.Fatalf("training: %d %s", rec.Code, rec.Body)
		}
		ids := decode[map[string]string](t, rec)
		return ids["model_id"], ids["job_id"]
	}
	fast, _ := json.Marshal(fastParams.Config)
	model, job := train(string(fast))
	if j := ts.waitJob(job); j.State != store.JobDone {
		t.Fatalf("training: %s %s", j.State, j.Message)
	}
	// Long trainings: no early stop, at most 10 minutes each.
	long := `{"max_epochs1":1000,"max_epochs2":1000,"patience":1000,"max_time_seconds":600}`
	var jobs []string
	for range 3 {
		_, j := train(long)
		jobs = append(jobs, j)
	}
	var queuedModel, queuedJob string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var running []*store.JobRow
		var queued *store.JobRow
		for _, id := range jobs {
			j, _, _ := ts.jobs.Get(t.Context(), id)
			switch {
			case j.State == store.JobRunning && j.Progress > 0:
				running = append(running, j)
			case j.State == store.JobQueued:
				queued = j
			}
		}
		if len(running) == 2 && queued != nil {
			queuedModel, queuedJob = queued.TargetID, queued.ID
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("two trainings did not start within 30 s (%d running)", len(running))
		}
	}
	defer func() {
		for _, j := range jobs {
			ts.doJSON(http.MethodDelete, "/api/jobs/"+j, "")
		}
	}()
	base := liveServer(t, ts)
	start := time.Now()
	step(t, ctx, "explorer", time.Minute, openMap(base+"/explorer?view=space&model="+model), chromedp.WaitVisible(tid("space-map")))
	waitJS(t, ctx, "the whole-space map drawn while two trainings run", 60*time.Second,
		`document.querySelector('[data-testid="space-map"]').getAttribute("data-ready") === "true"`)
	t.Logf("whole-space map drawn %.1f s after the page was asked for, while two trainings ran", time.Since(start).Seconds())
	for _, j := range jobs {
		if r, _, _ := ts.jobs.Get(t.Context(), j); j != queuedJob && r.State != store.JobRunning {
			t.Errorf("training %s: %s, want still running (the map did not wait for it)", j, r.State)
		}
	}

	// The third training waits and says where and why.
	rec := ts.doJSON(http.MethodGet, "/api/jobs/"+queuedJob, "")
	var qj struct{ State, Message string }
	if err := json.Unmarshal(rec.Body.Bytes(), &qj); err != nil {
		t.Fatal(err)
	}
	if qj.State != store.JobQueued || !strings.Contains(qj.Message, "position 1 of 1") || !strings.Contains(qj.Message, "2 trainings") {
		t.Errorf("queued training in /api/jobs: %s %q, want queued naming position 1 of 1 and the 2 trainings running", qj.State, qj.Message)
	}
	step(t, ctx, "model page", 30*time.Second, chromedp.Navigate(base+"/models/"+queuedModel), chromedp.WaitVisible(tid("job-progress")))
	msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="job-progress"] [data-role="message"]').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "position 1 of 1") {
		t.Errorf("queued training's page progress says %q, want its position in the queue", msg)
	}
}

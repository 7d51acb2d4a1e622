package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/server/store"
)

// TestBrowserCancelTraining cancels a training from its model page in
// Chromium: the first click only asks to confirm ("Keep it running" takes it
// back), the second cancels; the state chip then reads "cancelled" without a
// reload (not "interrupted", which is for a server's stop), as does the API,
// and "Train again" appears and starts the training again.
func TestBrowserCancelTraining(t *testing.T) {
	ctx := browser(t)
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	rec := ts.doJSON(http.MethodPost, "/api/models", `{"corpus_id":"`+c.ID+`","params":{"max_time_seconds":120,"max_epochs1":1000,"patience":1000,"pretrain_iterations":-1}}`)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	ids := decode[map[string]string](t, rec)
	model, job := ids["model_id"], ids["job_id"]
	defer ts.doJSON(http.MethodDelete, "/api/jobs/"+job, "")
	base := liveServer(t, ts)
	step(t, ctx, "model page", 30*time.Second, chromedp.Navigate(base+"/models/"+model), chromedp.WaitVisible(tid("cancel-job")))
	// A mark that a reload would lose.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.noReload = true`)); err != nil {
		t.Fatal(err)
	}
	jobState := func() string {
		j, _, err := ts.jobs.Get(t.Context(), job)
		if err != nil {
			t.Fatal(err)
		}
		return j.State
	}
	text := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="`+id+`"]') || {}).textContent || ""`))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(s)
	}
	step(t, ctx, "first click", 10*time.Second, chromedp.Click(tid("cancel-job")))
	time.Sleep(time.Second)
	if s := jobState(); s != store.JobQueued && s != store.JobRunning {
		t.Fatalf("one click on Cancel: the job is %s, want it still running until confirmed", s)
	}
	if got := text("cancel-job"); !strings.Contains(got, "Yes, cancel") {
		t.Errorf("Cancel after one click reads %q, want it to ask to confirm", got)
	}
	step(t, ctx, "keep it running", 10*time.Second, chromedp.Click(tid("cancel-keep")), chromedp.WaitNotVisible(tid("cancel-keep")))
	if got := text("cancel-job"); got != "Cancel" {
		t.Errorf("after Keep it running the button reads %q, want Cancel", got)
	}
	step(t, ctx, "cancel, confirmed", 10*time.Second, chromedp.Click(tid("cancel-job")), chromedp.Click(tid("cancel-job")))
	waitJS(t, ctx, "the state chip reads cancelled", 30*time.Second,
		`document.querySelector('[data-testid="model-state"]').textContent.trim() === "cancelled"`)
	waitJS(t, ctx, "Train again shown", 10*time.Second, `(function () {
		var b = document.querySelector('[data-testid="train-again"]'); return !!b && !b.hidden && b.getBoundingClientRect().height > 0; })()`)
	if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.noReload === true`)); !ok {
		t.Error("the page reloaded to show the cancelled state")
	}
	if got := text("job-progress"); !strings.Contains(got, "cancelled") || strings.Contains(got, "interrupted") {
		t.Errorf("the job's progress reads %q, want cancelled", got)
	}
	if m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+model, "")); m.State != store.ModelCancelled {
		t.Errorf("model state in the API: %s, want cancelled", m.State)
	}
	// A reload says the same, and Train again trains it again.
	step(t, ctx, "reload", 30*time.Second, chromedp.Reload(), chromedp.WaitVisible(tid("train-again")))
	if got := text("model-state"); got != "cancelled" {
		t.Errorf("after a reload the state reads %q, want cancelled", got)
	}
	step(t, ctx, "train again", 30*time.Second, chromedp.Click(tid("train-again")), chromedp.WaitVisible(tid("cancel-job")))
	m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+model, ""))
	if m.State != store.ModelTraining || m.JobID == job {
		t.Errorf("after Train again: model %s under job %s, want training under a new job", m.State, m.JobID)
	}
	ts.doJSON(http.MethodDelete, "/api/jobs/"+m.JobID, "")
}

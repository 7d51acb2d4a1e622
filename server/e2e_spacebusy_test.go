package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/store"
)

// TestBrowserSpaceMapBesideTrainings (issue 31): with two trainings running
// on the real training path — budgets in epochs and examples, never seconds,
// enough to keep both cores busy well past the test — the whole-space map of
// an already trained model, requested from the explorer in Chromium with its
// "Compute" button, is drawn within 30 s of the click, and both trainings are
// still running when it is. Should the page show the map's job waiting, its
// message must say the job's place in the queue.
func TestBrowserSpaceMapBesideTrainings(t *testing.T) {
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
	train := func(cfg ce.Config) (model, job string) {
		t.Helper()
		pj, _ := json.Marshal(map[string]any{"corpus_id": row.ID, "params": cfg})
		rec := ts.doJSON(http.MethodPost, "/api/models", string(pj))
		if rec.Code != http.StatusAccepted {
			t.Fatalf("training: %d %s", rec.Code, rec.Body)
		}
		ids := decode[map[string]string](t, rec)
		return ids["model_id"], ids["job_id"]
	}
	model, job := train(fastParams.Config)
	if j := ts.waitJob(job); j.State != store.JobDone {
		t.Fatalf("training: %s %s", j.State, j.Message)
	}

	// Two long trainings: the default network, 300 + 300 epochs of 20,000
	// examples and pairs with a patience that never stops them early — many
	// minutes on 2 cores (27 % done after a minute, measured),
	// whatever the machine's speed within reason. The map is asked for once
	// both are in their first stage, and they are cancelled at the end.
	long := ce.Config{MaxEpochs1: 300, MaxEpochs2: 300, Patience: 600, EpochExamples: 20000,
		PretrainIterations: -1, Alpha: 0.1, Lambda: 2, Topics: 8}
	var trainings []string
	for range 2 {
		_, j := train(long)
		trainings = append(trainings, j)
	}
	t.Cleanup(func() {
		for _, j := range trainings {
			ts.doJSON(http.MethodDelete, "/api/jobs/"+j, "")
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		n := 0
		for _, id := range trainings {
			if j, _, _ := ts.jobs.Get(t.Context(), id); j.State == store.JobRunning && j.Stage == "stage1" {
				n++
			}
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("two trainings did not reach their first stage within 30 s (%d there)", n)
		}
	}

	base := liveServer(t, ts)
	step(t, ctx, "the whole-space explorer", time.Minute, chromedp.Navigate(base+"/explorer?view=space&model="+model))
	state, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (string, error) {
		return mapState(ctx, tg, func(s string) bool { return s != "" })
	})
	if err == nil && state != "compute" {
		t.Fatalf("the whole-space map of a new model: the page says %q, want its \"Compute\" button", state)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Click(tid("map-compute-submit"))); err != nil {
		t.Fatal(err)
	}
	start := time.Now()

	// Wait for the map, reading the page's status as it goes.
	const limit = 30 * time.Second
	var waiting string // the page's last "Waiting to compute …" message
	for {
		var s struct{ State, Status string }
		ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err = chromedp.Run(ectx, chromedp.Evaluate[struct{ State, Status string }](`(function () {
			var st = document.querySelector('[data-testid="space-status"]');
			return {State: `+mapPageState+`, Status: st ? st.textContent : ""};
		})()`))
		cancel()
		if err == nil && strings.HasPrefix(s.Status, "Waiting") {
			waiting = s.Status
		}
		if err == nil && s.State == "ready" {
			break
		}
		if time.Since(start) > limit {
			checkWaiting(t, waiting)
			t.Fatalf("the whole-space map was not drawn within %v of the click while two trainings ran (state %q, status %q, err %v)", limit, s.State, s.Status, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(start)
	var progress []string
	for _, id := range trainings {
		j, _, err := ts.jobs.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != store.JobRunning {
			t.Errorf("training %s is %s when the map is drawn, want still running", id, j.State)
		}
		progress = append(progress, j.Message)
	}
	t.Logf("whole-space map drawn %.1f s after the click on Compute, beside two running trainings (%s)", took.Seconds(), strings.Join(progress, "; "))
	checkWaiting(t, waiting)
}

// checkWaiting checks that the explorer's message while a map's job waited,
// if it showed one, says the job's place in the queue.
func checkWaiting(t *testing.T, waiting string) {
	t.Helper()
	if waiting == "" {
		return
	}
	t.Logf("the page said while the map waited: %q", waiting)
	if !strings.Contains(waiting, "position") {
		t.Errorf("the page's waiting message %q does not say the map's place in the queue", waiting)
	}
}

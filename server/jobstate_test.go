package server

import (
	"net/http"
	"sync"
	"testing"

	"github.com/taglens/taglens/server/store"
)

// tinyTSV is a corpus of four documents: too small to split, so its
// trainings fail within milliseconds.
func tinyTSV() []byte {
	return []byte("a\trock\tguitar\nb\tjazz\tpiano\nc\trock\tdrums\nd\tjazz\tbass\n")
}

// TestNoModelStuckTraining fires 500 trainings that fail at once, from
// several clients concurrently: once every job has ended no model may still
// be "training" (the model's job used to be recorded after the job was
// submitted, overwriting the "failed" of a job that had already ended), and
// every model then behaves as failed: its job cannot be cancelled, it
// restarts (and fails again), it is deleted, and then so is the corpus.
func TestNoModelStuckTraining(t *testing.T) {
	const n, clients = 500, 8
	ts := newTestServer(t, Config{TrainSlots: 2, MaxQueued: 2 * n})
	c := decode[corpusJSON](t, ts.upload("tiny.tsv", tinyTSV()))
	body := `{"corpus_id":"` + c.ID + `"}`

	var mu sync.Mutex
	var jobs, models []string
	var wg sync.WaitGroup
	next := make(chan struct{})
	go func() {
		for range n {
			next <- struct{}{}
		}
		close(next)
	}()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				rec := ts.doJSON(http.MethodPost, "/api/models", body)
				if rec.Code != http.StatusAccepted {
					t.Errorf("create: got %d, want 202 (%s)", rec.Code, rec.Body)
					continue
				}
				ids := decode[map[string]string](t, rec)
				mu.Lock()
				jobs, models = append(jobs, ids["job_id"]), append(models, ids["model_id"])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, id := range jobs {
		if j := ts.waitJob(id); j.State != store.JobFailed {
			t.Errorf("job %s: %s (%s), want failed", id, j.State, j.Message)
		}
	}
	stuck := 0
	for _, m := range decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")) {
		if m.State != store.ModelFailed {
			stuck++
			t.Errorf("model %s: state %s after its job %s ended, want failed", m.ID, m.State, m.JobID)
		}
	}
	if stuck > 0 {
		t.Fatalf("%d of %d models not failed after every job ended", stuck, n)
	}

	// Every model behaves as failed.
	wantError(t, ts.doJSON(http.MethodDelete, "/api/jobs/"+jobs[0], ""), http.StatusConflict, "already finished")
	rec := ts.doJSON(http.MethodPost, "/api/models/"+models[0]+"/restart", "")
	if rec.Code != http.StatusAccepted {
		t.Fatalf("restart: got %d, want 202 (%s)", rec.Code, rec.Body)
	}
	if j := ts.waitJob(decode[map[string]string](t, rec)["job_id"]); j.State != store.JobFailed {
		t.Errorf("restarted job: %s, want failed", j.State)
	}
	if m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+models[0], "")); m.State != store.ModelFailed {
		t.Errorf("restarted model: %s, want failed", m.State)
	}
	for _, id := range models {
		if rec := ts.doJSON(http.MethodDelete, "/api/models/"+id, ""); rec.Code != http.StatusNoContent {
			t.Fatalf("delete model %s: got %d (%s)", id, rec.Code, rec.Body)
		}
	}
	if rec := ts.doJSON(http.MethodDelete, "/api/corpora/"+c.ID, ""); rec.Code != http.StatusNoContent {
		t.Fatalf("delete corpus: got %d (%s)", rec.Code, rec.Body)
	}
}

// TestRestartRace restarts one interrupted model from many clients at once:
// exactly one restart starts a training, the others answer 409 (the state
// check and the move to "training" used to be two steps, so several could
// pass the check), and the model names the job that runs.
func TestRestartRace(t *testing.T) {
	ts := newTestServer(t, Config{TrainSlots: 2})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	long := `{"corpus_id":"` + c.ID + `","params":{"max_time_seconds":60,"max_epochs1":1000,"patience":1000,"pretrain_iterations":-1}}`
	ids := decode[map[string]string](t, ts.doJSON(http.MethodPost, "/api/models", long))
	if rec := ts.doJSON(http.MethodDelete, "/api/jobs/"+ids["job_id"], ""); rec.Code != http.StatusOK {
		t.Fatalf("cancel: got %d (%s)", rec.Code, rec.Body)
	}
	const clients = 16
	var wg sync.WaitGroup
	start := make(chan struct{})
	codes := make([]int, clients)
	started := make([]string, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			rec := ts.doJSON(http.MethodPost, "/api/models/"+ids["model_id"]+"/restart", "")
			codes[i] = rec.Code
			if rec.Code == http.StatusAccepted {
				started[i] = decode[map[string]string](t, rec)["job_id"]
			}
		}()
	}
	close(start)
	wg.Wait()
	var runs []string
	for i, code := range codes {
		switch code {
		case http.StatusAccepted:
			runs = append(runs, started[i])
		case http.StatusConflict:
		default:
			t.Errorf("restart: got %d", code)
		}
	}
	defer func() {
		for _, id := range runs {
			ts.doJSON(http.MethodDelete, "/api/jobs/"+id, "")
		}
	}()
	if len(runs) != 1 {
		t.Fatalf("%d concurrent restarts started %d trainings of one model, want 1", clients, len(runs))
	}
	m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+ids["model_id"], ""))
	if m.State != store.ModelTraining || m.JobID != runs[0] {
		t.Errorf("model after the restart: %s with job %s, want training with job %s", m.State, m.JobID, runs[0])
	}
}

package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/server/store"
)

// stateMachine drives a server's jobs and models and checks, after each
// step, what the store holds and that the API says the same.
type stateMachine struct {
	t  *testing.T
	ts *testServer
}

// stored returns the stored state of job id (with its message) and of model
// mid (with the job it names; "" when it is gone).
func (sm *stateMachine) stored(id, mid string) (job, msg, model, modelJob string) {
	sm.t.Helper()
	ctx := context.Background()
	if id != "" {
		j, err := sm.ts.store.Job(ctx, id)
		if err != nil {
			sm.t.Fatalf("job %s: %v", id, err)
		}
		job, msg = j.State, j.Message
	}
	if mid != "" {
		m, err := sm.ts.store.Model(ctx, mid)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			sm.t.Fatalf("model %s: %v", mid, err)
		default:
			model, modelJob = m.State, m.JobID
		}
	}
	return
}

// want checks after step that job id is stored in state job and model mid
// in state model under job id ("" model: deleted), and that the API's job
// and model (and the job list) read the same. The API is read first: reading a ready model
// whose file is gone marks it failed.
func (sm *stateMachine) want(step, id, job, mid, model string) {
	sm.t.Helper()
	apiJob := decode[jobJSON](sm.t, sm.ts.doJSON(http.MethodGet, "/api/jobs/"+id, "")).State
	rec := sm.ts.doJSON(http.MethodGet, "/api/models/"+mid, "")
	apiModel := ""
	if rec.Code == http.StatusOK {
		apiModel = decode[modelJSON](sm.t, rec).State
	} else if rec.Code != http.StatusNotFound {
		sm.t.Fatalf("%s: GET model %s: %d %s", step, mid, rec.Code, rec.Body)
	}
	listed := ""
	for _, j := range decode[[]jobJSON](sm.t, sm.ts.doJSON(http.MethodGet, "/api/jobs?kind=train", "")) {
		if j.ID == id {
			listed = j.State
		}
	}
	gj, msg, gm, mj := sm.stored(id, mid)
	if listed != gj {
		sm.t.Errorf("%s: the job list says job %s is %q, the store %q", step, id, listed, gj)
	}
	if gj != job || gm != model || (model != "" && mj != id) {
		sm.t.Errorf("%s: stored job %s %q (%s), model %q under job %s; want job %q, model %q under it", step, id, gj, msg, gm, mj, job, model)
	}
	if apiJob != gj || apiModel != gm {
		sm.t.Errorf("%s: the API says job %s is %q and model %s %q, the store %q and %q", step, id, apiJob, mid, apiModel, gj, gm)
	}
}

// until waits up to a minute for job id to be stored in state.
func (sm *stateMachine) until(id, state string) {
	sm.t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if j, _, _, _ := sm.stored(id, ""); j == state {
			return
		}
	}
	j, msg, _, _ := sm.stored(id, "")
	sm.t.Fatalf("job %s: still %s (%s), want %s", id, j, msg, state)
}

// train starts a training (POST /api/models) and returns its job and model.
func (sm *stateMachine) train(body string) (job, model string) {
	sm.t.Helper()
	rec := sm.ts.doJSON(http.MethodPost, "/api/models", body)
	if rec.Code != http.StatusAccepted {
		sm.t.Fatalf("train %s: %d %s", body, rec.Code, rec.Body)
	}
	ids := decode[map[string]string](sm.t, rec)
	return ids["job_id"], ids["model_id"]
}

// restart restarts model mid and returns the new job ("" with want other than 202).
func (sm *stateMachine) restart(mid string, code int) string {
	sm.t.Helper()
	rec := sm.ts.doJSON(http.MethodPost, "/api/models/"+mid+"/restart", "")
	if rec.Code != code {
		sm.t.Fatalf("restart %s: %d %s, want %d", mid, rec.Code, rec.Body, code)
	}
	if code != http.StatusAccepted {
		return ""
	}
	return decode[map[string]string](sm.t, rec)["job_id"]
}

// do sends a body-less request and checks its status.
func (sm *stateMachine) do(method, path string, code int) {
	sm.t.Helper()
	if rec := sm.ts.doJSON(method, path, ""); rec.Code != code {
		sm.t.Fatalf("%s %s: %d %s, want %d", method, path, rec.Code, rec.Body, code)
	}
}

// TestStateMachine drives every state of a job and of the model it trains,
// and every transition between them, checking after each step the states
// the store holds and that the API reads the same:
//
//	queued → running → done (model ready) | failed (failed) | cancelled (cancelled)
//	queued → cancelled; queued, running → interrupted by a shutdown, or by the
//	  death of the process (marked at the next start, with the stage reached);
//	restart of a cancelled, interrupted or failed model (a new job), refused
//	  (409) for a training or ready model; delete of a model in each state,
//	  refused (409) while it trains; cancel of a finished job refused (409);
//	ready → failed when its file is gone, and restarted from there.
//
// Kept in one function: each step starts from the states the previous ones
// left, on one data folder across restarts.
func TestStateMachine(t *testing.T) {
	ts := newTestServer(t, Config{TrainSlots: 1, KeepJobs: -1})
	sm := &stateMachine{t: t, ts: ts}
	cid := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV())).ID
	tiny := decode[corpusJSON](t, ts.upload("tiny.tsv", tinyTSV())).ID
	fp, _ := json.Marshal(fastParams)
	long := `{"corpus_id":"` + cid + `","params":{"max_time_seconds":60,"max_epochs1":1000,"patience":1000,"pretrain_iterations":-1}}`
	fast := `{"corpus_id":"` + cid + `","params":` + string(fp) + `}`
	failing := `{"corpus_id":"` + tiny + `"}`

	// queued → running; a second training waits: queued.
	ja, ma := sm.train(long)
	sm.until(ja, store.JobRunning)
	sm.want("a training started", ja, store.JobRunning, ma, store.ModelTraining)
	jb, mb := sm.train(long)
	sm.want("a second training, one slot", jb, store.JobQueued, mb, store.ModelTraining)
	// A training model is neither restarted nor deleted.
	for _, m := range []string{ma, mb} {
		sm.restart(m, http.StatusConflict)
		sm.do(http.MethodDelete, "/api/models/"+m, http.StatusConflict)
	}
	sm.want("restart and delete refused (running)", ja, store.JobRunning, ma, store.ModelTraining)
	sm.want("restart and delete refused (queued)", jb, store.JobQueued, mb, store.ModelTraining)

	// queued → cancelled, then deleted; a finished job is not cancelled again.
	sm.do(http.MethodDelete, "/api/jobs/"+jb, http.StatusOK)
	sm.want("the queued training cancelled", jb, store.JobCancelled, mb, store.ModelCancelled)
	sm.do(http.MethodDelete, "/api/jobs/"+jb, http.StatusConflict)
	sm.want("a cancelled job cancelled again", jb, store.JobCancelled, mb, store.ModelCancelled)
	sm.do(http.MethodDelete, "/api/models/"+mb, http.StatusNoContent)
	sm.want("the cancelled model deleted", jb, store.JobCancelled, mb, "")

	// running → cancelled, and restarted: a new job trains the same model.
	sm.do(http.MethodDelete, "/api/jobs/"+ja, http.StatusOK)
	sm.want("the running training cancelled", ja, store.JobCancelled, ma, store.ModelCancelled)
	ja2 := sm.restart(ma, http.StatusAccepted)
	sm.until(ja2, store.JobRunning)
	sm.want("the cancelled model restarted", ja2, store.JobRunning, ma, store.ModelTraining)
	if j, _, _, _ := sm.stored(ja, ""); j != store.JobCancelled {
		t.Errorf("the first job of the restarted model: %s, want cancelled", j)
	}

	// running and queued → interrupted by a shutdown; the states stay so
	// after the next start.
	jc, mc := sm.train(long)
	sm.want("a training queued behind the restarted one", jc, store.JobQueued, mc, store.ModelTraining)
	ts.close()
	ts = openTestServer(t, ts.dir, Config{TrainSlots: 1, KeepJobs: -1})
	sm.ts = ts
	sm.want("the running training after a shutdown", ja2, store.JobInterrupted, ma, store.ModelInterrupted)
	sm.want("the queued training after a shutdown", jc, store.JobInterrupted, mc, store.ModelInterrupted)

	// The process dies (no shutdown): its rows still say running and queued.
	// The next start marks them interrupted, saying how far the job got.
	ts.close()
	ctx := context.Background()
	st, err := store.Open(ctx, ts.dir)
	if err != nil {
		t.Fatal(err)
	}
	var died [2]struct{ job, model string }
	for i, state := range []string{store.JobRunning, store.JobQueued} {
		j := &store.JobRow{Kind: "train"}
		if err := st.InsertJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		m := &store.ModelRow{CorpusID: cid, Name: "died " + state, Seed: 1, Params: fp, JobID: j.ID}
		if err := st.InsertModel(ctx, m); err != nil {
			t.Fatal(err)
		}
		j.TargetID = m.ID
		if state == store.JobRunning {
			j.State, j.StartedAt, j.Stage, j.Progress, j.Message = store.JobRunning, time.Now(), "stage1", 0.4, "stage1 epoch 3/10"
			if err := st.UpdateJob(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		died[i].job, died[i].model = j.ID, m.ID
	}
	st.Close()
	ts = openTestServer(t, ts.dir, Config{TrainSlots: 1, KeepJobs: -1})
	sm.ts = ts
	sm.want("a running training after the process died", died[0].job, store.JobInterrupted, died[0].model, store.ModelInterrupted)
	sm.want("a queued training after the process died", died[1].job, store.JobInterrupted, died[1].model, store.ModelInterrupted)
	if _, msg, _, _ := sm.stored(died[0].job, ""); !strings.Contains(msg, "while this job was running, at stage stage1 (40 %); last progress: stage1 epoch 3/10") {
		t.Errorf("the interrupted job's message %q does not say how far it got", msg)
	}
	if _, msg, _, _ := sm.stored(died[1].job, ""); !strings.Contains(msg, "while this job was queued") {
		t.Errorf("the interrupted queued job's message %q does not say it was queued", msg)
	}

	// interrupted → restarted → running → done: the model is ready, its
	// file written; a ready model is not restarted, and is deleted with it.
	jd := sm.restart(died[0].model, http.StatusAccepted)
	sm.until(jd, store.JobDone)
	sm.want("an interrupted model restarted and trained", jd, store.JobDone, died[0].model, store.ModelReady)
	sm.restart(died[0].model, http.StatusConflict)
	sm.do(http.MethodDelete, "/api/jobs/"+jd, http.StatusConflict)
	sm.want("restart of a ready model, cancel of a done job refused", jd, store.JobDone, died[0].model, store.ModelReady)
	file := filepath.Join(ts.dir, store.ModelPath(died[0].model))
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the ready model's file: %v", err)
	}
	sm.do(http.MethodDelete, "/api/models/"+died[0].model, http.StatusNoContent)
	sm.want("the ready model deleted", jd, store.JobDone, died[0].model, "")
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the deleted model's file: %v, want it removed", err)
	}
	// The interrupted ones are deleted too.
	for _, m := range []struct{ job, model string }{{ja2, ma}, {jc, mc}, died[1]} {
		sm.do(http.MethodDelete, "/api/models/"+m.model, http.StatusNoContent)
		sm.want("an interrupted model deleted", m.job, store.JobInterrupted, m.model, "")
	}

	// running → failed; a failed model restarts (and fails again), and is deleted.
	je, me := sm.train(failing)
	sm.until(je, store.JobFailed)
	sm.want("a training that fails", je, store.JobFailed, me, store.ModelFailed)
	je2 := sm.restart(me, http.StatusAccepted)
	sm.until(je2, store.JobFailed)
	sm.want("the failed model restarted, failing again", je2, store.JobFailed, me, store.ModelFailed)
	sm.do(http.MethodDelete, "/api/models/"+me, http.StatusNoContent)
	sm.want("the failed model deleted", je2, store.JobFailed, me, "")

	// ready → failed when its file is gone; restarted from there, ready again.
	jf, mf := sm.train(fast)
	sm.until(jf, store.JobDone)
	sm.want("a training done", jf, store.JobDone, mf, store.ModelReady)
	if err := os.Remove(filepath.Join(ts.dir, store.ModelPath(mf))); err != nil {
		t.Fatal(err)
	}
	sm.want("a ready model whose file is gone", jf, store.JobDone, mf, store.ModelFailed)
	jf2 := sm.restart(mf, http.StatusAccepted)
	sm.until(jf2, store.JobDone)
	sm.want("the broken model trained again", jf2, store.JobDone, mf, store.ModelReady)

	// Nothing is left training, queued or running.
	var training, active int
	if err := ts.store.DB().QueryRow(`SELECT COUNT(*) FROM models WHERE state = ?`, store.ModelTraining).Scan(&training); err != nil {
		t.Fatal(err)
	}
	if err := ts.store.DB().QueryRow(`SELECT COUNT(*) FROM jobs WHERE state IN (?, ?)`, store.JobQueued, store.JobRunning).Scan(&active); err != nil {
		t.Fatal(err)
	}
	if training != 0 || active != 0 {
		t.Errorf("at the end: %d models training, %d jobs queued or running; want none", training, active)
	}
}

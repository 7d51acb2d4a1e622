package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/testkit"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// TestPageQueriesConstant: the home page, the jobs API and the models page
// run as many statements after 300 finished jobs and 300 failed models as
// after 3 (they used to look every job up with its own query).
func TestPageQueriesConstant(t *testing.T) {
	name, counted := testkit.CountingDriver(t)
	ctx := context.Background()
	statements := func(n int) map[string]int64 {
		st, err := store.OpenDriver(ctx, t.TempDir(), name)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for i := range n {
			for _, kind := range []string{"train", "map"} {
				j := &store.JobRow{Kind: kind, TargetID: fmt.Sprint("x", i)}
				if err := st.InsertJob(ctx, j); err != nil {
					t.Fatal(err)
				}
				j.State, j.Message, j.FinishedAt = store.JobFailed, "failed", time.Now()
				if err := st.UpdateJob(ctx, j); err != nil {
					t.Fatal(err)
				}
				if kind == "train" {
					m := &store.ModelRow{CorpusID: "c", Name: fmt.Sprint("m", i), JobID: j.ID}
					if err := st.InsertModel(ctx, m); err != nil {
						t.Fatal(err)
					}
					if err := st.EndModelJob(ctx, m.ID, j.ID, store.ModelFailed); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		s, err := New(Config{KeepJobs: -1}, Deps{Store: st}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown(ctx)
		ts := &testServer{Server: s, t: t}
		out := map[string]int64{}
		for _, path := range []string{"/", "/api/jobs", "/models"} {
			before := counted.Load()
			if rec := ts.do(http.MethodGet, path, nil, ""); rec.Code != http.StatusOK {
				t.Fatalf("GET %s: %d", path, rec.Code)
			}
			out[path] = counted.Load() - before
		}
		if got := len(decode[[]jobJSON](t, ts.do(http.MethodGet, "/api/jobs?limit=1000", nil, ""))); got != 2*n {
			t.Fatalf("/api/jobs?limit=1000 lists %d jobs, want %d", got, 2*n)
		}
		return out
	}
	few, many := statements(3), statements(300)
	t.Logf("statements per request: %v with 6 jobs, %v with 600", few, many)
	for path, n := range few {
		if many[path] != n {
			t.Errorf("GET %s: %d statements with 600 jobs, %d with 6: want the same", path, many[path], n)
		}
	}
}

// TestJobHistoryPruned: with KeepJobs 5, the history keeps the 5 most
// recently finished jobs of a kind as jobs end, and every job a model still
// names (its failure message is the model's); a server started on a longer
// history prunes it at once.
func TestJobHistoryPruned(t *testing.T) {
	ts := newTestServer(t, Config{KeepJobs: 5})
	c := decode[corpusJSON](t, ts.upload("tiny.tsv", tinyTSV()))
	var trains []string
	for range 7 {
		ids := decode[map[string]string](t, ts.doJSON(http.MethodPost, "/api/models", `{"corpus_id":"`+c.ID+`"}`))
		ts.waitJob(ids["job_id"])
		trains = append(trains, ids["job_id"])
	}
	var quick []string
	for range 12 {
		j, err := ts.jobs.Submit("test", "x", nil, func(ctx context.Context, rep *jobs.Reporter) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		ts.waitJob(j.ID)
		quick = append(quick, j.ID)
	}
	kinds := func() map[string][]string {
		out := map[string][]string{}
		for _, j := range decode[[]jobJSON](t, ts.doJSON(http.MethodGet, "/api/jobs", "")) {
			out[j.Kind] = append(out[j.Kind], j.ID)
		}
		return out
	}
	got := kinds()
	if n := len(got["test"]); n != 5 {
		t.Errorf("finished test jobs kept: %d, want 5", n)
	}
	for _, id := range quick[len(quick)-5:] {
		if _, err := ts.store.Job(context.Background(), id); err != nil {
			t.Errorf("one of the 5 newest jobs, %s: %v", id, err)
		}
	}
	if n := len(got["train"]); n != len(trains) {
		t.Errorf("training jobs kept: %d, want all %d (each names its model's failure)", n, len(trains))
	}
	for _, id := range trains {
		if j, err := ts.store.Job(context.Background(), id); err != nil || j.Message == "" {
			t.Errorf("training job %s: %v %v, want it kept with its message", id, j, err)
		}
	}

	// A restart with a shorter history prunes it.
	ts.close()
	ts2 := openTestServer(t, ts.dir, Config{KeepJobs: 2})
	if n := len(decode[[]jobJSON](t, ts2.doJSON(http.MethodGet, "/api/jobs?kind=test", ""))); n != 2 {
		t.Errorf("after a restart with KeepJobs 2: %d test jobs, want 2", n)
	}
}

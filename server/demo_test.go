package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/server/store"
)

// TestDemoTrainingShown: on a first start the demo model trains in the
// background; meanwhile the home page, the explorer and the priming page say
// so with its live progress (not "No trained model yet", and the home page
// does not list its job a second time), each loading its page again when the
// model is ready; the model's page lists the demo's training parameters.
// Once the training is over (here cancelled), the pages no longer say it.
func TestDemoTrainingShown(t *testing.T) {
	ts := newTestServer(t, Config{Demo: true})
	ctx := t.Context()
	if err := ts.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := ts.store.TrainingDemoModel(ctx)
	if err != nil || m == nil {
		t.Fatalf("the demo model training: %v, %v", m, err)
	}
	for _, path := range []string{"/", "/explorer", "/priming"} {
		doc, body := ts.page(path)
		box := testid(doc, "demo-training")
		if box.Length() != 1 || !strings.Contains(box.Text(), "The demo model is being trained") {
			t.Errorf("GET %s: no word of the demo model's training", path)
			continue
		}
		job := box.Find("[data-job]")
		if id, _ := job.Attr("data-job"); id != m.JobID {
			t.Errorf("GET %s: the progress of job %q, want the demo's %q", path, id, m.JobID)
		}
		if done, _ := job.Attr("data-done-url"); done != path {
			t.Errorf("GET %s: loads %q when the model is ready, want the page itself", path, done)
		}
		if strings.Contains(body, "No trained model yet") {
			t.Errorf("GET %s: says there is no trained model", path)
		}
		if n := doc.Find(`[data-job="` + m.JobID + `"]`).Length(); n != 1 {
			t.Errorf("GET %s: the demo's job shown %d times", path, n)
		}
	}
	doc, _ := ts.page("/models/" + m.ID)
	params := testid(doc, "kv-params").Text()
	for _, p := range []string{"epoch_examples40000", "max_epochs110", "max_epochs215", "patience4", "topics10"} {
		if !strings.Contains(strings.Join(strings.Fields(params), ""), p) {
			t.Errorf("demo model page: parameters %q lack %s", strings.Join(strings.Fields(params), " "), p)
		}
	}

	if rec := ts.doJSON(http.MethodDelete, "/api/jobs/"+m.JobID, ""); rec.Code >= 300 {
		t.Fatalf("cancelling the demo's training: %d %s", rec.Code, rec.Body)
	}
	ts.waitJob(m.JobID)
	for _, path := range []string{"/", "/explorer", "/priming"} {
		if doc, _ := ts.page(path); testid(doc, "demo-training").Length() != 0 {
			t.Errorf("GET %s: still says the demo model is being trained", path)
		}
	}
	if _, body := ts.page("/explorer"); !strings.Contains(body, "No trained model yet") {
		t.Error("explorer without a model or a training: no word of it")
	}
}

// BenchmarkDemoModel measures the demo model's training as a first start of
// taglens serve does it (SeedDemo on an empty data folder, until the model is
// ready), with two training slots:
//
//	go test ./server -run '^$' -bench BenchmarkDemoModel -benchtime 1x
func BenchmarkDemoModel(b *testing.B) {
	for b.Loop() {
		st, err := store.Open(context.Background(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		s, err := New(Config{Demo: true, TrainSlots: 2}, Deps{Store: st}, slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := s.SeedDemo(context.Background()); err != nil {
			b.Fatal(err)
		}
		m, err := st.TrainingDemoModel(context.Background())
		if err != nil || m == nil {
			b.Fatalf("no demo model training: %v", err)
		}
		j, err := s.jobs.Wait(context.Background(), m.JobID)
		if err != nil || j.State != store.JobDone {
			b.Fatalf("demo training: %v %v", j, err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/ready")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s.Shutdown(ctx) // the demo's map and comparison start once it is ready: stopped here
		cancel()
		st.Close()
	}
}

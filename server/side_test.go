package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/taglens/taglens/server/store"
)

// TestSideBySide checks the page of several evaluations side by side: two
// finished evaluations of one model (test and validation documents) give two
// columns, each with its table and its own MAP and AUC charts; fewer than two,
// more than four or an unknown evaluation are refused with the reason; the
// comparisons page offers the finished ones to tick.
func TestSideBySide(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	ctx := context.Background()
	var ids []string
	for _, subset := range []string{"test", "valid"} {
		ev, job, err := ts.createEval(ctx, evalRequest{ModelIDs: []string{modelID}, Baselines: []string{"random"},
			Subset: subset, Protocol: "priming", Trials: 1})
		if err != nil {
			t.Fatal(err)
		}
		if j := ts.waitJob(job.ID); j.State != store.JobDone {
			t.Fatalf("evaluation on %s: %s %s", subset, j.State, j.Message)
		}
		ids = append(ids, ev.ID)
	}
	doc, body := ts.page("/compare/side?ids=" + ids[0] + "&ids=" + ids[1])
	cols := testid(doc, "side-eval")
	if cols.Length() != 2 {
		t.Fatalf("%d columns, want 2", cols.Length())
	}
	for i, subset := range []string{"test", "valid"} {
		col := cols.Eq(i)
		if !strings.Contains(col.Text(), "subset "+subset) || col.Find(`[data-testid="score-row"]`).Length() < 3 {
			t.Errorf("column %d: %q, %d score rows; want subset %s and rows for random, ce and siamese-ce", i, col.Find("p").First().Text(), col.Find(`[data-testid="score-row"]`).Length(), subset)
		}
	}
	for _, id := range []string{`id="map-0"`, `id="map-1"`, `id="auc-0"`, `id="auc-1"`} {
		if !strings.Contains(body, id) {
			t.Errorf("the page has no chart %s", id)
		}
	}
	// Test and validation documents differ: no model-by-model test.
	if testid(doc, "versus-table").Length() != 0 || testid(doc, "versus-why").Length() != 1 {
		t.Error("evaluations on different subsets were compared trial by trial")
	}
	// The same documents with two trials: the models compared, with a p-value.
	ev, job, err := ts.createEval(ctx, evalRequest{ModelIDs: []string{modelID}, Baselines: []string{"random"},
		Subset: "test", Protocol: "priming", Trials: 2})
	if err != nil {
		t.Fatal(err)
	}
	if j := ts.waitJob(job.ID); j.State != store.JobDone {
		t.Fatalf("evaluation with 2 trials: %s %s", j.State, j.Message)
	}
	doc, _ = ts.page("/compare/side?ids=" + ids[0] + "," + ev.ID)
	rows := doc.Find(`[data-testid="versus-row"]`)
	if rows.Length() < 3 {
		t.Fatalf("%d models compared, want random, ce and siamese-ce", rows.Length())
	}
	rows.Each(func(_ int, r *goquery.Selection) {
		if p := r.Find("td").Last().Text(); p == "n/a" || p == "" {
			t.Errorf("model %s: p %q with three trials in all", r.Find("td").First().Text(), p)
		}
	})
	// The comparisons page offers each of them to tick (other tests of the
	// package may have stored more).
	d, _ := ts.page("/compare")
	for _, id := range append(ids, ev.ID) {
		if testid(d, "side-pick").Not("[disabled]").Filter(`[value="`+id+`"]`).Length() != 1 {
			t.Errorf("the comparisons page does not offer finished evaluation %s to tick", id)
		}
	}
	for _, c := range []struct {
		q    string
		code int
		want string
	}{
		{"ids=" + ids[0], http.StatusBadRequest, "two to 4"},
		{"ids=" + ids[0] + "," + ids[0], http.StatusBadRequest, "two to 4"},
		{"ids=a,b,c,d,e", http.StatusBadRequest, "two to 4"},
		{"ids=" + ids[0] + ",nosuch", http.StatusNotFound, "nosuch"},
	} {
		rec := ts.do(http.MethodGet, "/compare/side?"+c.q, nil, "")
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s: %d %.200s; want %d naming %q", c.q, rec.Code, rec.Body, c.code, c.want)
		}
	}
}

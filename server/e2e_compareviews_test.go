package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/internal/palette"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// finishedEval runs an evaluation of the model to its end and returns its id.
func finishedEval(t *testing.T, ts *testServer, req evalRequest) string {
	t.Helper()
	ev, job, err := ts.createEval(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if j := ts.waitJob(job.ID); j.State != store.JobDone {
		t.Fatalf("evaluation %+v: %s %s", req, j.State, j.Message)
	}
	return ev.ID
}

// chartYMax reads the y axis max of chart id in a page's option JSON.
func chartYMax(t *testing.T, body, id string) float64 {
	t.Helper()
	i := strings.Index(body, `id="`+views.ChartOptionID(id)+`"`)
	if i < 0 {
		t.Fatalf("no chart %s on the page", id)
	}
	j := strings.Index(body[i:], ">")
	k := strings.Index(body[i+j:], "</script>")
	var opt struct {
		YAxis []struct {
			Max *float64 `json:"max"`
		} `json:"yAxis"`
	}
	if err := json.Unmarshal([]byte(body[i+j+1:i+j+k]), &opt); err != nil {
		t.Fatalf("chart %s: %v", id, err)
	}
	if len(opt.YAxis) == 0 || opt.YAxis[0].Max == nil {
		return 0
	}
	return *opt.YAxis[0].Max
}

// TestSideBySideSharedScale: the columns of the side-by-side page draw MAP
// on one y scale and AUC on one y scale, high enough for every bar and its
// whisker; fewer than two evaluations ticked is a page saying what to do.
func TestSideBySideSharedScale(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	a := finishedEval(t, ts, evalRequest{ModelIDs: []string{modelID}, Baselines: []string{"random"}, Subset: "test", Protocol: "priming", Trials: 1})
	b := finishedEval(t, ts, evalRequest{ModelIDs: []string{modelID}, Baselines: []string{"all"}, Subset: "valid", Protocol: "extended", Trials: 1})
	_, body := ts.page("/compare/side?ids=" + a + "," + b)
	for _, metric := range []string{"map", "auc"} {
		m0, m1 := chartYMax(t, body, metric+"-0"), chartYMax(t, body, metric+"-1")
		if m0 == 0 || m0 != m1 {
			t.Errorf("%s: y axis max %g and %g, want one shared scale", metric, m0, m1)
		}
		for _, id := range []string{a, b} {
			e, err := ts.store.Eval(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			var rep eval.Report
			if err := json.Unmarshal(e.Report, &rep); err != nil {
				t.Fatal(err)
			}
			for _, m := range rep.Models {
				v := m.MAP + m.MAPSE
				if metric == "auc" {
					v = m.AUC + m.AUCSE
				}
				if v > m0 {
					t.Errorf("%s of %s in evaluation %s: %.3f above the axis's %g", metric, m.Name, id, v, m0)
				}
			}
		}
	}
	rec := ts.do(http.MethodGet, "/compare/side?ids="+a, nil, "")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "only one was ticked") || !strings.Contains(rec.Body.String(), `href="/compare"`) {
		t.Errorf("one evaluation: %d %.300s; want a page saying to tick two, with the way back", rec.Code, rec.Body)
	}
}

// TestSeedTrialsInSeedOrder: a seed group compared from the form (its
// checkboxes newest model first) is evaluated and titled in increasing seed
// order, so that trial i uses seed i.
func TestSeedTrialsInSeedOrder(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	var ids []string
	for _, seed := range []uint64{1, 2, 3} {
		m := &store.ModelRow{CorpusID: c.ID, Name: fmt.Sprintf("g · seed %d", seed), Seed: seed, Params: []byte(`{}`)}
		if err := ts.store.InsertModel(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		if err := ts.store.SetModelState(t.Context(), m.ID, store.ModelReady); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	rec := ts.postForm("/compare", url.Values{"model_ids": {ids[2], ids[1], ids[0]}, "baselines": {"random"}, "subset": {"test"},
		"protocol": {"priming"}, "setting": {"within-corpus"}, "seed_trials": {"on"}})
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/compare/") {
		t.Fatalf("compare form: %d %s", rec.Code, rec.Body)
	}
	e, err := ts.store.Eval(t.Context(), strings.TrimPrefix(loc, "/compare/"))
	if err != nil {
		t.Fatal(err)
	}
	var req evalRequest
	if err := json.Unmarshal(e.Request, &req); err != nil {
		t.Fatal(err)
	}
	if strings.Join(req.ModelIDs, ",") != strings.Join(ids, ",") {
		t.Errorf("evaluated models %v, want %v (seeds 1, 2, 3)", req.ModelIDs, ids)
	}
	doc := ts.pageAt(loc, http.StatusOK)
	if h := strings.Join(strings.Fields(doc.Find("h1").Text()), " "); !strings.Contains(h, "g · seed 1, g · seed 2, g · seed 3") {
		t.Errorf("evaluation title %q, want the seeds in increasing order", h)
	}
}

// TestBrowserCompareViews in Chromium: the side-by-side columns draw MAP
// (and AUC) on the same y extent; ticking one evaluation and pressing
// "Show side by side" says what to do and stays on the page; on the P@K
// chart of an evaluation with every baseline, each line has its model's
// fixed colour and any two lines of close colours differ in dash or symbol.
func TestBrowserCompareViews(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	a := finishedEval(t, ts, evalRequest{ModelIDs: []string{modelID}, Baselines: []string{"random"}, Subset: "test", Protocol: "priming", Trials: 1})
	b := finishedEval(t, ts, evalRequest{ModelIDs: []string{modelID}, Baselines: []string{"all"}, Subset: "test", Protocol: "extended", Trials: 1})
	base := liveServer(t, ts)

	step(t, ctx, "side by side", time.Minute, chromedp.Navigate(base+"/compare/side?ids="+a+","+b))
	waitJS(t, ctx, "side charts", time.Minute, `!!window.taglensCharts && ["map-0", "map-1", "auc-0", "auc-1"].every(function (id) { return !!window.taglensCharts[id]; })`)
	ext, err := chromedp.Run(ctx, chromedp.Evaluate[map[string][]float64](`(function () {
		var out = {};
		["map-0", "map-1", "auc-0", "auc-1"].forEach(function (id) { out[id] = window.taglensCharts[id].getModel().getComponent("yAxis", 0).axis.scale.getExtent(); });
		return out;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"map", "auc"} {
		if e0, e1 := ext[m+"-0"], ext[m+"-1"]; len(e0) != 2 || len(e1) != 2 || e0[0] != e1[0] || e0[1] != e1[1] {
			t.Errorf("%s: y extents %v and %v, want one scale", m, e0, e1)
		}
	}
	screenshot(t, ctx, shotDir(t), "6d-side-by-side")

	step(t, ctx, "tick one", 30*time.Second,
		chromedp.Navigate(base+"/compare"), chromedp.WaitVisible(tid("side-form")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="side-pick"][value="`+a+`"]').click()`),
		chromedp.Click(tid("side-submit")),
		chromedp.WaitVisible(tid("side-msg")))
	msg, err := chromedp.Run(ctx, chromedp.Text(tid("side-msg")))
	if err != nil || !strings.Contains(msg, "One evaluation is ticked") {
		t.Errorf("one ticked: message %q (%v)", msg, err)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(loc, "/compare") {
		t.Errorf("one ticked: the browser went to %s", loc)
	}

	step(t, ctx, "evaluation", time.Minute, chromedp.Navigate(base+"/compare/"+b))
	waitJS(t, ctx, "P@K chart", time.Minute, `!!window.taglensCharts && !!window.taglensCharts["patk"]`)
	type line struct {
		Name, Color, Dash, Symbol string
	}
	lines, err := chromedp.Run(ctx, chromedp.Evaluate[[]line](`window.taglensCharts["patk"].getModel().getSeries().filter(function (s) { return s.type === "series.line"; }).map(function (s) {
		var d = s.getData();
		return {Name: s.name, Color: String(d.getVisual("style").fill || d.getVisual("style").stroke), Dash: String(s.get(["lineStyle", "type"]) || "solid"), Symbol: String(d.getVisual("symbol"))};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 12 {
		t.Fatalf("P@K chart: %d lines, want ce, siamese-ce and the baselines", len(lines))
	}
	for i, l := range lines {
		if want := palette.Model(l.Name, i); !strings.EqualFold(l.Color, want) {
			t.Errorf("%s drawn in %s, want its colour %s", l.Name, l.Color, want)
		}
		for _, o := range lines[:i] {
			if d := palette.Distance(strings.ToUpper(l.Color), strings.ToUpper(o.Color)); d < closeColours && l.Dash == o.Dash && l.Symbol == o.Symbol {
				t.Errorf("%s and %s: colours %.0f ΔE apart, both %s lines with %s symbols", o.Name, l.Name, d, l.Dash, l.Symbol)
			}
		}
	}
	screenshot(t, ctx, shotDir(t), "6e-patk")
}

package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/server/store"
)

// longTagsTSV is a corpus whose tags are long and unbroken, as cal500's
// ("Instrument_-_Electric_Guitar_(distorted)"), with short ones among them.
func longTagsTSV() []byte {
	var tags []string
	for i := range 30 {
		tags = append(tags, fmt.Sprintf("Instrument_-_Electric_Guitar_(distorted)_%02d", i), fmt.Sprintf("t%d", i))
	}
	var b strings.Builder
	for d := range 90 {
		fmt.Fprintf(&b, "d%03d", d)
		for j := range 4 + d%5 {
			fmt.Fprintf(&b, "\t%s", tags[(d*7+j*3)%len(tags)])
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// topTagsOverlaps measures the corpus page's "Top tags" in the browser: the
// boxes of each entry's rank number, tag and count, and returns the pairs of
// boxes of different entries that overlap and the entries whose tag or count
// spills out of the entry. A rank drawn as an outside list marker (not in the
// DOM) is taken as the text "N. " set right before the entry.
func topTagsOverlaps(t *testing.T, ctx context.Context) []string {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function () {
		var ol = document.querySelector('[data-testid="top-tags"]'), items = ol.querySelectorAll("li"), boxes = [], bad = [];
		var canvas = document.createElement("canvas").getContext("2d");
		items.forEach(function (li, i) {
			var st = getComputedStyle(li), r = li.getBoundingClientRect();
			var tag = li.querySelector('[data-testid="tag"]').getBoundingClientRect(), count = li.querySelector(".count, .muted").getBoundingClientRect();
			var rank = li.querySelector(".rank");
			var rr;
			if (rank) rr = rank.getBoundingClientRect();
			else if (st.display === "list-item" && st.listStylePosition === "outside" && st.listStyleType !== "none") {
				canvas.font = st.font;
				var w = canvas.measureText((i + 1) + ". ").width;
				rr = {left: r.left - w, right: r.left, top: r.top, bottom: r.bottom};
			}
			if (count.right > r.right + 0.5 || tag.left < r.left - 0.5 || tag.right > r.right + 0.5)
				bad.push("entry " + (i + 1) + " spills out of its box: tag " + Math.round(tag.left) + ".." + Math.round(tag.right) + ", count .." + Math.round(count.right) + ", entry " + Math.round(r.left) + ".." + Math.round(r.right));
			[["rank", rr], ["tag", tag], ["count", count]].forEach(function (b) { if (b[1]) boxes.push({i: i, what: b[0], r: b[1]}); });
		});
		for (var a = 0; a < boxes.length; a++) for (var b = a + 1; b < boxes.length; b++) {
			var p = boxes[a], q = boxes[b];
			if (p.i === q.i) continue;
			var x = Math.min(p.r.right, q.r.right) - Math.max(p.r.left, q.r.left), y = Math.min(p.r.bottom, q.r.bottom) - Math.max(p.r.top, q.r.top);
			if (x > 1 && y > 1) bad.push("entry " + (p.i + 1) + "'s " + p.what + " overlaps entry " + (q.i + 1) + "'s " + q.what);
		}
		return bad.slice(0, 8);
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBrowserTopTagsColumns: on the corpus page, the "Top tags" columns keep
// each entry's rank, tag and count apart from the next column's, with long
// unbroken tags, at 1300 px and on a phone (390 px).
func TestBrowserTopTagsColumns(t *testing.T) {
	ctx := browser(t)
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("long.tsv", longTagsTSV()))
	base := liveServer(t, ts)
	for _, w := range []int64{1300, 390} {
		step(t, ctx, "corpus page", 30*time.Second,
			chromedp.EmulateViewport(w, 900),
			chromedp.Navigate(base+"/corpora/"+c.ID), chromedp.WaitVisible(tid("top-tags")))
		if bad := topTagsOverlaps(t, ctx); len(bad) > 0 {
			t.Errorf("%d px: %s", w, strings.Join(bad, "; "))
		}
		// The tag's full name stays readable on hover when it is cut.
		title, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="top-tags"] li [data-testid="tag"]').title`))
		if err != nil || title == "" {
			t.Errorf("%d px: the first tag has no title (%v)", w, err)
		}
		screenshot(t, ctx, shotDir(t), fmt.Sprintf("2c-top-tags-%d", w))
	}
}

// corpusWithModels is a fresh server with an uploaded corpus and n model
// rows on it (nothing trained), each failed so that it may be deleted.
func corpusWithModels(t *testing.T, n int) (*testServer, string, []string) {
	t.Helper()
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	var ids []string
	for i := range n {
		m := &store.ModelRow{CorpusID: c.ID, Name: fmt.Sprintf("model %c", 'A'+i), Seed: 1, Params: []byte(`{}`)}
		if err := ts.store.InsertModel(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		if err := ts.store.SetModelState(t.Context(), m.ID, store.ModelFailed); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return ts, c.ID, ids
}

// TestCorpusDeleteNamesEveryModel: deleting a corpus three models use names
// all three at once (API and page), the page offers to delete the corpus
// with its models, which refuses while one of them trains (deleting
// nothing) and otherwise deletes the models, then the corpus.
func TestCorpusDeleteNamesEveryModel(t *testing.T) {
	ts, id, models := corpusWithModels(t, 3)
	rec := ts.doJSON(http.MethodDelete, "/api/corpora/"+id, "")
	wantError(t, rec, http.StatusConflict, "3 models")
	for _, name := range []string{"model A", "model B", "model C"} {
		if !strings.Contains(rec.Body.String(), name) {
			t.Errorf("API refusal %s does not name %s", rec.Body, name)
		}
	}
	res := ts.htmxDelete("/corpora/"+id, true)
	body := readAll(t, res)
	if res.Header.Get("X-Status") != "409" || strings.Count(body, `data-testid="blocking-model"`) != 3 || !strings.Contains(body, `data-testid="delete-with-models"`) {
		t.Fatalf("page refusal (X-Status %s): want the 3 models listed and the offer to delete them: %s", res.Header.Get("X-Status"), body)
	}
	if !strings.Contains(body, `hx-delete="/corpora/`+id+`?with_models=1"`) || !strings.Contains(body, "hx-confirm=") {
		t.Errorf("the offer is not a confirmed delete with the models: %s", body)
	}

	// One of them training: nothing is deleted.
	if err := ts.store.SetModelState(t.Context(), models[1], store.ModelTraining); err != nil {
		t.Fatal(err)
	}
	res = ts.htmxDelete("/corpora/"+id+"?with_models=1", true)
	if body := readAll(t, res); res.Header.Get("X-Status") != "409" || !strings.Contains(body, "model B") || !strings.Contains(body, "training") {
		t.Errorf("with a model training: X-Status %s, %s; want a 409 naming it", res.Header.Get("X-Status"), body)
	}
	for _, m := range models {
		if _, err := ts.store.Model(t.Context(), m); err != nil {
			t.Errorf("model %s deleted while another trains: %v", m, err)
		}
	}
	if res := ts.htmxDelete("/corpora/"+id, true); !strings.Contains(readAll(t, res), "still training") {
		t.Error("the refusal does not say that a model is training")
	}

	if err := ts.store.SetModelState(t.Context(), models[1], store.ModelReady); err != nil {
		t.Fatal(err)
	}
	res = ts.htmxDelete("/corpora/"+id+"?with_models=1", true)
	if res.StatusCode/100 != 2 || res.Header.Get("HX-Redirect") != "/corpora" {
		t.Fatalf("delete with models: status %d X-Status %s HX-Redirect %q: %s", res.StatusCode, res.Header.Get("X-Status"), res.Header.Get("HX-Redirect"), readAll(t, res))
	}
	if rec := ts.doJSON(http.MethodGet, "/api/corpora/"+id, ""); rec.Code != http.StatusNotFound {
		t.Errorf("the corpus: GET %d after deleting it with its models", rec.Code)
	}
	for _, m := range models {
		if rec := ts.doJSON(http.MethodGet, "/api/models/"+m, ""); rec.Code != http.StatusNotFound {
			t.Errorf("model %s: GET %d after deleting its corpus with it", m, rec.Code)
		}
	}
}

// TestDeletedModelInEvaluations: an evaluation of a model since deleted
// names it "deleted model" on the comparisons and evaluation pages, not by
// its id.
func TestDeletedModelInEvaluations(t *testing.T) {
	ts, id, models := corpusWithModels(t, 2)
	req, _ := jsonMarshal(evalRequest{ModelIDs: models, Baselines: []string{"random"}, Subset: "test", Protocol: "priming", Trials: 1})
	ev := &store.EvalRow{CorpusID: id, Request: req}
	if err := ts.store.InsertEval(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	if rec := ts.doJSON(http.MethodDelete, "/api/models/"+models[0], ""); rec.Code != http.StatusNoContent {
		t.Fatalf("delete model: %d %s", rec.Code, rec.Body)
	}
	doc, _ := ts.page("/compare")
	got := strings.TrimSpace(testid(doc, "eval-row").Find("td").Eq(1).Text())
	if got != "deleted model, model B, random" {
		t.Errorf("evaluation listed as %q, want %q", got, "deleted model, model B, random")
	}
	doc, _ = ts.page("/compare/" + ev.ID)
	if h := doc.Find("h1").Text(); strings.Contains(h, models[0]) || !strings.Contains(h, "deleted model") {
		t.Errorf("evaluation page title %q: want the deleted model named so, not by its id", h)
	}
	ts.doJSON(http.MethodDelete, "/api/models/"+models[1], "")
	doc, _ = ts.page("/compare")
	if got := strings.TrimSpace(testid(doc, "eval-row").Find("td").Eq(1).Text()); got != "2 deleted models, random" {
		t.Errorf("both deleted: %q", got)
	}
}

// TestBrowserCorpusDeleteWithModels clicks Delete on a corpus two models
// use in Chromium: both are named at once; "delete with its models" asks
// for confirmation naming them, then deletes all and goes to the list.
func TestBrowserCorpusDeleteWithModels(t *testing.T) {
	ctx := browser(t)
	ts, id, models := corpusWithModels(t, 2)
	base := liveServer(t, ts)
	step(t, ctx, "delete", 30*time.Second,
		chromedp.Navigate(base+"/corpora/"+id),
		chromedp.WaitVisible(tid("delete-corpus")),
		chromedp.Evaluate[chromedp.Void](`window.confirm = function (q) { sessionStorage.setItem("asked", (sessionStorage.getItem("asked") || "") + q + "\n"); return true; }`),
		chromedp.Click(tid("delete-corpus")),
		chromedp.WaitVisible(tid("delete-with-models")),
	)
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="blocking-model"] a')).map(function (a) { return a.textContent; })`))
	if err != nil || strings.Join(names, ",") != "model B,model A" && strings.Join(names, ",") != "model A,model B" {
		t.Errorf("blocking models listed: %q (%v), want both", names, err)
	}
	screenshot(t, ctx, shotDir(t), "2d-corpus-in-use")
	step(t, ctx, "delete with its models", 30*time.Second,
		chromedp.Click(tid("delete-with-models")),
		chromedp.WaitVisible(tid("upload-form")))
	// The questions asked survive the navigation in the tab's session storage.
	asked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`sessionStorage.getItem("asked") || ""`))
	if err != nil || !strings.Contains(asked, "“model A”") || !strings.Contains(asked, "“model B”") || strings.Count(asked, "\n") != 2 {
		t.Errorf("confirmations asked: %q (%v); want the delete, then the delete with the models naming both", asked, err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.HasSuffix(loc, "/corpora") {
		t.Errorf("after deleting: at %s, want the corpus list", loc)
	}
	for _, m := range models {
		if _, err := ts.store.Model(t.Context(), m); err == nil {
			t.Errorf("model %s still stored", m)
		}
	}
	if _, err := ts.store.Corpus(t.Context(), id); err == nil {
		t.Error("the corpus is still stored")
	}
}

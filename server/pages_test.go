package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/store"
)

func (ts *testServer) page(path string) (*goquery.Document, string) {
	ts.t.Helper()
	rec := ts.do(http.MethodGet, path, nil, "")
	if rec.Code != http.StatusOK {
		ts.t.Fatalf("GET %s: status %d (%s)", path, rec.Code, rec.Body)
	}
	body := rec.Body.String()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		ts.t.Fatal(err)
	}
	return doc, body
}

func testid(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

// externalRef finds src/href/action attributes pointing at another host; the
// only absolute URLs allowed are loopback ones.
var externalRef = regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?//([^/"'\s>]+)`)

func checkNoExternal(t *testing.T, path, body string) {
	t.Helper()
	for _, m := range externalRef.FindAllStringSubmatch(body, -1) {
		host := m[3]
		if !strings.HasPrefix(host, "127.0.0.1") && !strings.HasPrefix(host, "localhost") {
			t.Errorf("%s references an external host: %s", path, m[0])
		}
	}
	// go-echarts would write a script tag for its CDN when the AssetsHost is not ours.
	if strings.Contains(body, "go-echarts-assets") || strings.Contains(body, "cdn.") {
		t.Errorf("%s references a CDN", path)
	}
}

func TestPagesEmptyStore(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, p := range []string{"/", "/corpora", "/train", "/models", "/explorer", "/priming", "/compare"} {
		doc, body := ts.page(p)
		checkNoExternal(t, p, body)
		if testid(doc, "nav").Length() != 1 {
			t.Errorf("%s: no nav", p)
		}
	}
	doc, _ := ts.page("/corpora")
	if testid(doc, "upload-form").Length() != 1 || testid(doc, "upload-file").Length() != 1 || testid(doc, "dropzone").Length() != 1 {
		t.Error("corpora page lacks the upload form, file input or drop zone")
	}
	if testid(doc, "no-corpora").Length() != 1 {
		t.Error("corpora page: want the empty-state message")
	}
	for _, p := range []string{"/corpora/nosuch", "/models/nosuch", "/compare/nosuch"} {
		if rec := ts.do(http.MethodGet, p, nil, ""); rec.Code != 404 || !strings.Contains(rec.Body.String(), "nosuch") {
			t.Errorf("GET %s: got %d, want a 404 page naming the id", p, rec.Code)
		}
	}
	// Static assets come from the binary.
	for _, p := range []string{"/static/vendor/echarts.min.js", "/static/vendor/htmx.min.js", "/static/vendor/htmx-ext-sse.js", "/static/js/app.js", "/static/js/glmap.js", "/static/css/app.css"} {
		if rec := ts.do(http.MethodGet, p, nil, ""); rec.Code != 200 || rec.Body.Len() < 100 {
			t.Errorf("GET %s: got %d with %d bytes", p, rec.Code, rec.Body.Len())
		}
	}
	if rec := ts.do(http.MethodGet, "/static/", nil, ""); rec.Code != 404 {
		t.Errorf("static listing: got %d, want 404", rec.Code)
	}
}

// TestMarkupTagsEscaped uploads tags that look like markup and checks every place
// they are rendered keeps them as text.
func TestMarkupTagsEscaped(t *testing.T) {
	ts := newTestServer(t, Config{})
	evil := "<script>alert(1)</script>"
	evil2 := `</script><img src=x onerror=alert(2)>`
	tsv := "a\t" + evil + "\trock\nb\t" + evil + "\t" + evil2 + "\nc\trock\t" + evil2 + "\n"
	rec := ts.upload("evil.tsv", []byte(tsv))
	if rec.Code != 201 {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	c := decode[corpusJSON](t, rec)
	doc, body := ts.page("/corpora/" + c.ID)
	if strings.Contains(body, evil) || strings.Contains(body, "<img src=x") {
		t.Fatal("a markup tag is rendered unescaped")
	}
	var got []string
	testid(doc, "tag").Each(func(_ int, s *goquery.Selection) { got = append(got, s.Text()) })
	if !slices.Contains(got, evil) || !slices.Contains(got, evil2) {
		t.Errorf("top tags: got %q, want the markup tags as text", got)
	}
	// The chart option blocks hold the tags as JSON escapes, so they cannot close
	// the script element; parsing the document finds exactly one script per chart.
	n := doc.Find(`script[id^="chart-option-"]`).Length()
	if n != 2 {
		t.Errorf("chart option blocks: got %d, want 2", n)
	}
	if !strings.Contains(body, `\u003cscript\u003e`) {
		t.Error("chart option does not escape < as \\u003c")
	}
	checkNoExternal(t, "/corpora/"+c.ID, body)
}

func TestUploadPageFragment(t *testing.T) {
	ts := newTestServer(t, Config{MaxUpload: 1024})
	ck, tok := ts.pageCSRF()
	post := func(content []byte) string {
		body, ct := multipartBody(t, nil, "c.tsv", content)
		req := newRequest(http.MethodPost, "/corpora", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", tok) // htmx sends the body's hx-headers
		req.AddCookie(ck)
		rec := httptestRecorder(ts, req)
		if rec.Code != 200 {
			t.Fatalf("htmx upload: got %d, want 200 with a fragment", rec.Code)
		}
		return rec.Body.String()
	}
	if b := post(smallTSV()[:300]); !strings.Contains(b, `data-testid="upload-ok"`) {
		t.Errorf("successful upload fragment: %s", b)
	}
	if b := post([]byte("x\ty\nz\t\x00\n")); !strings.Contains(b, `data-testid="error"`) || !strings.Contains(b, "line 2") {
		t.Errorf("parse error fragment: %s", b)
	}
	if b := post(bytes.Repeat([]byte("a\tb\n"), 400)); !strings.Contains(b, "too large") {
		t.Errorf("oversized fragment: %s", b)
	}
}

func TestPagesWithModel(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	paths := []string{"/", "/corpora", "/corpora/" + corpusID, "/train", "/train?corpus=" + corpusID, "/models", "/models/" + modelID,
		"/explorer", "/explorer?model=" + modelID + "&term=guitar&variant=ce&color=corpus",
		"/priming?model=" + modelID + "&tags=" + url.QueryEscape("guitar, acoustic, zzz-unknown") + "&k=5", "/compare"}
	for _, p := range paths {
		_, body := ts.page(p)
		checkNoExternal(t, p, body)
	}
	doc, _ := ts.page("/corpora/" + corpusID)
	for _, id := range []string{"chart-taguse", "chart-cardinality", "top-tags"} {
		if testid(doc, id).Length() != 1 {
			t.Errorf("corpus page lacks %s", id)
		}
	}
	doc, _ = ts.page("/models/" + modelID)
	if testid(doc, "chart-curve").Length() != 1 || testid(doc, "download-model").Length() != 1 || testid(doc, "kv-info").Length() != 1 {
		t.Error("model page lacks its curve, download link or training record")
	}
	doc, _ = ts.page("/explorer?model=" + modelID)
	m := testid(doc, "map")
	if m.Length() != 1 {
		t.Fatal("explorer has no map")
	}
	if u, _ := m.Attr("data-map-url"); !strings.Contains(u, "term=guitar") {
		t.Errorf("explorer default map URL %q: want the demo's polysemous term guitar", u)
	}
	// The context map (Figure 7): suggested documents hold an OOV tag; choosing
	// one (a form posting its fields to the explorer, which then shows the
	// page of those fields) points the map at the context-map API.
	sugg := testid(doc, "context-docs").Find("form")
	if sugg.Length() == 0 {
		t.Fatal("explorer offers no document for the context map (the demo reserves OOV tags)")
	}
	if m, _ := sugg.First().Attr("method"); m != "post" || sugg.First().Find(`input[name="csrf_token"]`).Length() != 1 {
		t.Errorf("a context document's form: method %q, want a POST with the CSRF token", m)
	}
	fields := url.Values{}
	sugg.First().Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		if n, _ := in.Attr("name"); n != "csrf_token" {
			v, _ := in.Attr("value")
			fields.Set(n, v)
		}
	})
	href := "/explorer?" + fields.Encode()
	doc, body := ts.page(href)
	checkNoExternal(t, href, body)
	if u, _ := testid(doc, "map").Attr("data-map-url"); !strings.Contains(u, "/context-map?doc=") {
		t.Errorf("context map URL %q: want the context-map API", u)
	}
	doc, _ = ts.page("/priming?model=" + modelID + "&tags=" + url.QueryEscape("guitar, acoustic, zzz-unknown") + "&k=5")
	if n := testid(doc, "ranked-extended").Find(`[data-testid="ranked-item"]`).Length(); n != 5 {
		t.Errorf("extended list: got %d items, want 5", n)
	}
	if got := testid(doc, "oov-tag").Text(); got != "zzz-unknown" {
		t.Errorf("OOV tag: got %q, want zzz-unknown", got)
	}
	if n := testid(doc, "per-term").Length(); n != 3 {
		t.Errorf("per-term lists: got %d, want 3", n)
	}
	if doc.Find(`.hit`).Length() == 0 {
		t.Error("no hit marked in the priming lists")
	}
	doc = ts.pageAt("/priming?model="+modelID+"&tags=nope1,nope2", http.StatusUnprocessableEntity)
	if testid(doc, "error").Length() != 1 {
		t.Error("priming with only unknown tags shows no error")
	}
	doc, _ = ts.page("/compare")
	if testid(doc, "compare-models").Find("input").Length() == 0 || testid(doc, "compare-baselines").Find("input").Length() != len(baselines.Names) {
		t.Error("compare form lacks model or baseline choices")
	}
}

func TestTrainAndCompareForms(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	form := url.Values{"corpus_id": {c.ID}, "seed": {"x"}}
	rec := ts.postForm("/train", form)
	if rec.Code != 400 {
		t.Errorf("bad seed: got %d, want 400", rec.Code)
	}
	doc, _ := ts.page("/train")
	if doc.Find(`select[data-testid="param-early_stop"] option`).Length() != 3 ||
		doc.Find(`select[data-testid="param-early_stop"] option[value="`+ce.EarlyStopCompletion+`"]`).Length() != 1 ||
		doc.Find(`select[data-testid="param-early_stop"] option[selected]`).AttrOr("value", "") != ce.DefaultEarlyStop {
		t.Errorf("training form: want a choice of three early-stopping criteria, %s among them, %s selected", ce.EarlyStopCompletion, ce.DefaultEarlyStop)
	}
	if doc.Find(`select[data-testid="param-kappa"] option`).Length() != 3 ||
		doc.Find(`select[data-testid="param-kappa"] option[selected]`).AttrOr("value", "") != ce.DefaultKappa {
		t.Errorf("training form: want a choice of three class weightings, %s selected", ce.DefaultKappa)
	}
	// The start of stage 2 depends on the vocabulary by default: the form
	// offers "auto" first and selected, and sends no choice with it.
	if doc.Find(`select[data-testid="param-stage2_start"] option[selected]`).AttrOr("value", "") != "auto" {
		t.Error(`training form: want "auto" selected for the start of stage 2`)
	}
	if tp, err := trainParamsFromForm(formContext(url.Values{"stage2_start": {"auto"}})); err != nil || tp.Stage2Start != "" {
		t.Errorf(`form stage2_start "auto": got %q, %v; want the default (empty)`, tp.Stage2Start, err)
	}
	form = url.Values{"corpus_id": {c.ID}, "kappa": {"even"}}
	rec = ts.postForm("/train", form)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "kappa") {
		t.Errorf("bad kappa: got %d %q, want 400 naming kappa", rec.Code, rec.Body.String())
	}
	form = url.Values{"corpus_id": {c.ID}, "early_stop": {"loss"}}
	rec = ts.postForm("/train", form)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "early_stop") {
		t.Errorf("bad early_stop: got %d %q, want 400 naming early_stop", rec.Code, rec.Body.String())
	}
	for field, v := range map[string]string{"hidden": "8,,4", "topics": "ten", "learning_rate": "fast", "max_time_seconds": "soon"} {
		rec = ts.postForm("/train", url.Values{"corpus_id": {c.ID}, field: {v}})
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), field) || !strings.Contains(rec.Body.String(), v) {
			t.Errorf("bad %s %q: got %d %q, want 400 naming the field and the value", field, v, rec.Code, rec.Body.String())
		}
	}
	form = url.Values{"corpus_id": {c.ID}, "seed": {"2"}, "hidden": {"8,4"}, "max_time_seconds": {"30"}, "max_epochs1": {"1000"}, "patience": {"1000"},
		"early_stop": {"extended-map"}}
	rec = ts.postForm("/train", form)
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/models/") {
		t.Fatalf("train form: got %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	// The chosen criterion is what the model is trained with.
	mj := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api"+rec.Header().Get("Location"), ""))
	if b, _ := json.Marshal(mj.Params); !strings.Contains(string(b), `"early_stop":"extended-map"`) {
		t.Errorf("model params %s: want early_stop extended-map", b)
	}
	var tp trainParams
	if b, _ := json.Marshal(mj.Params); json.Unmarshal(b, &tp) != nil || tp.config(1).EarlyStop != "extended-map" {
		t.Errorf("params %+v do not configure early stopping on extended MAP", tp)
	}
	doc, _ = ts.page(rec.Header().Get("Location"))
	if testid(doc, "job-progress").Length() != 1 || testid(doc, "cancel-job").Length() != 1 {
		t.Error("model page of a training model lacks the live progress widget")
	}
	jobID, _ := testid(doc, "job-progress").Attr("data-job")
	ts.doJSON(http.MethodDelete, "/api/jobs/"+jobID, "")
	form = url.Values{"model_ids": {"nosuch"}, "setting": {"within-corpus"}}
	rec = ts.postForm("/compare", form)
	if rec.Code != 404 {
		t.Errorf("compare with unknown model: got %d, want 404", rec.Code)
	}
}

func TestMetricRange(t *testing.T) {
	// Expected strings written by hand from the rule: runs of ≥3 consecutive P@K collapse.
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"p@1", "p@2", "p@3", "p@4", "p@5", "p@6", "p@7", "p@8", "p@9", "p@10", "map", "auc"}, "p@1–p@10, map, auc"},
		{[]string{"p@1", "p@2", "map"}, "p@1, p@2, map"},
		{[]string{"p@1", "p@3", "p@4", "p@5", "auc"}, "p@1, p@3–p@5, auc"},
		{[]string{"map"}, "map"},
	}
	for _, tt := range tests {
		if got := metricRange(tt.in); got != tt.want {
			t.Errorf("metricRange(%v): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHomeVerdict checks that the first screen says plainly who ranks first in
// the demo model's comparison: a baseline winning MAP is named as winning,
// ours leading AUC is named as first.
func TestHomeVerdict(t *testing.T) {
	ts := newTestServer(t, Config{})
	ctx := context.Background()
	c, err := app.ImportCorpus(bytes.NewReader(smallTSV()), "songs", "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	row, err := ts.store.InsertCorpus(ctx, c, store.StatsOf(c), mustSplit(c), false)
	if err != nil {
		t.Fatal(err)
	}
	m := &store.ModelRow{CorpusID: row.ID, Name: "demo model", Seed: 1, Params: json.RawMessage(`{}`)}
	if err := ts.store.InsertModel(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := ts.store.SetModelState(ctx, m.ID, store.ModelReady); err != nil {
		t.Fatal(err)
	}
	if doc, _ := ts.page("/"); testid(doc, "demo-verdict").Length() != 0 {
		t.Fatal("a verdict before any evaluation")
	}
	trial := func(mapv, auc float64) []eval.TrialFigures {
		return []eval.TrialFigures{{Seed: 1, MAP: mapv, AUC: auc}, {Seed: 2, MAP: mapv + 0.01, AUC: auc}}
	}
	rep := eval.Report{Protocol: "extended", Subset: "test", Trials: 2, Models: []eval.ModelReport{
		{Name: "random", PerTrial: trial(0.04, 0.09)},
		{Name: "lsa", PerTrial: trial(0.49, 0.60)},
		{Name: "ce", PerTrial: trial(0.26, 0.45)},
		{Name: "siamese-ce", PerTrial: trial(0.47, 0.62)},
	}}
	req, _ := json.Marshal(evalRequest{ModelIDs: []string{m.ID}, Baselines: []string{"all"}, Protocol: "extended"})
	e := &store.EvalRow{CorpusID: row.ID, Request: req}
	if err := ts.store.InsertEval(ctx, e); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	if err := ts.store.SetEvalReport(ctx, e.ID, b); err != nil {
		t.Fatal(err)
	}
	doc, _ := ts.page("/")
	lines := testid(doc, "verdict-line")
	if lines.Length() != 2 {
		t.Fatalf("got %d verdict lines, want 2 (MAP, AUC)", lines.Length())
	}
	mapLine, aucLine := lines.Eq(0), lines.Eq(1)
	if mapLine.AttrOr("data-first", "") != "false" || !strings.Contains(mapLine.Text(), "MAP: the lsa baseline beats our method") ||
		!strings.Contains(mapLine.Text(), "0.495 against 0.475") {
		t.Errorf("MAP line %q: want lsa beating ours, 0.495 against 0.475", mapLine.Text())
	}
	if aucLine.AttrOr("data-first", "") != "true" || !strings.Contains(aucLine.Text(), "AUC: our Siamese-CE ranks first") {
		t.Errorf("AUC line %q: want Siamese-CE first", aucLine.Text())
	}
}

// TestTrainParamsDocumented checks that the API's training parameters are the
// documented ones (ce.Params) under their names, and that the form's fields
// are documented parameters with their help.
func TestTrainParamsDocumented(t *testing.T) {
	api := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[trainParams]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous || !f.IsExported() || name == "-":
			continue
		case name == "max_time_seconds":
			name = "max_time"
		}
		api[name] = true
	}
	for _, p := range ce.Params {
		if !api[p.Name] {
			t.Errorf("documented parameter %s is not a field of the API's params", p.Name)
		}
		delete(api, p.Name)
	}
	for name := range api {
		t.Errorf("API parameter %s is not documented in ce.Params", name)
	}
	for _, f := range trainParamsHelp {
		name := f.Name
		if name == "max_time_seconds" {
			name = "max_time"
		}
		if p := ce.ParamByName(name); !strings.Contains(f.Help, p.Help[1:]) || !strings.Contains(f.Help, p.Default) {
			t.Errorf("form field %s: help %q is not the documented one", f.Name, f.Help)
		}
	}
}

// formContext is an echo context of a POST of form.
func formContext(form url.Values) echo.Context {
	req := httptest.NewRequest(http.MethodPost, "/train", strings.NewReader(form.Encode()))
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	return echo.New().NewContext(req, httptest.NewRecorder())
}

package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/store"
)

func TestEvaluationAPI(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	rec := ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+modelID+`"],"subset":"test","protocol":"priming","baselines":["random","lda"],"trials":2}`)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	ids := decode[map[string]string](t, rec)
	if j := ts.waitJob(ids["job_id"]); j.State != store.JobDone {
		t.Fatalf("evaluation job: %s %s", j.State, j.Message)
	}
	rec = ts.doJSON(http.MethodGet, "/api/evaluations/"+ids["evaluation_id"], "")
	if rec.Code != 200 {
		t.Fatalf("get: %d %s", rec.Code, rec.Body)
	}
	var rep map[string]any
	json.Unmarshal(rec.Body.Bytes(), &rep)
	for _, f := range []string{"corpus", "subset", "protocol", "trials", "models", "p_values"} {
		if _, ok := rep[f]; !ok {
			t.Errorf("report lacks %q", f)
		}
	}
	models := rep["models"].([]any)
	names := map[string]bool{}
	for _, m := range models {
		mm := m.(map[string]any)
		names[mm["name"].(string)] = true
		for _, f := range []string{"p_at_k", "p_at_k_se", "map", "map_se", "pr", "pr_se", "auc", "auc_se", "queries"} {
			if _, ok := mm[f]; !ok {
				t.Errorf("model %v lacks %q", mm["name"], f)
			}
		}
		if n := len(mm["p_at_k"].([]any)); n != 10 {
			t.Errorf("p_at_k: got %d values, want 10", n)
		}
		if n := len(mm["pr"].([]any)); n != 11 {
			t.Errorf("pr: got %d values, want 11", n)
		}
	}
	for _, n := range []string{"ce", "siamese-ce", "random", "lda"} {
		if !names[n] {
			t.Errorf("report has no model %q (has %v)", n, names)
		}
	}
	list := decode[[]evalJSON](t, ts.doJSON(http.MethodGet, "/api/evaluations", ""))
	if len(list) == 0 {
		t.Error("evaluation not listed")
	}
	// The compare page renders the three charts.
	page := ts.do(http.MethodGet, "/compare/"+ids["evaluation_id"], nil, "").Body.String()
	for _, id := range []string{"chart-patk", "chart-map", "chart-auc", "chart-pr", "score-table"} {
		if !strings.Contains(page, `data-testid="`+id+`"`) {
			t.Errorf("evaluation page lacks %s", id)
		}
	}
}

// TestEvaluationSettings runs one trial of each setting of the compare form and
// checks which models the report holds and which notes say why a baseline was
// left out (the rules of taglens eval, paper §6.2.1-6.2.5).
func TestEvaluationSettings(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	// A second corpus: demo tags (all in the vocabulary) in new combinations, plus
	// documents with tags the model never saw.
	var b strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "x%02d\tguitar\trock\tdrums\n", i)
		fmt.Fprintf(&b, "y%02d\tguitar\tnever-seen-%d\trock\n", i, i%3)
	}
	other := decode[corpusJSON](t, ts.upload("other.tsv", []byte(b.String())))
	oovNames := []string{"ce-feature", "siamese-ce-feature", "ce-avg", "siamese-ce-avg"}
	tests := []evalSettingCase{
		{"extended on train: all baselines",
			`"subset":"train","protocol":"extended","baselines":["all"]`,
			append([]string{"ce", "siamese-ce"}, baselines.Names...), nil, nil},
		{"priming on test: contextual baselines only, crbm skipped",
			`"subset":"test","protocol":"priming","baselines":["all"]`,
			[]string{"random", "lda", "plsa", "ce", "siamese-ce"}, []string{"lsa", "pca", "infotheo", "skipgram", "crbm", "ppmi-svd", "glove"},
			[]string{"infotheo skipped", "skipgram skipped", "crbm skipped: its context is the training document", "ppmi-svd skipped", "glove skipped"}},
		{"incomplete context on train, extended: crbm with its context whole",
			`"subset":"train","protocol":"extended","setting":"incomplete-context","missing":"10-30","baselines":["random","crbm"]`,
			[]string{"random", "crbm", "ce", "siamese-ce"}, nil, nil},
		{"incomplete context on train, priming: crbm skipped",
			`"subset":"train","protocol":"priming","setting":"incomplete-context","missing":"10-30","baselines":["random","crbm"]`,
			[]string{"random", "ce", "siamese-ce"}, []string{"crbm"}, []string{"cannot be made incomplete"}},
		{"cross corpora",
			`"corpus_id":"` + other.ID + `","setting":"cross-corpora","protocol":"extended","baselines":["pca","crbm"]`,
			[]string{"pca", "ce", "siamese-ce"}, []string{"crbm"}, []string{"12 documents of other", "12 left out"}},
		{"OOV within the corpus",
			`"subset":"oov","setting":"oov","baselines":["random"]`,
			oovNames, []string{"random", "ce"}, []string{"baselines do not handle OOV"}},
		{"real OOV in another corpus",
			`"corpus_id":"` + other.ID + `","setting":"oov"`,
			oovNames, nil, []string{"12 documents with OOV terms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, ts, modelID) })
	}
	// Settings that contradict the chosen corpus or protocol are refused.
	m := `{"model_ids":["` + modelID + `"],`
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"cross-corpora"}`), 400, "another corpus")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"cross-corpora","corpus_id":"`+corpusID+`"}`), 400, "another corpus")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"corpus_id":"`+other.ID+`"}`), 400, "cross-corpora")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"oov","protocol":"extended"}`), 400, "priming protocol only")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"missing":"10-30"}`), 400, "incomplete-context")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", m+`"setting":"incomplete-context"}`), 400, "band")
}

// evalSettingCase is one evaluation of TestEvaluationSettings: the request's
// settings, the models the report must and must not hold, and substrings of
// its notes.
type evalSettingCase struct {
	name      string
	body      string
	want      []string // models in the report
	notWant   []string
	noteParts []string // substrings of the notes
}

// check runs the evaluation of model modelID with the case's settings and
// checks the report's models and notes.
func (tt evalSettingCase) check(t *testing.T, ts *testServer, modelID string) {
	t.Helper()
	rec := ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+modelID+`"],"trials":1,`+tt.body+`}`)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	ids := decode[map[string]string](t, rec)
	if j := ts.waitJob(ids["job_id"]); j.State != store.JobDone {
		t.Fatalf("evaluation job: %s %s", j.State, j.Message)
	}
	var rep struct {
		Models []struct {
			Name    string `json:"name"`
			Queries int    `json:"queries"`
		} `json:"models"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(ts.doJSON(http.MethodGet, "/api/evaluations/"+ids["evaluation_id"], "").Body.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, m := range rep.Models {
		names[m.Name] = true
		if m.Queries == 0 {
			t.Errorf("%s: 0 queries", m.Name)
		}
	}
	for _, n := range tt.want {
		if !names[n] {
			t.Errorf("report lacks %q (has %v)", n, names)
		}
	}
	for _, n := range tt.notWant {
		if names[n] {
			t.Errorf("report has %q, want it left out", n)
		}
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, p := range tt.noteParts {
		if !strings.Contains(notes, p) {
			t.Errorf("notes %q lack %q", notes, p)
		}
	}
}

// TestEvaluationSeedTrials: two models of one corpus trained with seeds 1 and 2
// share its split, and evaluated with seed_trials they are the two trials of one
// "ce" and one "siamese-ce" row.
func TestEvaluationSeedTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models")
	}
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	var ids []string
	for seed := 1; seed <= 2; seed++ {
		pj, _ := json.Marshal(map[string]any{"corpus_id": c.ID, "seed": seed, "params": fastParams})
		r := decode[map[string]string](t, ts.doJSON(http.MethodPost, "/api/models", string(pj)))
		if j := ts.waitJob(r["job_id"]); j.State != store.JobDone {
			t.Fatalf("training: %s %s", j.State, j.Message)
		}
		ids = append(ids, r["model_id"])
	}
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+ids[0]+`"],"seed_trials":true}`), 400, "at least two models")
	wantError(t, ts.doJSON(http.MethodPost, "/api/evaluations", `{"model_ids":["`+ids[0]+`","`+ids[1]+`"],"seed_trials":true,"trials":3}`), 400, "number of models")
	body := `{"model_ids":["` + ids[0] + `","` + ids[1] + `"],"seed_trials":true,"baselines":["random"],"protocol":"extended"}`
	r := decode[map[string]string](t, ts.doJSON(http.MethodPost, "/api/evaluations", body))
	if j := ts.waitJob(r["job_id"]); j.State != store.JobDone {
		t.Fatalf("evaluation: %s %s", j.State, j.Message)
	}
	rep := decode[eval.Report](t, ts.doJSON(http.MethodGet, "/api/evaluations/"+r["evaluation_id"], ""))
	var names []string
	for _, m := range rep.Models {
		names = append(names, m.Name)
		if len(m.PerTrial) != 2 {
			t.Errorf("%s: %d trials, want 2 (one per model)", m.Name, len(m.PerTrial))
		}
	}
	if got := strings.Join(names, ","); got != "random,ce,siamese-ce" || rep.Trials != 2 {
		t.Errorf("rows %s, %d trials; want random,ce,siamese-ce over 2 trials", got, rep.Trials)
	}
	// The two trials of ce use different models: their results differ.
	if ce := rep.Models[1]; ce.PerTrial[0].MAP == ce.PerTrial[1].MAP {
		t.Error("both trials of ce have the same MAP: the second model was not used")
	}
}

// TestEvalRequestAllBaselines checks that a request for every baseline keeps
// saying so after normalize expands ["all"] into the names (the run leaves
// GloVe out of "all" above baselines.MaxGloVeSteps), and that naming them
// does not.
func TestEvalRequestAllBaselines(t *testing.T) {
	r := evalRequest{ModelIDs: []string{"m1"}, Baselines: []string{"all"}}
	if _, err := r.normalize(); err != nil {
		t.Fatal(err)
	}
	if !r.AllBaselines || !slices.Equal(r.Baselines, baselines.Names) {
		t.Fatalf("after normalize: all %v, baselines %v", r.AllBaselines, r.Baselines)
	}
	if _, err := r.normalize(); err != nil || !r.AllBaselines {
		t.Errorf("normalized again: all %v, %v", r.AllBaselines, err)
	}
	named := evalRequest{ModelIDs: []string{"m1"}, Baselines: slices.Clone(baselines.Names)}
	if _, err := named.normalize(); err != nil || named.AllBaselines {
		t.Errorf("every baseline named: all %v, %v", named.AllBaselines, err)
	}
}

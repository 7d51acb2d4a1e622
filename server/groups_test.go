package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taglens/taglens/server/store"
)

// groupBody is a POST /api/groups body training n seeds from seed on
// corpus with fastParams.
func groupBody(t *testing.T, corpus string, seed, n int) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"corpus_id": corpus, "seed": seed, "seeds": n, "params": fastParams})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitGroup waits for the trainings of a group's members and returns the
// group as the API gives it.
func (ts *testServer) waitGroup(id string) groupJSON {
	ts.t.Helper()
	g := decode[groupJSON](ts.t, ts.doJSON(http.MethodGet, "/api/groups/"+id, ""))
	for _, m := range g.Models {
		if j := ts.waitJob(m.JobID); j.State != store.JobDone {
			ts.t.Fatalf("member %s: %s %s", m.ID, j.State, j.Message)
		}
	}
	return decode[groupJSON](ts.t, ts.doJSON(http.MethodGet, "/api/groups/"+id, ""))
}

// TestGroupsAPI: POST /api/groups trains a seed group (its members in seed
// order, their jobs' progress and queue messages while they wait); the group
// is listed and read back; deleting a model removes it from its group;
// deleting a group keeps its models unless asked, refuses to delete them
// while one trains (deleting nothing), and deletes them when asked.
func TestGroupsAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("trains models")
	}
	ts := newTestServer(t, Config{TrainSlots: 1})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))

	for _, bad := range []struct {
		body   string
		status int
		msg    string
	}{
		{groupBody(t, c.ID, 1, 1), 400, "seeds must be an integer in 2..10"},
		{groupBody(t, c.ID, 1, 11), 400, "seeds must be an integer in 2..10"},
		{groupBody(t, "nosuch", 1, 3), 404, `corpus "nosuch" not found`},
		{`{"corpus_id":"` + c.ID + `","seeds":3,"params":{"topics":-1}}`, 400, "params: "},
		{`{"corpus_id":"` + c.ID + `","seeds":3,"seed":18446744073709551615}`, 400, "pass the largest seed"},
		{`{"corpus_id":"` + c.ID + `","seeds":3,"name":"` + strings.Repeat("x", 201) + `"}`, 400, "name is longer than 200 bytes"},
	} {
		wantError(t, ts.doJSON(http.MethodPost, "/api/groups", bad.body), bad.status, bad.msg)
	}
	if gs := decode[[]groupJSON](t, ts.doJSON(http.MethodGet, "/api/groups", "")); len(gs) != 0 {
		t.Fatalf("refused requests stored %d groups", len(gs))
	}
	if ms := decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")); len(ms) != 0 {
		t.Fatalf("refused requests stored %d models", len(ms))
	}

	rec := ts.doJSON(http.MethodPost, "/api/groups", groupBody(t, c.ID, 4, 3))
	if rec.Code != http.StatusAccepted {
		t.Fatalf("POST /api/groups: %d %s", rec.Code, rec.Body)
	}
	created := decode[struct {
		GroupID  string   `json:"group_id"`
		ModelIDs []string `json:"model_ids"`
		JobIDs   []string `json:"job_ids"`
	}](t, rec)
	if len(created.ModelIDs) != 3 || len(created.JobIDs) != 3 {
		t.Fatalf("created %+v: want 3 models and 3 jobs", created)
	}
	g := decode[groupJSON](t, ts.doJSON(http.MethodGet, "/api/groups/"+created.GroupID, ""))
	// The settings that are not defaults, cut to 120 bytes.
	if settings := fastParamsNamed(t); len(settings) <= 120 || g.CorpusID != c.ID ||
		g.Name != "songs · "+settings[:117]+"… · seeds 4–6" {
		t.Errorf("group %q on %s: want the corpus, the settings (%s, cut) and the seeds", g.Name, g.CorpusID, settings)
	}
	queued := 0
	for i, m := range g.Models {
		if m.ID != created.ModelIDs[i] || m.Seed != uint64(4+i) || m.Name != fmt.Sprintf("songs · seed %d", 4+i) || m.JobID != created.JobIDs[i] {
			t.Errorf("member %d: %+v; want model %s, seed %d, job %s", i, m, created.ModelIDs[i], 4+i, created.JobIDs[i])
		}
		if m.JobState == store.JobQueued && i > 0 { // the first holds the one slot
			queued++
			if !strings.Contains(m.JobMessage, "position") {
				t.Errorf("queued member %d: message %q, want its place in the queue", i, m.JobMessage)
			}
		}
	}
	if queued == 0 {
		t.Errorf("one training slot and three members: none queued (%+v)", g.Models)
	}
	g = ts.waitGroup(g.ID)
	for _, m := range g.Models {
		if m.State != store.ModelReady || m.JobState != "" {
			t.Errorf("member %+v: want ready, its job no longer at work", m)
		}
	}
	if gs := decode[[]groupJSON](t, ts.doJSON(http.MethodGet, "/api/groups", "")); len(gs) != 1 || gs[0].ID != g.ID || len(gs[0].Models) != 3 {
		t.Fatalf("GET /api/groups: %+v", gs)
	}
	if m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+g.Models[0].ID, "")); m.GroupID != g.ID {
		t.Errorf("a member's detail names group %q, want %q", m.GroupID, g.ID)
	}

	// Deleting a model removes it from its group.
	if rec := ts.doJSON(http.MethodDelete, "/api/models/"+g.Models[1].ID, ""); rec.Code != http.StatusNoContent {
		t.Fatalf("deleting a member: %d %s", rec.Code, rec.Body)
	}
	if after := decode[groupJSON](t, ts.doJSON(http.MethodGet, "/api/groups/"+g.ID, "")); len(after.Models) != 2 ||
		after.Models[0].ID != g.Models[0].ID || after.Models[1].ID != g.Models[2].ID {
		t.Errorf("after deleting the second member: %+v", after.Models)
	}
	// Deleting the group keeps its models.
	if rec := ts.doJSON(http.MethodDelete, "/api/groups/"+g.ID, ""); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE group: %d %s", rec.Code, rec.Body)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/groups/"+g.ID, ""), 404, "not found")
	if ms := decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")); len(ms) != 2 {
		t.Errorf("after deleting the group alone: %d models, want its 2 kept", len(ms))
	}
	if m := decode[modelJSON](t, ts.doJSON(http.MethodGet, "/api/models/"+g.Models[0].ID, "")); m.GroupID != "" {
		t.Errorf("a model of a deleted group still names group %q", m.GroupID)
	}

	// With its models: refused while one trains, nothing deleted.
	rec = ts.doJSON(http.MethodPost, "/api/groups", groupBody(t, c.ID, 1, 2))
	if rec.Code != http.StatusAccepted {
		t.Fatalf("POST /api/groups: %d %s", rec.Code, rec.Body)
	}
	id := decode[map[string]any](t, rec)["group_id"].(string)
	wantError(t, ts.doJSON(http.MethodDelete, "/api/groups/"+id+"?with_models=1", ""), 409, "training; cancel the training first (nothing was deleted)")
	g = ts.waitGroup(id)
	if len(g.Models) != 2 {
		t.Fatalf("the refusal deleted members: %+v", g.Models)
	}
	if rec := ts.doJSON(http.MethodDelete, "/api/groups/"+id+"?with_models=1", ""); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE group with models: %d %s", rec.Code, rec.Body)
	}
	if ms := decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")); len(ms) != 2 {
		t.Errorf("after deleting the group with its models: %d models, want the 2 of the first group", len(ms))
	}
	wantError(t, ts.doJSON(http.MethodDelete, "/api/groups/"+id, ""), 404, "not found")
}

// fastParamsNamed is how a group's default name gives fastParams.
func fastParamsNamed(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(fastParams)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, kv := range kvs(m) {
		parts = append(parts, kv.Key+" "+kv.Value)
	}
	return strings.Join(parts, ", ")
}

// TestGroupPages: the training form's "Seeds" stores a group and leads to
// its comparison, which shows the group's members with their progress; the
// models page lists it; its page offers the comparison once the members are
// ready, and its deletion keeps the models or deletes them too.
func TestGroupPages(t *testing.T) {
	if testing.Short() {
		t.Skip("trains models")
	}
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	form := url.Values{"corpus_id": {c.ID}, "seeds": {"2"}, "seed": {"7"}, "hidden": {"24,10"}, "max_epochs1": {"3"},
		"max_epochs2": {"2"}, "patience": {"1"}, "epoch_examples": {"4000"}, "alpha": {"0.1"}, "lambda": {"2"}, "topics": {"8"}}
	rec := ts.postForm("/train", form)
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/compare?seed_trials=1&group=") {
		t.Fatalf("POST /train with 2 seeds: %d to %q; want the group's comparison", rec.Code, loc)
	}
	id := strings.TrimPrefix(loc, "/compare?seed_trials=1&group=")
	doc, _ := ts.page(loc)
	if n := testid(doc, "group-member").Length(); n != 2 {
		t.Fatalf("compare page: %d group members, want 2", n)
	}
	if link, _ := testid(doc, "group-link").Attr("href"); link != "/groups/"+id {
		t.Errorf("compare page: the group links to %q, want /groups/%s", link, id)
	}
	g := ts.waitGroup(id)

	doc, _ = ts.page("/compare?seed_trials=1&group=" + id)
	if n := doc.Find(`[data-testid="compare-models"] input:checked`).Length(); n != 2 {
		t.Errorf("compare page of the ready group: %d models chosen, want its 2", n)
	}
	doc, _ = ts.page("/models")
	row := doc.Find(`[data-testid="group-row"][data-group-id="` + id + `"]`)
	if row.Find(`[data-testid="group-row-member"]`).Length() != 2 || !strings.Contains(row.Text(), "2 of 2 ready") {
		t.Errorf("models page: group row %q; want its 2 members, ready", row.Text())
	}
	doc, _ = ts.page("/groups/" + id)
	if href, ok := testid(doc, "group-compare").Attr("href"); !ok || href != "/compare?seed_trials=1&group="+id {
		t.Errorf("group page: compare links to %q", href)
	}
	if _, hidden := testid(doc, "group-compare").Attr("hidden"); hidden {
		t.Error("group page: the comparison of a ready group is hidden")
	}
	for _, m := range g.Models {
		if name := doc.Find(`[data-member="` + m.ID + `"] a`).First().Text(); name != m.Name || !strings.Contains(m.Name, "seed") {
			t.Errorf("group page: member %s named %q, want %q", m.ID, name, m.Name)
		}
	}

	// Its deletion asks: keep the models, or delete them too.
	keep, _ := testid(doc, "delete-group").Attr("hx-delete")
	both, _ := testid(doc, "delete-group-models").Attr("hx-delete")
	if keep != "/groups/"+id || both != "/groups/"+id+"?with_models=1" {
		t.Fatalf("delete buttons: %q and %q", keep, both)
	}
	if confirm, _ := testid(doc, "delete-group-models").Attr("hx-confirm"); !strings.Contains(confirm, "its 2 models") {
		t.Errorf("deleting with the models confirms %q", confirm)
	}
	if res := ts.htmxDelete(keep, false); res.Header.Get("X-Status") != "403" {
		t.Errorf("DELETE without the CSRF token: %d (X-Status %q), want 403", res.StatusCode, res.Header.Get("X-Status"))
	}
	res := ts.htmxDelete(both, true)
	if res.StatusCode != http.StatusNoContent || res.Header.Get("HX-Redirect") != "/models" {
		t.Fatalf("DELETE %s: %d, redirect %q", both, res.StatusCode, res.Header.Get("HX-Redirect"))
	}
	if ms := decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")); len(ms) != 0 {
		t.Errorf("after deleting the group with its models: %d models left", len(ms))
	}
	if rec := ts.do(http.MethodGet, "/groups/"+id, nil, ""); rec.Code != http.StatusNotFound {
		t.Errorf("GET the deleted group's page: %d, want 404", rec.Code)
	}
}

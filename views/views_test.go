package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
)

func renderDoc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func byID(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

func TestJobProgress(t *testing.T) {
	tests := []struct {
		job        Job
		wantCancel bool
		wantWidth  string
		wantETA    string
	}{
		{Job{ID: "j1", State: "running", Stage: "stage1", Message: "epoch 2", Progress: 0.25, ETA: 30, ChartID: "curve"}, true, "width:25.0%;", "about 30 s left"},
		{Job{ID: "j2", State: "done", Progress: 1, ETA: 30}, false, "width:100.0%;", ""},
		{Job{ID: "j3", State: "queued"}, true, "width:0.0%;", ""},
	}
	for _, tt := range tests {
		doc := renderDoc(t, JobProgress(tt.job))
		w := byID(doc, "job-progress")
		if id, _ := w.Attr("data-job"); id != tt.job.ID {
			t.Errorf("%s: data-job %q", tt.job.ID, id)
		}
		if got := byID(doc, "cancel-job").Length() == 1; got != tt.wantCancel {
			t.Errorf("%s: cancel button %v, want %v", tt.job.ID, got, tt.wantCancel)
		}
		if st, _ := w.Find(`[data-role="bar"]`).Attr("style"); st != tt.wantWidth {
			t.Errorf("%s: bar style %q, want %q", tt.job.ID, st, tt.wantWidth)
		}
		if got := strings.TrimSpace(w.Find(`[data-role="eta"]`).Text()); got != tt.wantETA {
			t.Errorf("%s: eta %q, want %q", tt.job.ID, got, tt.wantETA)
		}
	}
}

func TestPrimingPageEscapesAndMarks(t *testing.T) {
	evil := `<b onmouseover=x>`
	vm := PrimingPage{Models: []Model{{ID: "m", Name: "M", State: "ready"}}, ModelID: "m", K: "3",
		Result: &PrimeResult{Tags: []string{"rock", evil}, OOV: []OOVTag{{Tag: evil}},
			Extended: []Ranked{{Term: "guitar", Distance: 0.5}, {Term: "rock", Distance: 0.7, Hit: true}},
			PerTerm:  []TermList{{Term: "rock", Items: []Ranked{{Term: "rock", Hit: true}}}, {Term: evil, OOV: true}}}}
	doc := renderDoc(t, PrimingPageView(vm))
	if got := byID(doc, "oov-tag").Text(); got != evil {
		t.Errorf("OOV tag text: got %q, want %q", got, evil)
	}
	if doc.Find("b[onmouseover]").Length() != 0 {
		t.Error("a tag was rendered as markup")
	}
	items := byID(doc, "ranked-extended").Find(`[data-testid="ranked-item"]`)
	if items.Length() != 2 || !items.Eq(1).HasClass("hit") || items.Eq(0).HasClass("hit") {
		t.Errorf("extended list: %d items, hit marks wrong", items.Length())
	}
	if byID(doc, "per-term").Length() != 2 {
		t.Error("want one list per tag")
	}
}

// TestPrimingPageWidthNote: the result says its distances are in units of
// the terms' widths when the model has them, and nothing of the kind when not.
func TestPrimingPageWidthNote(t *testing.T) {
	res := PrimeResult{Tags: []string{"rock"}, Extended: []Ranked{{Term: "guitar", Distance: 0.5}}}
	vm := PrimingPage{Models: []Model{{ID: "m", Name: "M", State: "ready"}}, ModelID: "m", Result: &res}
	if n := byID(renderDoc(t, PrimingPageView(vm)), "width-note").Length(); n != 0 {
		t.Errorf("without widths: %d width notes", n)
	}
	res.Width = 0.3
	note := byID(renderDoc(t, PrimingPageView(vm)), "width-note")
	if note.Length() != 1 || !strings.Contains(note.Text(), "β = 0.3") {
		t.Errorf("with β = 0.3: note %q", note.Text())
	}
}

func TestChartBox(t *testing.T) {
	c := Chart{ID: "taguse", Height: "320px", Option: map[string]any{"title": "</script>"}}
	doc := renderDoc(t, ChartBox(c))
	if doc.Find("#taguse").Length() != 1 || byID(doc, "chart-taguse").Length() != 1 {
		t.Error("chart element or test id missing")
	}
	if got := doc.Find("#taguse").AttrOr("style", ""); got != "width:100%;height:320px;" {
		t.Errorf("chart element style %q", got)
	}
	// The options are one JSON script whose "</script>" is escaped, so it
	// does not end the element.
	s := doc.Find(`script#` + ChartOptionID("taguse"))
	if s.Length() != 1 || s.AttrOr("type", "") != "application/json" {
		t.Fatalf("option block: %d scripts", s.Length())
	}
	if got, want := s.Text(), `{"title":"\u003c/script\u003e"}`+"\n"; got != want {
		t.Errorf("option block: got %q, want %q", got, want)
	}
}

func TestCorpusTableAndErrorBox(t *testing.T) {
	doc := renderDoc(t, CorpusTable(nil))
	if byID(doc, "no-corpora").Length() != 1 {
		t.Error("empty table: want the empty-state message")
	}
	doc = renderDoc(t, CorpusTable([]Corpus{{ID: "a", Name: "<i>x</i>", Docs: 3, Tags: 2}, {ID: "b", Name: "y", Builtin: true}}))
	if n := byID(doc, "corpus-row").Length(); n != 2 {
		t.Errorf("rows: got %d, want 2", n)
	}
	if doc.Find("td i").Length() != 0 {
		t.Error("corpus name rendered as markup")
	}
	doc = renderDoc(t, ErrorBox(`line 3: bad <tag>`))
	if got := byID(doc, "error").Text(); got != `line 3: bad <tag>` {
		t.Errorf("error box: got %q", got)
	}
}

// The CSRF token from the context goes into <body hx-headers> and the forms'
// hidden field; without one, neither is rendered.
func TestCSRFTokenRendered(t *testing.T) {
	page := TrainPageView(TrainPage{Corpora: []Corpus{{ID: "c1", Name: "songs"}}})
	var buf bytes.Buffer
	if err := page.Render(WithCSRFToken(context.Background(), `tok"<&`), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h := doc.Find("body").AttrOr("hx-headers", ""); h != `{"X-CSRF-Token":"tok\"\u003c\u0026"}` {
		t.Errorf("hx-headers %q", h)
	}
	if v := doc.Find(`form[method="post"] input[name="csrf_token"]`).AttrOr("value", ""); v != `tok"<&` {
		t.Errorf("hidden field value %q", v)
	}
	doc = renderDoc(t, page)
	if _, ok := doc.Find("body").Attr("hx-headers"); ok || doc.Find(`input[name="csrf_token"]`).Length() != 0 {
		t.Error("without a token: want no hx-headers and no hidden field")
	}
}

// The loss curve goes below zero; the model page says why, next to the chart.
func TestModelPageExplainsNegativeLoss(t *testing.T) {
	doc := renderDoc(t, ModelPageView(ModelPage{Model: Model{ID: "m1", Name: "m", State: "ready"}, Curve: Chart{ID: "curve"}}))
	section := byID(doc, "chart-curve").Closest("section")
	if section.Length() != 1 {
		t.Fatal("no section holds the training chart")
	}
	note := section.Find(`[data-testid="loss-note"]`)
	if note.Length() != 1 {
		t.Fatal("no loss-note beside the training chart")
	}
	text := note.Text()
	for _, want := range []string{"Eq. 5", "log(1+ŷ)", "negative", "Lower is better", "below zero"} {
		if !strings.Contains(text, want) {
			t.Errorf("loss note %q lacks %q", text, want)
		}
	}
}

// Each map with selections has its toolbar immediately before its box and its
// panel immediately after (static/js/select.js binds them there), rendered
// disabled and without test ids: the tests wait for a test id such as
// tool-lasso to know the tools are bound.
func TestMapToolsReserved(t *testing.T) {
	ms := []Model{{ID: "m1", Name: "m", State: "ready"}}
	pages := map[string]ExplorerPage{
		"map":           {Models: ms, ModelID: "m1", MapURL: "/api/x", Map: Chart{ID: "map"}},
		"space-map":     {Models: ms, ModelID: "m1", View: "space", SpaceURL: "/api/x", Map: Chart{ID: "space"}},
		"instances-map": {Models: ms, ModelID: "m1", View: "instances", InstancesURL: "/api/x", Map: Chart{ID: "instances"}},
	}
	for id, vm := range pages {
		doc := renderDoc(t, ExplorerPageView(vm))
		box := byID(doc, id)
		if box.Length() != 1 {
			t.Fatalf("%s: no map box", id)
		}
		tools, panel := box.Prev(), box.Next()
		if !tools.HasClass("map-tools") || !panel.HasClass("selection-panel") {
			t.Errorf("%s: the box is between %q and %q, want the toolbar and the selection panel", id, tools.AttrOr("class", ""), panel.AttrOr("class", ""))
			continue
		}
		var texts []string
		tools.Find("button, label").Each(func(_ int, s *goquery.Selection) { texts = append(texts, strings.TrimSpace(s.Text())) })
		if got, want := strings.Join(texts, "|"), "Pan|Lasso|Box|Clear selection|Density|Region labels"; got != want {
			t.Errorf("%s: toolbar %q, want %q", id, got, want)
		}
		if n := tools.Find("button:not([disabled]), input:not([disabled])").Length(); n != 0 {
			t.Errorf("%s: %d controls of the toolbar enabled before select.js binds them", id, n)
		}
		if n := doc.Find(`.map-tools [data-testid], .map-tools[data-testid], .selection-panel [data-testid], .selection-panel[data-testid]`).Length(); n != 0 {
			t.Errorf("%s: %d test ids in the toolbar or the panel before they are bound", id, n)
		}
		for _, role := range []string{"hists", "summary", "csv", "list"} {
			if panel.Find(`[data-role="`+role+`"]`).Length() != 1 {
				t.Errorf("%s: the panel has no %s", id, role)
			}
		}
		if !strings.Contains(panel.Find(".hists").Text(), "Histograms appear when the map is ready") {
			t.Errorf("%s: the empty panel says %q", id, strings.TrimSpace(panel.Text()))
		}
	}
}

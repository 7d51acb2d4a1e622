package eval

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixedResult returns a Result whose figures are simple functions of base.
func fixedResult(base float64, queries int) *Result {
	r := &Result{MAP: base, Queries: queries, Docs: queries / 2, Skipped: 1}
	for k := range r.PAtK {
		r.PAtK[k] = base / float64(k+1)
	}
	for l := range r.PR {
		r.PR[l] = base * (1 - float64(l)/20)
	}
	r.AUC = AUC(&r.PR)
	return r
}

func sampleReport(trials int) *Report {
	seeds := []uint64{1, 2, 3}[:trials]
	rep := &Report{
		Corpus: "mtg-jamendo", Subset: "test", Protocol: string(Extended), Trials: trials,
		Setting: WithinCorpus, Interpolation: Interpolation, Seeds: seeds,
	}
	models := []struct {
		name string
		base []float64
	}{
		{"random", []float64{0.01, 0.012, 0.011}},
		{"siamese-ce", []float64{0.5, 0.52, 0.49}},
		{"ce", []float64{0.4, 0.45, 0.43}},
	}
	for _, m := range models {
		res := make([]*Result, trials)
		for i := range res {
			res[i] = fixedResult(m.base[i], 100)
		}
		mr := Summarize(m.name, res, seeds)
		if m.name == "ce" {
			mr.Tuning = map[string]any{"model_files": []string{"a.model"}, "topics": 19}
		}
		rep.Models = append(rep.Models, mr)
	}
	rep.ComputePValues()
	return rep
}

// TestReportGolden pins the JSON shape of the eval report (docs/design.md, "Contracts"); run with
// -update to rewrite testdata/*.golden after an intended change.
func TestReportGolden(t *testing.T) {
	for _, trials := range []int{1, 3} {
		name := filepath.Join("testdata", "report_trials"+string(rune('0'+trials))+".golden")
		got, err := json.MarshalIndent(sampleReport(trials), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		if *update {
			if err := os.WriteFile(name, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs (run go test -update to accept):\n%s", name, got)
		}
	}
}

// TestReportContract checks the fields docs/design.md says are relied upon.
func TestReportContract(t *testing.T) {
	b, err := json.Marshal(sampleReport(3))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"corpus", "subset", "protocol", "trials", "models", "p_values"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	lens := map[string]int{"p_at_k": 10, "p_at_k_se": 10, "pr": 11, "pr_se": 11}
	for _, mm := range m["models"].([]any) {
		mod := mm.(map[string]any)
		for _, k := range []string{"name", "map", "map_se", "auc", "auc_se", "queries"} {
			if _, ok := mod[k]; !ok {
				t.Errorf("model lacks %q", k)
			}
		}
		for k, n := range lens {
			if a, _ := mod[k].([]any); len(a) != n {
				t.Errorf("model %v: %s has %d values, want %d", mod["name"], k, len(a), n)
			}
		}
	}
}

func TestSummarizeAndPValues(t *testing.T) {
	rep := sampleReport(3)
	// siamese-ce MAP trials 0.5, 0.52, 0.49: mean 0.5033…, SS = 0.000466…,
	// SE = √(SS/2/3) (hand computation).
	sc := rep.Models[1]
	if !closeTo(sc.MAP, 1.51/3, 1e-12) || !closeTo(sc.MAPSE, 0.00881917103688, 1e-11) {
		t.Errorf("siamese-ce MAP: got %v ± %v, want %v ± 0.008819", sc.MAP, sc.MAPSE, 1.51/3)
	}
	pv := rep.PValues["map"]
	if pv.Best != "siamese-ce" || pv.RunnerUp != "ce" || pv.P == nil {
		t.Fatalf("map p-value: got %+v, want siamese-ce over ce with a p-value", pv)
	}
	_, want, _ := StudentTTest([]float64{0.5, 0.52, 0.49}, []float64{0.4, 0.45, 0.43})
	if *pv.P != want {
		t.Errorf("map p: got %v, want %v", *pv.P, want)
	}
	one := sampleReport(1)
	if one.PValues["auc"].P != nil || len(one.Notes) == 0 {
		t.Errorf("one trial: got p %v notes %v, want null and a note", one.PValues["auc"].P, one.Notes)
	}
	var sb strings.Builder
	if err := rep.WriteTable(&sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "siamese-ce") || !strings.Contains(sb.String(), "map: best siamese-ce, runner-up ce") {
		t.Errorf("table lacks rows:\n%s", sb.String())
	}
}

// TestPValuesConstantTrials: when neither the best nor the runner-up varies across
// trials, the t-test degenerates (t = ±Inf) and no p-value is reported.
func TestPValuesConstantTrials(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	rep := &Report{Trials: 3, Seeds: seeds}
	for _, m := range []struct {
		name string
		base float64
	}{{"a", 0.3}, {"b", 0.5}} {
		res := []*Result{fixedResult(m.base, 10), fixedResult(m.base, 10), fixedResult(m.base, 10)}
		rep.Models = append(rep.Models, Summarize(m.name, res, seeds))
	}
	rep.ComputePValues()
	pv := rep.PValues["map"]
	if pv.Best != "b" || pv.RunnerUp != "a" || pv.P != nil || len(rep.Notes) != 1 {
		t.Errorf("got %+v, notes %v, want b over a, no p-value, one note", pv, rep.Notes)
	}
}

// TestLeadOf compares the better of two "ours" models with the best other
// model; figures by hand from the per-trial values below.
func TestLeadOf(t *testing.T) {
	mk := func(name string, maps ...float64) ModelReport {
		m := ModelReport{Name: name}
		for i, v := range maps {
			m.PerTrial = append(m.PerTrial, TrialFigures{Seed: uint64(i + 1), MAP: v, AUC: 1 - v})
		}
		return m
	}
	r := &Report{Models: []ModelReport{mk("lsa", 0.4, 0.5, 0.6), mk("random", 0.1, 0.1, 0.1), mk("ce", 0.2, 0.2, 0.2), mk("siamese-ce", 0.3, 0.3, 0.3)}}
	l, ok := r.LeadOf("map", []string{"ce", "siamese-ce"})
	if !ok || l.Ours != "siamese-ce" || l.Other != "lsa" || l.First() || l.Rank != 2 || l.Models != 3 {
		t.Fatalf("map: got %+v, want siamese-ce second of 3 behind lsa", l)
	}
	if math.Abs(l.OursMean-0.3) > 1e-15 || math.Abs(l.OtherMean-0.5) > 1e-15 || math.Abs(l.Margin()+0.4) > 1e-12 {
		t.Errorf("map: means %v, %v margin %v; want 0.3, 0.5, -0.4", l.OursMean, l.OtherMean, l.Margin())
	}
	if math.IsNaN(l.P) || l.P <= 0 || l.P >= 0.05 {
		t.Errorf("map: p = %v, want a small p (0.3 constant against 0.4, 0.5, 0.6)", l.P)
	}
	// AUC = 1 − MAP: random (0.9) leads ce (0.8), the better of ours.
	l, _ = r.LeadOf("auc", []string{"ce", "siamese-ce"})
	if l.Ours != "ce" || l.Other != "random" || l.Rank != 2 {
		t.Errorf("auc: got %+v, want ce behind random", l)
	}
	if l, ok := r.LeadOf("map", []string{"lsa"}); !ok || !l.First() || l.Other != "siamese-ce" {
		t.Error("lsa as ours: want it first, ahead of siamese-ce")
	}
	if _, ok := r.LeadOf("map", []string{"none"}); ok {
		t.Error("no model of ours: want ok = false")
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/report"
	"github.com/taglens/taglens/ml/eval"
)

// fakeModel returns a model report with the given MAP and AUC (and SEs), its
// other figures constant.
func fakeModel(name string, mapV, mapSE, auc, aucSE float64, tuning map[string]any) eval.ModelReport {
	ten := make([]float64, 10)
	eleven := make([]float64, eval.RecallLevels)
	for i := range ten {
		ten[i] = 0.5
	}
	return eval.ModelReport{Name: name, PAtK: ten, PAtKSE: ten, PR: eleven, PRSE: eleven,
		MAP: mapV, MAPSE: mapSE, AUC: auc, AUCSE: aucSE, Queries: 7, Docs: 7,
		PerTrial: []eval.TrialFigures{{Seed: 1, PAtK: ten, MAP: mapV, PR: eleven, AUC: auc}}, Tuning: tuning}
}

// twoTrials gives m two trials with MAP m.MAP ∓ 0.01 and a constant AUC.
func twoTrials(m eval.ModelReport) eval.ModelReport {
	t := m.PerTrial[0]
	m.PerTrial = []eval.TrialFigures{t, t}
	m.PerTrial[0].MAP, m.PerTrial[1].MAP = m.MAP-0.01, m.MAP+0.01
	m.PerTrial[1].Seed = 2
	return m
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportCommand runs taglens report on hand-made evaluation reports and
// checks the figures of the document against values computed by hand.
// Kept in one function: the reports and the expected figures are one worked
// example, laid out together.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	p := 0.0123
	// corpus a, extended, test: siamese-ce 0.60 beats pca 0.50 in MAP (by hand:
	// (0.60-0.50)/0.50 = +20.0 %, +10.0 pts) but loses to pca in AUC (0.40 vs 0.50:
	// -20.0 %, -10.0 pts, rank 2 of 3). Ours vs pca over two trials, MAP {0.59, 0.61}
	// vs {0.49, 0.51}: s_p² = 0.0002, t = 0.1/(√0.0002·√1) = 7.0711, df = 2, and the
	// t CDF for df = 2 is 1/2 + t/(2√(2+t²)), so p = 1 − t/√(2+t²) = 0.0194; the AUC
	// values are constant in both (a degenerate test: n/a).
	writeJSONFile(t, filepath.Join(dir, "a-extended-test.json"), eval.Report{
		Corpus: "a", Subset: "test", Protocol: "extended", Trials: 3, Setting: eval.WithinCorpus,
		Interpolation: eval.Interpolation, Seeds: []uint64{1, 2, 3},
		Models: []eval.ModelReport{
			twoTrials(fakeModel("pca", 0.50, 0.01, 0.50, 0.02, map[string]any{"per_trial": []any{map[string]any{"dim": 35, "grid": []any{1, 2, 3}, "seed": 1}}})),
			fakeModel("ce", 0.55, 0.01, 0.30, 0.02, map[string]any{"per_trial": []any{map[string]any{"model_file": "/tmp/x/a-s1.model"}}}),
			twoTrials(fakeModel("siamese-ce", 0.60, 0.01, 0.40, 0.02, map[string]any{"per_trial": []any{map[string]any{"model_file": "/tmp/x/a-s1.model"}}})),
		},
		PValues: map[string]eval.PValue{"map": {Best: "siamese-ce", RunnerUp: "ce", P: &p}},
		Notes:   []string{"a note"},
	})
	// corpus b (listed first by --corpora), extended, test: ce first in both.
	writeJSONFile(t, filepath.Join(dir, "b-extended-test.json"), eval.Report{
		Corpus: "b", Subset: "test", Protocol: "extended", Trials: 1, Setting: eval.WithinCorpus, Seeds: []uint64{1},
		Models: []eval.ModelReport{fakeModel("random", 0.10, 0, 0.20, 0, nil), fakeModel("ce", 0.30, 0, 0.40, 0, nil)},
	})
	// An incomplete-context pair of bands, given out of order.
	for _, band := range []string{"30-50", "0-10"} {
		writeJSONFile(t, filepath.Join(dir, "a-band-"+band+".json"), eval.Report{
			Corpus: "a", Subset: "train", Protocol: "priming", Trials: 1, Setting: eval.IncompleteContext, Missing: band,
			Models: []eval.ModelReport{fakeModel("ce", 0.3, 0, 0.3, 0, nil)},
		})
	}
	writeJSONFile(t, filepath.Join(dir, "a-s1.train.json"), trainSummary{Model: "a-s1.model", Training: report.Training{Corpus: "a", Vocabulary: 12, TrainDocs: 30, Seconds: 4.25}})
	writeJSONFile(t, filepath.Join(dir, "other.json"), map[string]int{"x": 1})
	if err := os.WriteFile(filepath.Join(dir, "run.tsv"), []byte("wall time\t1h 2m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	claims := writeTemp(t, "claims.tsv", "# comment\n"+
		"a\t-\textended\ttest\t-\tce,siamese-ce\tmap\t23\tSiamese-CE beats the runner-up by 23 %\n"+
		"a\t-\textended\ttest\t-\tce,siamese-ce\tauc\t-\tours wins AUC\n"+
		"c\t-\textended\ttest\t-\tce\tmap\t5\tnot run\n")
	out := filepath.Join(dir, "out.md")
	var stdout, stderr bytes.Buffer
	args := []string{"report", "--in", dir, "--out", out, "--claims", claims, "--corpora", "b,a"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("report: %v (stderr %s)", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"| model | b MAP | b AUC | a MAP | a AUC |", // headline in --corpora order
		"| siamese-ce | – | – | **0.600 ± 0.010** | 0.400 ± 0.020 |",
		"| pca | – | – | 0.500 ± 0.010 | **0.500 ± 0.020** |",
		"| a | extended | test | siamese-ce 0.600 | pca 0.500 | +20.0 % (+10.0 pts) | 1 of 3 | 0.019 | siamese-ce 0.400 | pca 0.500 | -20.0 % (-10.0 pts) | 2 of 3 | n/a |",
		"MAP p = 0.012 (siamese-ce vs ce)",
		"CE or Siamese-CE ranks first in 3 of 4 (report, metric) pairs.",
		"| Siamese-CE beats the runner-up by 23 % | +23 % | siamese-ce 0.600 ± 0.010 | pca 0.500 ± 0.010 | +20.0 % (+10.0 pts) | 0.019 | yes | **no** |",
		"| ours wins AUC | – | siamese-ce 0.400 ± 0.020 | pca 0.500 ± 0.020 | -20.0 % (-10.0 pts) | n/a | **no**: pca leads, ours rank 2 of 3 | – |",
		"| not run | +5 % | not measured |",
		"| 0-10 % MAP | 0-10 % AUC | 30-50 % MAP | 30-50 % AUC |", // bands sorted by lower bound
		"Documents evaluated per trial: 0-10 %: 7 (0 skipped); 30-50 %: 7 (0 skipped).",
		"- note: a note",
		"| pca | 1 | dim=35, grid=3 points, seed=1 |",
		"| ce, siamese-ce | 1 | model_file=a-s1.model | a-extended-test.json |", // same tuning, one row
		"| a-s1.train.json | a | 30 |",
		"| wall time | 1h 2m |",
		"Precision-recall interpolation (eval.Interpolation, as recorded in the reports): " + eval.Interpolation,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("document lacks %q:\n%s", want, md)
		}
	}
	if i, j := strings.Index(md, "### b, extended"), strings.Index(md, "### a, extended"); i < 0 || j < 0 || i > j {
		t.Errorf("got section b at %d and a at %d, want b first (--corpora b,a)", i, j)
	}
	if !strings.Contains(stderr.String(), "other.json skipped") {
		t.Errorf("stderr lacks the skipped file: %s", stderr.String())
	}

	// Same inputs → same bytes.
	out2 := filepath.Join(t.TempDir(), "out2.md")
	args[4] = out2
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(out2); !bytes.Equal(b, b2) {
		t.Errorf("two renderings of the same files differ")
	}
}

func TestReportCommandErrors(t *testing.T) {
	empty := t.TempDir()
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "x.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := t.TempDir()
	writeJSONFile(t, filepath.Join(short, "s.json"), eval.Report{Protocol: "extended", Models: []eval.ModelReport{{Name: "ce", PAtK: []float64{1}}}})
	good := t.TempDir()
	writeJSONFile(t, filepath.Join(good, "g.json"), eval.Report{Corpus: "a", Protocol: "extended", Subset: "test",
		Models: []eval.ModelReport{fakeModel("ce", 0.3, 0, 0.3, 0, nil)}})
	badClaims := writeTemp(t, "c.tsv", "a\tb\tc\n")
	out := filepath.Join(t.TempDir(), "o.md")
	for _, tc := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"--out", out}, true, "missing -in"},
		{[]string{"--in", empty, "--out", out, "--bogus"}, true, "bogus"},
		{[]string{"--in", empty, "--out", out}, false, "no eval report"},
		{[]string{"--in", bad, "--out", out}, false, "x.json"},
		{[]string{"--in", short, "--out", out}, false, `model "ce"`},
		{[]string{"--in", good, "--out", out, "--claims", badClaims}, false, "line 1: 3 fields"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"report"}, tc.args...), &stdout, &stderr)
		if err == nil {
			t.Errorf("%v: got nil error, want %q", tc.args, tc.want)
			continue
		}
		if got := errors.As(err, new(*usageError)); got != tc.usage {
			t.Errorf("%v: usage error %v, want %v (%v)", tc.args, got, tc.usage, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want it to mention %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed report wrote %s", out)
	}
}

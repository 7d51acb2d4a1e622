package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// suiteModel is a model report with the given per-trial MAP and AUC.
func suiteModel(name string, maps, aucs []float64) eval.ModelReport {
	m := eval.ModelReport{Name: name, Docs: 10}
	for i := range maps {
		m.PerTrial = append(m.PerTrial, eval.TrialFigures{Seed: uint64(i + 1), MAP: maps[i], AUC: aucs[i]})
	}
	m.MAP, m.MAPSE = eval.MeanSE(maps)
	m.AUC, m.AUCSE = eval.MeanSE(aucs)
	return m
}

// TestSuiteTable renders two corpora, one where ours leads in MAP and trails in
// AUC, and checks ranks, margins and the summary line.
func TestSuiteTable(t *testing.T) {
	dir := t.TempDir()
	writeJSONFile(t, filepath.Join(dir, "alpha.extended.json"), eval.Report{Corpus: "alpha", Trials: 3, Models: []eval.ModelReport{
		suiteModel("random", []float64{0.1, 0.1, 0.1}, []float64{0.1, 0.1, 0.1}),
		suiteModel("lsa", []float64{0.40, 0.41, 0.39}, []float64{0.60, 0.61, 0.59}),
		suiteModel("ce", []float64{0.30, 0.31, 0.29}, []float64{0.40, 0.40, 0.40}),
		suiteModel("siamese-ce", []float64{0.50, 0.52, 0.48}, []float64{0.50, 0.50, 0.50}),
	}})
	writeJSONFile(t, filepath.Join(dir, "beta.extended.json"), eval.Report{Corpus: "beta", Trials: 3, Models: []eval.ModelReport{
		suiteModel("infotheo", []float64{0.2, 0.2, 0.2}, []float64{0.3, 0.3, 0.3}),
		suiteModel("glove", []float64{0.3, 0.3, 0.3}, []float64{0.35, 0.35, 0.35}),
		suiteModel("ce", []float64{0.25, 0.25, 0.25}, []float64{0.4, 0.4, 0.4}),
	}})
	for s, secs := range []string{"100", "120", "90"} {
		if err := os.WriteFile(filepath.Join(dir, "train-alpha-s"+string(rune('1'+s))+".time"), []byte(secs+"\t2048\t150\t10\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{"CODE_ID": "0123456789ab\n", "COMMIT": "fedcba9876543210fedcba9876543210fedcba98\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A training still running has an empty time file: not counted yet.
	if err := os.WriteFile(filepath.Join(dir, "train-beta-s1.time"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := runSuite(t.Context(), []string{"--in", dir, "--out", "-"}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	got := out.String()
	for _, want := range []string{
		// alpha: Siamese-CE 0.50 beats LSA 0.40 in MAP (+25 %), LSA 0.60 beats it in AUC (rank 2 of 3).
		"| alpha | 10 | **0.500 ± 0.012 Siamese-CE** | 0.400 ± 0.006 lsa | +25.0 % |",
		"| 0.500 ± 0.000 Siamese-CE | **0.600 ± 0.006 lsa** | -16.7 % |",
		"| **2** of 3 |",
		// beta: GloVe 0.30 beats CE 0.25 in MAP; CE leads AUC.
		"| beta | 10 | 0.250 ± 0.000 CE | **0.300 ± 0.000 glove** | -16.7 % |",
		"Ours first in MAP on 1 of 2 corpora, in MAP and AUC on 0 of 2.",
		"Where ours is not first in MAP: beta (glove ahead, ours -16.7 %).",
		"| alpha | 100, 120, 90 | 100 | 160 | 2 |",
		"Not run yet: alpha (priming evaluation, completion evaluation); beta (priming evaluation, completion evaluation).",
		"The results belong to commit fedcba987654 (code id 0123456789ab",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q\n%s", want, got)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/cputime"
	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
)

// evalFixture is a small planted corpus (6 concepts × 6 tags, documents of 3-5
// tags of one concept), its split file (every 10th document valid, the next test,
// documents holding the reserved tag "oovtag" in oov, the rest train) and a small
// model trained on it.
type evalFixture struct {
	dir, corpus, split, model string
}

// makeEvalFixture writes the fixture into a temporary directory of t (training
// the small model takes well under a second).
func makeEvalFixture(t *testing.T) evalFixture {
	t.Helper()
	var (
		fixture    evalFixture
		fixtureErr error
	)
	func() {
		dir := t.TempDir()
		fixture = evalFixture{dir: dir, corpus: filepath.Join(dir, "docs.tsv"),
			split: filepath.Join(dir, "split.tsv"), model: filepath.Join(dir, "m.tlm")}
		rng := rand.New(rand.NewPCG(5, 6))
		var docs, split strings.Builder
		c := &corpus.Corpus{Name: "planted"}
		var sp corpus.Split
		for i := 0; i < 400; i++ {
			k := rng.IntN(6)
			n := 3 + rng.IntN(3)
			var tags []string
			for _, p := range rng.Perm(6)[:n] {
				tags = append(tags, fmt.Sprintf("c%d_t%d", k, p))
			}
			sub := "train"
			switch {
			case i%10 == 0:
				sub = "valid"
			case i%10 == 1:
				sub = "test"
			case i%10 == 2:
				sub = "oov"
				tags = append(tags, fmt.Sprintf("oov%d", k))
			}
			id := fmt.Sprintf("d%03d", i)
			fmt.Fprintf(&docs, "%s\t%s\n", id, strings.Join(tags, "\t"))
			fmt.Fprintf(&split, "%s\t%s\n", id, sub)
			c.Docs = append(c.Docs, corpus.Document{ID: id, Tags: tags})
			switch sub {
			case "train":
				sp.Train = append(sp.Train, i)
			case "valid":
				sp.Valid = append(sp.Valid, i)
			}
		}
		if fixtureErr = os.WriteFile(fixture.corpus, []byte(docs.String()), 0o644); fixtureErr != nil {
			return
		}
		if fixtureErr = os.WriteFile(fixture.split, []byte(split.String()), 0o644); fixtureErr != nil {
			return
		}
		cfg := ce.Config{Seed: 3, Topics: 6, Hidden: []int{20, 10}, MaxEpochs1: 6, MaxEpochs2: 4, EpochExamples: 4000,
			PretrainIterations: -1, AlphaGrid: []float64{0.2}, LambdaGrid: []float64{1}}
		m, err := ce.Train(context.Background(), c, sp, cfg, nil)
		if err != nil {
			fixtureErr = err
			return
		}
		fixtureErr = m.WriteFile(fixture.model)
	}()
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

func runEvalArgs(t *testing.T, args ...string) (*eval.Report, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"eval"}, args...), &stdout, &stderr); err != nil {
		t.Fatalf("taglens eval %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	return &rep, stdout.Bytes(), stderr.String()
}

func modelNames(rep *eval.Report) []string {
	var out []string
	for _, m := range rep.Models {
		out = append(out, m.Name)
	}
	return out
}

func TestEvalWithinCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	f := makeEvalFixture(t)
	args := []string{"--model", f.model, "--corpus", f.corpus, "--split", f.split, "--subset", "test",
		"--baselines", "random,lda", "--trials", "2", "--workers", "3"}
	rep, out1, stderr := runEvalArgs(t, args...)
	if got, want := strings.Join(modelNames(rep), ","), "random,lda,ce,siamese-ce"; got != want {
		t.Errorf("models: got %s, want %s", got, want)
	}
	if rep.Setting != eval.WithinCorpus || rep.Protocol != "extended" || rep.Trials != 2 || rep.Subset != "test" {
		t.Errorf("header: got %s %s %d %s", rep.Setting, rep.Protocol, rep.Trials, rep.Subset)
	}
	// 40 test documents, one extended list each.
	for _, m := range rep.Models {
		if m.Queries != 40 || len(m.PerTrial) != 2 {
			t.Errorf("%s: got %d queries, %d trials, want 40, 2", m.Name, m.Queries, len(m.PerTrial))
		}
	}
	// The planted concepts are easy: the trained model must beat random ranking.
	if ce, rnd := rep.Models[2].MAP, rep.Models[0].MAP; ce <= rnd {
		t.Errorf("ce MAP %v not above random %v", ce, rnd)
	}
	// With 2 trials a p-value exists unless both compared models are constant
	// across trials (then a note says why).
	if pv, ok := rep.PValues["map"]; !ok || (pv.P == nil && len(rep.Notes) < 2) {
		t.Errorf("map p-value: got %+v, notes %v, want a p-value or a note", pv, rep.Notes)
	}
	if !strings.Contains(stderr, "MAP") {
		t.Errorf("stderr lacks the table:\n%s", stderr)
	}
	// Same flags, other worker count → identical bytes.
	args[len(args)-1] = "1"
	if _, out2, _ := runEvalArgs(t, args...); !bytes.Equal(out1, out2) {
		t.Error("two runs with the same seed gave different reports")
	}
}

func TestEvalSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	f := makeEvalFixture(t)
	base := []string{"--model", f.model, "--corpus", f.corpus, "--split", f.split, "--trials", "1"}

	rep, _, _ := runEvalArgs(t, append(base, "--subset", "train", "--protocol", "priming", "--missing", "30-50", "--baselines", "random")...)
	if rep.Setting != eval.IncompleteContext || rep.Missing != "30-50" || rep.Protocol != "priming" {
		t.Errorf("incomplete: got setting %s missing %q protocol %s", rep.Setting, rep.Missing, rep.Protocol)
	}
	if len(rep.Notes) == 0 || rep.PValues["map"].P != nil {
		t.Errorf("one trial: got notes %v p %v, want a note and no p-value", rep.Notes, rep.PValues["map"].P)
	}

	rep, _, _ = runEvalArgs(t, append(base, "--subset", "oov")...)
	if rep.Setting != eval.OOVSetting || rep.Protocol != "priming" || len(rep.Models) != 4 {
		t.Errorf("oov: got setting %s protocol %s models %v", rep.Setting, rep.Protocol, modelNames(rep))
	}
	for _, m := range rep.Models {
		if m.Queries != 40 { // 40 oov documents with one OOV tag each
			t.Errorf("oov %s: got %d queries, want 40", m.Name, m.Queries)
		}
	}

	// Cross-corpora: the corpus itself as the other corpus keeps only the
	// documents without OOV tags (360 of 400).
	rep, _, _ = runEvalArgs(t, append(base, "--subset", "all", "--cross", f.corpus, "--variants", "ce")...)
	if rep.Setting != eval.CrossCorpora || rep.Models[0].Docs+rep.Models[0].Skipped != 360 {
		t.Errorf("cross: got setting %s, %d+%d docs, want 360", rep.Setting, rep.Models[0].Docs, rep.Models[0].Skipped)
	}

	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"eval"}, append(base, "--subset", "valid", "--json", out)...), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || !json.Valid(b) || stdout.Len() != 0 {
		t.Errorf("--json file: err %v, valid %v, stdout %d bytes", err, json.Valid(b), stdout.Len())
	}
}

// TestEvalNoQueries: an evaluation in which every document is skipped (the
// fixture's documents of 3-5 tags are too short for the band up to 10 %,
// which needs 10) exits 1 saying so, and writes no report. Before, it exited
// 0 with a report of zeros that named a "best" model.
func TestEvalNoQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	f := makeEvalFixture(t)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"eval", "--model", f.model, "--corpus", f.corpus, "--split", f.split,
		"--subset", "test", "--missing", "10", "--trials", "2"}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 1 {
		t.Errorf("exit status %d, want 1 (%v)", code, err)
	}
	msg := stderr.String()
	for _, want := range []string{"no usable query: all 40 documents were skipped", "band 0-10%", "no model was evaluated"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if stdout.Len() != 0 || strings.Contains(msg, "best") {
		t.Errorf("a report was written (stdout %d bytes) or a best model named:\n%s", stdout.Len(), msg)
	}
}

func TestEvalUsage(t *testing.T) {
	tests := [][]string{
		{"--corpus", "c", "--subset", "test"},                 // no model
		{"--model", "m", "--corpus", "c", "--subset", "nope"}, // bad subset
		{"--model", "m", "--corpus", "c", "--subset", "test", "--trials", "0"},
		{"--model", "a,b", "--corpus", "c", "--subset", "test", "--trials", "3"}, // 2 files, 3 trials
		{"--model", "m", "--corpus", "c", "--subset", "test", "--protocol", "x"},
		{"--model", "m", "--corpus", "c", "--subset", "test", "--missing", "60-20"},
		{"--model", "m", "--corpus", "c", "--subset", "test", "--missing", "99"},
		{"--model", "m", "--corpus", "c", "--subset", "test", "--missing", "20-40"},
		{"--model", "m", "--corpus", "c", "--subset", "test", "--baselines", "nope"},
		{"--model", "m", "--corpus", "c", "--subset", "oov", "--protocol", "extended"},
		{"--model", "m", "--corpus", "c", "--subset", "oov", "--baselines", "random"},
		{"--model", "m", "--corpus", "c", "--subset", "test", "--cross", "x"},
	}
	for _, args := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"eval"}, args...), &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 2 {
			t.Errorf("%v: got exit code %d (%v), want 2", args, code, err)
		}
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"eval", "--model", "/nonexistent", "--corpus", "c", "--subset", "test"}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 1 {
		t.Errorf("missing model file: got exit code %d, want 1", code)
	}
}

func TestEvalCPUProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	f := makeEvalFixture(t)
	prof := filepath.Join(f.dir, "cpu.pprof")
	_, _, progress := runEvalArgs(t, "--model", f.model, "--corpus", f.corpus, "--split", f.split, "--subset", "test",
		"--baselines", "random", "--variants", "none", "--trials", "1", "--cpuprofile", prof)
	// The progress lines give each model's CPU time where it is known.
	if _, known := cputime.Process(); known && !regexp.MustCompile(`random: trained in \S+, \S+ CPU\n`).MatchString(progress) {
		t.Errorf("no CPU time in the progress lines:\n%s", progress)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	// A pprof profile is a gzip-compressed protocol buffer.
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile is %d bytes and not gzip", len(b))
	}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"eval", "--model", f.model, "--corpus", f.corpus, "--subset", "test",
		"--baselines", "random", "--variants", "none", "--cpuprofile", filepath.Join(f.dir, "missing", "cpu.pprof")}, &stdout, &stderr)
	if err == nil {
		t.Error("a profile in a missing directory did not fail")
	}
}

// TestEvalSeedsShareSplit trains two models of a corpus without a split file,
// with seeds 1 and 2: they share the random split (--split-seed, not --seed), so
// `taglens eval` compares them as two trials. A third model drawn with another
// split seed is paired with its own split, and a model trained on a split file
// asks for that file.
func TestEvalSeedsShareSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three small models")
	}
	f := makeEvalFixture(t)
	train := func(name string, extra ...string) string {
		t.Helper()
		out := filepath.Join(f.dir, name)
		args := append([]string{"train", "--corpus", f.corpus, "--out", out, "--topics", "3", "--hidden", "8,4",
			"--max-epochs1", "2", "--max-epochs2", "1", "--epoch-examples", "1000", "--alpha", "0.1", "--lambda", "1"}, extra...)
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("train %v: %v\n%s", extra, err, stderr.String())
		}
		return out
	}
	m1 := train("s1.tlm", "--seed", "1")
	m2 := train("s2.tlm", "--seed", "2")
	for i, path := range []string{m1, m2} {
		m, err := ce.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if in := m.Info(); in.SplitSeed != corpus.DefaultSplitSeed || in.SplitFromFile || in.Seed != uint64(i+1) {
			t.Errorf("model %d: split seed %d, from file %v, seed %d; want %d, false, %d", i+1, in.SplitSeed, in.SplitFromFile, in.Seed, corpus.DefaultSplitSeed, i+1)
		}
	}
	rep, _, _ := runEvalArgs(t, "--model", m1+","+m2, "--corpus", f.corpus, "--subset", "test", "--baselines", "random", "--trials", "2")
	if len(rep.Models) != 3 || len(rep.Models[1].PerTrial) != 2 {
		t.Fatalf("report: %d models, want random, ce, siamese-ce with 2 trials each", len(rep.Models))
	}

	// Another split seed: the model records it and eval draws that split again,
	// so the test documents are those the model never saw.
	m3 := train("s3.tlm", "--seed", "1", "--split-seed", "7")
	m, err := ce.ReadFile(m3)
	if err != nil {
		t.Fatal(err)
	}
	c, err := corpus.ReadFile(f.corpus, corpus.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sp := corpus.RandomSplit(c, nil, 0, 7)
	if in := m.Info(); in.SplitSeed != 7 || in.TrainDocs != len(sp.Train) {
		t.Errorf("split seed 7: recorded %d, %d training documents, want 7, %d", in.SplitSeed, in.TrainDocs, len(sp.Train))
	}
	rep, _, _ = runEvalArgs(t, "--model", m3, "--corpus", f.corpus, "--subset", "test", "--baselines", "random", "--trials", "1")
	if got, want := rep.Models[1].Queries, len(sp.Test); got != want {
		t.Errorf("split seed 7: %d test queries, want the %d test documents of that split", got, want)
	}

	// A model trained on a split file: eval without --split names the problem.
	m4 := train("s4.tlm", "--seed", "1", "--split", f.split)
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"eval", "--model", m4, "--corpus", f.corpus, "--subset", "test", "--baselines", "random"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "--split") {
		t.Errorf("model trained on a split file, eval without --split: got %v, want an error naming --split", err)
	}
}

// TestEvalSplitWithoutReservedDocs: a split file that puts documents holding
// an --oov tag in train. taglens train leaves them out of its training
// documents, and taglens eval with the same --split and --oov takes the same
// split (app.TrainedSplit), so it does not note a split other than the model's.
func TestEvalSplitWithoutReservedDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	f := makeEvalFixture(t)
	b, err := os.ReadFile(f.split)
	if err != nil {
		t.Fatal(err)
	}
	split := filepath.Join(f.dir, "split-train.tsv") // the oov documents in train
	oov := filepath.Join(f.dir, "oov.txt")
	if err := os.WriteFile(split, bytes.ReplaceAll(b, []byte("\toov\n"), []byte("\ttrain\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(oov, []byte("oov0\noov1\noov2\noov3\noov4\noov5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(f.dir, "reserved.tlm")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"train", "--corpus", f.corpus, "--split", split, "--oov", oov, "--out", model,
		"--topics", "3", "--hidden", "8,4", "--max-epochs1", "2", "--max-epochs2", "1", "--epoch-examples", "1000",
		"--alpha", "0.1", "--lambda", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("train: %v\n%s", err, stderr.String())
	}
	m, err := ce.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Info().TrainDocs; n != 280 {
		t.Errorf("the model trained on %d documents, want the split file's 320 train documents less the 40 holding a reserved tag", n)
	}
	_, _, progress := runEvalArgs(t, "--model", model, "--corpus", f.corpus, "--split", split, "--oov", oov,
		"--subset", "test", "--baselines", "random", "--variants", "ce", "--trials", "1")
	if strings.Contains(progress, "is it the model's split?") {
		t.Errorf("eval took another split than the training's:\n%s", progress)
	}
}

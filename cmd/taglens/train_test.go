package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/ce"
)

// writeTagCorpus writes a small tab-separated corpus of n documents drawn from
// three disjoint concepts of five tags each (2-4 tags per document).
func writeTagCorpus(t *testing.T, path string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	concepts := [][]string{
		{"rock", "electricguitar", "drums", "bass", "loud"},
		{"ambient", "synth", "calm", "pad", "drone"},
		{"jazz", "sax", "piano", "swing", "trumpet"},
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		c := concepts[rng.IntN(len(concepts))]
		perm := rng.Perm(len(c))[:2+rng.IntN(3)]
		fmt.Fprintf(&b, "d%d", i)
		for _, p := range perm {
			b.WriteString("\t" + c[p])
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTrainPrimeExport runs taglens train twice with the same seed (the model
// files must be byte-identical), then prime --json and
// export on the result.
// Kept in one function: each command reads the files the previous one wrote, in
// one sequence.
func TestTrainPrimeExport(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two small models")
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.tsv")
	writeTagCorpus(t, docs, 240)
	var files [2][]byte
	for i := range files {
		out := filepath.Join(dir, fmt.Sprintf("m%d.tlm", i))
		var stdout, stderr bytes.Buffer
		args := []string{"train", "--corpus", docs, "--out", out, "--seed", "3", "--topics", "3", "--hidden", "8,4",
			"--max-epochs1", "3", "--max-epochs2", "2", "--epoch-examples", "2000", "--alpha", "0.1", "--lambda", "1", "--json", "-"}
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("train: %v\n%s", err, stderr.String())
		}
		var sum trainSummary
		if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
			t.Fatalf("train --json: %v\n%s", err, stdout.String())
		}
		if sum.Vocabulary != 15 || sum.Topics != 3 || sum.Epochs1 < 1 || sum.Epochs1 > 3 || sum.Epochs2 < 1 || sum.Epochs2 > 2 {
			t.Errorf("summary: got vocabulary %d, topics %d, epochs %d/%d, want 15, 3, 1..3, 1..2", sum.Vocabulary, sum.Topics, sum.Epochs1, sum.Epochs2)
		}
		// The kept networks are the best on validation extended MAP (the
		// default criterion); the width fit starts from them (β = 0 is in its
		// grid) and is said on stderr.
		best := map[string]float64{}
		for _, e := range sum.Log {
			best[e.Stage] = max(best[e.Stage], e.ValidMAP)
		}
		if sum.ValidMAPCE != best["stage1"] || sum.ValidMAPSiamese != best["stage2"] || sum.ValidMAPCE == 0 {
			t.Errorf("summary: validation extended MAP CE %v, Siamese-CE %v; the log's best %v", sum.ValidMAPCE, sum.ValidMAPSiamese, best)
		}
		if sum.ValidMAPWidthCE < sum.ValidMAPCE || sum.ValidMAPWidthSiamese < sum.ValidMAPSiamese {
			t.Errorf("summary: the width fit's validation MAP %v, %v below the networks' %v, %v", sum.ValidMAPWidthCE, sum.ValidMAPWidthSiamese, sum.ValidMAPCE, sum.ValidMAPSiamese)
		}
		for _, want := range []string{"extended MAP: CE ", "term widths β: CE "} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		}
		if !strings.Contains(stderr.String(), "stage1") || !strings.Contains(stderr.String(), "stage2") {
			t.Errorf("progress on stderr lacks the stages:\n%s", stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("same seed gave different model files")
	}
	model := filepath.Join(dir, "m0.tlm")

	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"prime", "--model", model, "--tags", "rock,drums,newtag", "--k", "5", "--json"}, &stdout, &stderr); err != nil {
		t.Fatalf("prime: %v\n%s", err, stderr.String())
	}
	var res struct {
		OOV      []string `json:"oov"`
		Extended []struct {
			Term  string `json:"term"`
			InDoc bool   `json:"in_doc"`
		} `json:"extended"`
		PerTerm map[string][]struct{ Term string } `json:"per_term"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("prime --json: %v\n%s", err, stdout.String())
	}
	if len(res.OOV) != 1 || res.OOV[0] != "newtag" {
		t.Errorf("oov: got %v, want [newtag]", res.OOV)
	}
	if len(res.Extended) != 5 {
		t.Errorf("extended: got %d terms, want 5", len(res.Extended))
	}
	for _, tag := range []string{"rock", "drums", "newtag"} {
		if got := len(res.PerTerm[tag]); got != 5 {
			t.Errorf("per_term[%s]: got %d terms, want 5", tag, got)
		}
	}
	// Eq. 8 lists include the query itself at distance 0, ranked first.
	if l := res.PerTerm["rock"]; len(l) > 0 && l[0].Term != "rock" {
		t.Errorf("per_term[rock][0] = %q, want rock", l[0].Term)
	}

	out := filepath.Join(dir, "proj")
	stderr.Reset()
	if err := run(context.Background(), []string{"export", "--model", model, "--corpus", docs, "--out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr.String())
	}
	tensors := readLines(t, filepath.Join(out, "tensors.tsv"))
	meta := readLines(t, filepath.Join(out, "metadata.tsv"))
	if len(tensors) == 0 || len(meta) != len(tensors)+1 {
		t.Fatalf("export: %d tensor rows, %d metadata lines; want metadata = rows + header", len(tensors), len(meta))
	}
	if got := len(strings.Split(tensors[0], "\t")); got != 4 {
		t.Errorf("tensor width: got %d, want the CE dimension 4", got)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// TestTrainFlagsDocumented checks that every documented training parameter
// (ce.Params, which the web form and the API also use) is a flag of `taglens
// train` whose help is the parameter's own, default included.
func TestTrainFlagsDocumented(t *testing.T) {
	var stdout, stderr bytes.Buffer
	_ = run(context.Background(), []string{"train", "-h"}, &stdout, &stderr)
	help := strings.ReplaceAll(stderr.String()+stdout.String(), "\n    \t", " ")
	for _, p := range ce.Params {
		if !strings.Contains(help, "-"+p.Flag+" ") {
			t.Errorf("taglens train has no flag --%s for %s", p.Flag, p.Name)
			continue
		}
		if !strings.Contains(help, p.Usage()) {
			t.Errorf("--%s: its help is not ce.Params' %q", p.Flag, p.Usage())
		}
	}
}

package ce

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/shareddata"
)

// TestMTGJamendoAboveRandom trains on the real mtg-jamendo corpus with its split
// and checks that validation P@2 of CE and Siamese-CE is clearly above random's
// analytic expectation (issue 3). Slow: skipped under -short and without data.
func TestMTGJamendoAboveRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: trains on mtg-jamendo")
	}
	docsPath := shareddata.File(t, "mtg-jamendo", "docs.tsv")
	splitPath := shareddata.File(t, "mtg-jamendo", "split.tsv")
	c, err := corpus.ReadFile(docsPath, corpus.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	split := readTestSplit(t, splitPath, c)
	m, err := Train(context.Background(), c, split, Config{Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	t.Logf("validation P@2: CE %.4f, Siamese-CE %.4f, random %.4f", in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
	// "Clearly above": at least five times the random expectation (≈ 0.03 here).
	if in.ValidP2CE < 5*in.ValidP2Random || in.ValidP2Siamese < 5*in.ValidP2Random {
		t.Fatalf("validation P@2 CE %v, Siamese-CE %v not clearly above random %v", in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
	}
}

// readTestSplit reads split.tsv (doc_id<TAB>subset) for c.
func readTestSplit(t *testing.T, path string, c *corpus.Corpus) corpus.Split {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	index := map[string]int{}
	for i, d := range c.Docs {
		index[d.ID] = i
	}
	var s corpus.Split
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, sub, _ := strings.Cut(sc.Text(), "\t")
		i, ok := index[id]
		if !ok {
			continue
		}
		switch corpus.Subset(sub) {
		case corpus.Train:
			s.Train = append(s.Train, i)
		case corpus.Valid:
			s.Valid = append(s.Valid, i)
		case corpus.Test:
			s.Test = append(s.Test, i)
		case corpus.OOV:
			s.OOV = append(s.OOV, i)
		}
	}
	return s
}

// compareConfig is the fixed budget of the real-data comparisons: the same
// seed, epochs, epoch size and α, λ for both arms, and a patience larger than
// the epochs, so that both arms see exactly the same number of updates.
func compareConfig() Config {
	return Config{Seed: 1, Topics: 20, MaxEpochs1: 6, MaxEpochs2: 4, Patience: 100,
		EpochExamples: 40000, Alpha: 0.05, Lambda: 1}
}

func readMTG(t *testing.T) (*corpus.Corpus, corpus.Split) {
	c, err := corpus.ReadFile(shareddata.File(t, "mtg-jamendo", "docs.tsv"), corpus.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, readTestSplit(t, shareddata.File(t, "mtg-jamendo", "split.tsv"), c)
}

// TestSampledLossOnMTGJamendo checks issue 7 item 2: training with the sampled
// Eq. 5 does not lower validation P@2 by more than 2 points against the exact
// loss (same seed and budget). mtg-jamendo has 161 training terms, so the
// sampled arm uses M = 32 uniformly drawn output units per batch (a fifth of
// |Γ|; the listed units of the batch's documents are always scored exactly).
func TestSampledLossOnMTGJamendo(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow: trains twice on mtg-jamendo (skipped under -short and -race)")
	}
	c, split := readMTG(t)
	var p2 [2][2]float64
	for i, m := range []int{-1, 32} {
		cfg := compareConfig()
		cfg.OutputSample = m
		model, err := Train(context.Background(), c, split, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		in := model.Info()
		p2[i] = [2]float64{in.ValidP2CE, in.ValidP2Siamese}
		t.Logf("OutputSample %d (Info.OutputSample %d): validation P@2 CE %.4f, Siamese-CE %.4f, random %.4f",
			m, in.OutputSample, in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
	}
	for j, name := range []string{"CE", "Siamese-CE"} {
		if p2[1][j] < p2[0][j]-0.02 {
			t.Errorf("%s: sampled P@2 %.4f is more than 2 points below exact %.4f", name, p2[1][j], p2[0][j])
		}
	}
}

// TestWithinDocPairs runs design.md, decision 7's comparison: stage 2 with part of the
// I1 (and I3) pairs drawn within one training document (the default,
// WithinDoc = WithinDocI3 = 0.5) against the paper's purely random pairing
// (−1), same seed and budget, on mtg-jamendo and on the demo corpus. The
// default may only be the within-document pairing if validation priming says
// it helps: the test fails when the default's Siamese-CE validation P@2 falls
// more than one point below the random pairing's on either corpus.
func TestWithinDocPairs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow: trains twice on mtg-jamendo and on the demo corpus (skipped under -short and -race)")
	}
	run := func(t *testing.T, c *corpus.Corpus, split corpus.Split, base Config) {
		var p2 [2]float64
		for i, w := range []float64{0, -1} {
			cfg := base
			cfg.WithinDoc, cfg.WithinDocI3 = w, w
			m, err := Train(context.Background(), c, split, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := m.Info()
			p2[i] = in.ValidP2Siamese
			t.Logf("WithinDoc %.1f, WithinDocI3 %.1f: validation P@2 CE %.4f, Siamese-CE %.4f, random %.4f",
				in.WithinDoc, in.WithinDocI3, in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
		}
		if p2[0] < p2[1]-0.01 {
			t.Errorf("default pairing P@2 %.4f more than one point below random pairing %.4f", p2[0], p2[1])
		}
	}
	t.Run("demo", func(t *testing.T) {
		c, _ := corpus.Demo(1)
		run(t, c, corpus.DemoSplit(c), demoConfig(5))
	})
	t.Run("mtg-jamendo", func(t *testing.T) {
		c, split := readMTG(t)
		run(t, c, split, compareConfig())
	})
}

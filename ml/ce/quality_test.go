package ce

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/taglens/taglens/ml/baselines"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/shareddata"
)

// TestQualityExperiment is the harness of the quality investigation
// (docs/quality-notes.md): it trains on mtg-jamendo with the Config given as
// JSON in TAGLENS_QCFG, logs validation extended-priming MAP after every
// evaluation, and reports extended MAP/AUC on samples of the training and test
// subsets and priming MAP on the test sample, for CE, Siamese-CE and (with
// TAGLENS_QBASE=1) InfoTheo and LSA. It runs only when TAGLENS_QUALITY is set:
// it is an experiment, not a check.
func TestQualityExperiment(t *testing.T) {
	if os.Getenv("TAGLENS_QUALITY") == "" {
		t.Skip("experiment harness: set TAGLENS_QUALITY=1")
	}
	c, split := loadMTG(t)
	var cfg Config
	if s := os.Getenv("TAGLENS_QCFG"); s != "" {
		if err := json.Unmarshal([]byte(s), &cfg); err != nil {
			t.Fatal(err)
		}
	}
	nEval := 2000
	if s := os.Getenv("TAGLENS_QN"); s != "" {
		nEval, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	start := time.Now()
	cfg.epochHook = func(stage string, epoch int, tr *trainer) {
		m, valid := tr.snapshot(tr.net.Params), tr.valid
		r, err := eval.Evaluate(ctx, m.EvalModel(VariantCE), eval.Extended, valid, &eval.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		p, err := eval.Evaluate(ctx, m.EvalModel(VariantCE), eval.Priming, valid, &eval.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("[%6.1fs] %-22s epoch %2d: valid extended MAP %.4f AUC %.4f P@2 %.4f | priming P@2 %.4f MAP %.4f",
			time.Since(start).Seconds(), stage, epoch, r.MAP, r.AUC, r.PAtK[1], p.PAtK[1], p.MAP)
	}
	vocab := corpus.NewVocabulary(c.Select(split.Train))
	var models []eval.Model
	if os.Getenv("TAGLENS_QBASE") != "only" {
		m, err := Train(ctx, c, split, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		wall := time.Since(start)
		in := m.Info()
		t.Logf("trained in %.1fs: topics %d, term dim %d, ctx dim %d, α=%g λ=%g, epochs %d/%d (%s), %d/%d (%s)",
			wall.Seconds(), in.Topics, in.TermDim, in.ContextDim, in.Alpha, in.Lambda,
			in.BestEpoch1, in.Epochs1, in.StopReason1, in.BestEpoch2, in.Epochs2, in.StopReason2)
		vocab = m.Vocabulary()
		models = append(models, m.EvalModel(VariantCE), m.EvalModel(VariantSiamese))
	}
	trainDocs := sample(eval.Encode(vocab, c.Select(split.Train)), nEval)
	testDocs := sample(encodeIV(vocab, c.Select(split.Test)), nEval)
	if os.Getenv("TAGLENS_QBASE") != "" {
		tr := eval.Encode(vocab, c.Select(split.Train))
		it, err := baselines.FitInfoTheo(ctx, tr, vocab.Len(), baselines.InfoTheoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lsa, err := baselines.FitLSA(ctx, tr, vocab.Len(), baselines.LSAOptions{})
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, it, lsa, baselines.NewRandom(vocab.Len()))
	}
	for _, mod := range models {
		var res [3]*eval.Result
		for i, job := range []struct {
			docs [][]int
			p    eval.Protocol
		}{{trainDocs, eval.Extended}, {testDocs, eval.Extended}, {testDocs, eval.Priming}} {
			if job.p == eval.Priming && !mod.Contextual() {
				res[i] = &eval.Result{}
				continue
			}
			r, err := eval.Evaluate(ctx, mod, job.p, job.docs, &eval.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			res[i] = r
		}
		t.Logf("RESULT %-10s train ext MAP %.4f AUC %.4f | test ext MAP %.4f AUC %.4f P@2 %.4f | test priming MAP %.4f P@2 %.4f",
			mod.Name(), res[0].MAP, res[0].AUC, res[1].MAP, res[1].AUC, res[1].PAtK[1], res[2].MAP, res[2].PAtK[1])
	}
}

// loadMTG reads mtg-jamendo with its split; documents holding a reserved OOV
// tag are left out of training and validation (as taglens train does).
func loadMTG(t *testing.T) (*corpus.Corpus, corpus.Split) {
	t.Helper()
	c, err := corpus.ReadFile(shareddata.File(t, "mtg-jamendo", "docs.tsv"), corpus.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	split := readTestSplit(t, shareddata.File(t, "mtg-jamendo", "split.tsv"), c)
	f, err := os.Open(shareddata.File(t, "mtg-jamendo", "oov_tags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reserved, err := corpus.ReadOOVTags(f)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]bool{}
	for _, r := range reserved {
		res[r] = true
	}
	keep := func(idx []int) []int {
		var out []int
		for _, i := range idx {
			if !slices.ContainsFunc(c.Docs[i].Tags, func(s string) bool { return res[s] }) {
				out = append(out, i)
			}
		}
		return out
	}
	split.Train, split.Valid = keep(split.Train), keep(split.Valid)
	return c, split
}

func encodeIV(v *corpus.Vocabulary, docs []corpus.Document) [][]int {
	enc, _ := eval.InVocabulary(v, docs)
	return enc
}

// sample returns a seeded random subset of n documents with at least two terms.
func sample(docs [][]int, n int) [][]int {
	var multi [][]int
	for _, d := range docs {
		if len(d) >= 2 {
			multi = append(multi, d)
		}
	}
	if len(multi) <= n {
		return multi
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(multi), func(i, j int) { multi[i], multi[j] = multi[j], multi[i] })
	return multi[:n]
}

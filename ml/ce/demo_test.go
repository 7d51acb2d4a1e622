package ce

import (
	"bytes"
	"context"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// demoConfig keeps the demo-corpus training short and reproducible.
func demoConfig(seed uint64) Config {
	return Config{Seed: seed, MaxEpochs1: 6, MaxEpochs2: 6, PretrainIterations: 15, EpochExamples: 15000,
		AlphaGrid: []float64{0.2}, LambdaGrid: []float64{1}}
}

// TestDemoCorpus trains twice on the built-in demo corpus (ml/corpus.Demo) with
// the same seed: the model files must be byte-identical, and the Siamese-CE
// instances of every planted polysemous tag must separate by their true sense
// (adjusted Rand index of a 2-means clustering ≥ 0.8, issue 3).
func TestDemoCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("trains twice on the demo corpus")
	}
	c, truth := corpus.Demo(1)
	split := corpus.DemoSplit(c)
	var files [2][]byte
	var m *Model
	for i := range files {
		var err error
		m, err = Train(context.Background(), c, split, demoConfig(5), nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			t.Fatal(err)
		}
		files[i] = buf.Bytes()
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("same seed gave different model files on the demo corpus")
	}
	in := m.Info()
	t.Logf("validation P@2: CE %.4f, Siamese-CE %.4f, random %.4f", in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
	for _, tag := range truth.Polysemous {
		if _, ok := m.Vocabulary().ID(tag); !ok {
			continue // reserved as OOV by DemoSplit
		}
		var rows [][]float64
		var sense []int
		for i, d := range c.Docs {
			s := truth.Sense[tag][i]
			if s < 0 {
				continue
			}
			v, _, err := m.Embed(VariantSiamese, d.Tags)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, v[tag])
			sense = append(sense, s)
		}
		ari := adjustedRand(twoMeans(rows), sense)
		t.Logf("%s: %d instances, ARI %.3f", tag, len(rows), ari)
		if ari < 0.8 {
			t.Errorf("%s: ARI %v, want ≥ 0.8", tag, ari)
		}
	}
}

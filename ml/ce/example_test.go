package ce_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
)

// exampleCorpus returns a small corpus of two concepts, music and cooking: each
// document holds three or four tags of one concept.
func exampleCorpus() *corpus.Corpus {
	concepts := [][]string{
		{"rock", "guitar", "drums", "bass", "loud", "band"},
		{"soup", "onion", "garlic", "salt", "pepper", "stock"},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	c := &corpus.Corpus{Name: "example"}
	for i := range 300 {
		tags := concepts[i%2]
		n := 3 + rng.IntN(2)
		var d []string
		for _, j := range rng.Perm(len(tags))[:n] {
			d = append(d, tags[j])
		}
		c.Docs = append(c.Docs, corpus.Document{ID: fmt.Sprint(i), Tags: d})
	}
	return c
}

// exampleConfig keeps the example's training to a second or two: two topics,
// a 4-dimensional CE layer, few short epochs.
func exampleConfig() ce.Config {
	return ce.Config{Seed: 1, Topics: 2, Hidden: []int{16, 4}, MaxEpochs1: 4, MaxEpochs2: 3,
		EpochExamples: 2000, PretrainIterations: 10, AlphaGrid: []float64{0.2}, LambdaGrid: []float64{1}}
}

// exampleModel trains the example's model (nil on an error, printed).
func exampleModel() *ce.Model {
	c := exampleCorpus()
	split := corpus.RandomSplit(c, nil, 0, corpus.DefaultSplitSeed)
	m, err := ce.Train(context.Background(), c, split, exampleConfig(), nil)
	if err != nil {
		fmt.Println(err)
		return nil
	}
	return m
}

// Train learns the CE and Siamese-CE networks of a corpus: the model holds
// the corpus's vocabulary and embeds every term, in the context of a tag set,
// as a point of the CE space (Hidden's last width).
func ExampleTrain() {
	c := exampleCorpus()
	split := corpus.RandomSplit(c, nil, 0, corpus.DefaultSplitSeed)
	m, err := ce.Train(context.Background(), c, split, exampleConfig(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("vocabulary:", m.Vocabulary().Len(), "terms")
	fmt.Println("CE dimension:", m.CEDim())
	fmt.Println("topics:", m.Info().Topics)
	fmt.Println("trained on", m.Info().TrainDocs, "documents")
	// Output:
	// vocabulary: 12 terms
	// CE dimension: 4
	// topics: 2
	// trained on 200 documents
}

// Prime ranks the vocabulary for a tag set (extended priming, paper Eq. 9):
// the terms nearest to the set's tags in their context. A tag outside the
// vocabulary is listed as OOV.
func ExampleModel_Prime() {
	m := exampleModel()
	if m == nil {
		return
	}
	res, err := m.Prime(ce.VariantSiamese, []string{"guitar", "drums", "violin"}, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	music := []string{"rock", "guitar", "drums", "bass", "loud", "band"}
	var others []string
	for _, p := range res.Extended {
		if !p.InDoc {
			others = append(others, p.Term)
		}
	}
	fmt.Println("OOV:", res.OOV)
	fmt.Println("primed:", len(res.Extended))
	fmt.Println("nearest other term is music:", slices.Contains(music, others[0]))
	// Output:
	// OOV: [violin]
	// primed: 4
	// nearest other term is music: true
}

// Embed places each tag of a set in the CE space in the context of the set;
// an OOV tag is placed at the centroid of the others (§4.4).
func ExampleModel_Embed() {
	m := exampleModel()
	if m == nil {
		return
	}
	vecs, oov, err := m.Embed(ce.VariantCE, []string{"soup", "salt", "cumin"})
	if err != nil {
		fmt.Println(err)
		return
	}
	terms := make([]string, 0, len(vecs))
	for t, v := range vecs {
		terms = append(terms, fmt.Sprintf("%s:%d", t, len(v)))
	}
	slices.Sort(terms)
	fmt.Println(strings.Join(terms, " "))
	fmt.Println("OOV:", oov)
	// Output:
	// cumin:4 salt:4 soup:4
	// OOV: [cumin]
}

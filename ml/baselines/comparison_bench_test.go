package baselines

import (
	"context"
	"fmt"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// BenchmarkComparison trains each baseline that `taglens eval --baselines all`
// trains on a real corpus's training documents and evaluates it under the
// extended protocol on its test documents (skipped, with the folder looked
// in, when ../shared/data is absent): github-topics, 1,965 tags. One
// sub-benchmark per baseline, each iteration a fit and an evaluation, so CPU
// profiles (-cpuprofile) and times can be read per baseline. As in a trial,
// LSA's dimension is remembered for PCA, InfoTheo and Skip-gram. LDA and PLSA
// use 20 topics; CRBM is left out (it is evaluated on training documents only).
func BenchmarkComparison(b *testing.B) {
	for _, corpus := range []string{"github-topics"} {
		train, test, v := globalLoad(b, corpus)
		for _, name := range []string{"lsa", "pca", "infotheo", "skipgram", "lda", "plsa"} {
			b.Run(fmt.Sprintf("%s/V=%d/%s", corpus, v, name), func(b *testing.B) {
				for b.Loop() {
					m, _, err := Train(context.Background(), name, Data{Train: train, V: v}, Settings{Topics: 20, Hidden: 10}, 1, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := eval.Evaluate(context.Background(), m, eval.Extended, test, &eval.Options{Seed: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

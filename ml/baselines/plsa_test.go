package baselines

import (
	"context"
	"testing"
)

func TestPLSABaselineRanksPlanted(t *testing.T) {
	docs := plantedCorpus(2)
	m, err := FitPLSA(context.Background(), docs, plantedV, TopicOptions{Topics: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	checkContextual(t, m, []int{0, 1, 2, polysemous}, []int{5, 6, 7, polysemous})
	checkSelfZeroAndConcurrent(t, m, []int{0, 1, 2, polysemous})
}

// TestTopicOptionsDefault checks the zero TopicOptions: the topic count is
// chosen by held-out perplexity over topic.DefaultKGrid (the points up to the
// 11 terms of the planted corpus: 5 and 10), and a negative count is refused.
func TestTopicOptionsDefault(t *testing.T) {
	docs := plantedCorpus(2)
	lda, err := FitLDA(context.Background(), docs, plantedV, TopicOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plsa, err := FitPLSA(context.Background(), docs, plantedV, TopicOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{lda.Topics(), plsa.Topics()} {
		if k != 5 && k != 10 {
			t.Errorf("default topic count %d, want 5 or 10", k)
		}
	}
	if _, err := FitLDA(context.Background(), docs, plantedV, TopicOptions{Topics: -1}); err == nil {
		t.Error("FitLDA accepted −1 topics")
	}
	if _, err := FitPLSA(context.Background(), docs, plantedV, TopicOptions{Topics: -1}); err == nil {
		t.Error("FitPLSA accepted −1 topics")
	}
}

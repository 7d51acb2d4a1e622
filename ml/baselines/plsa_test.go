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

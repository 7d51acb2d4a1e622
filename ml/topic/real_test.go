package topic

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestRealDataLDA fits LDA with automatic K on mtg-jamendo's training documents
// and checks that the fitted model predicts the test documents better than the
// one-topic model (the unigram distribution), a bound every useful fit beats.
func TestRealDataLDA(t *testing.T) {
	if testing.Short() {
		t.Skip("fits LDA on real data")
	}
	train, test, v := loadShared(t, "mtg-jamendo", true)
	ctx := context.Background()
	m, err := FitLDA(ctx, train, v, LDAConfig{}, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chosen K=%d, selection %v", m.K, m.Selection)
	uni, err := FitLDA(ctx, train, v, LDAConfig{K: 1, Iterations: 5, BurnIn: 1}, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := m.Perplexity(test, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	pu, err := uni.Perplexity(test, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("test perplexity: K=%d %.2f, unigram %.2f", m.K, pm, pu)
	if !(pm < 0.9*pu) {
		t.Errorf("test perplexity %v, want < 0.9 × unigram %v", pm, pu)
	}
}

package features

import (
	"context"
	"errors"
	"testing"
)

// TestFitTermsCancelledInCounting: a context cancelled before the fit stops
// it inside the co-occurrence counting (gramSparse checks it at its first
// row), with ctx.Err().
func TestFitTermsCancelledInCounting(t *testing.T) {
	docs := [][]int{{0, 1, 2}, {1, 2}, {0, 2, 3}, {3, 4}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := gramSparse(ctx, DocTerm(docs, 5, nil)); !errors.Is(err, context.Canceled) {
		t.Fatalf("gramSparse with a cancelled context: %v, want context.Canceled", err)
	}
	for _, smooth := range []float64{0, 0.5} {
		if _, err := FitTermsContext(ctx, docs, 5, &TermOptions{Smooth: smooth}); !errors.Is(err, context.Canceled) {
			t.Errorf("smooth %v: FitTermsContext with a cancelled context: %v, want context.Canceled", smooth, err)
		}
	}
	// Not cancelled: the same matrix as GramSparse.
	a, b := GramSparse(DocTerm(docs, 5, nil)), Cooccurrence(docs, 5, nil)
	g, err := gramSparse(context.Background(), DocTerm(docs, 5, nil))
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Val {
		if a.Val[i] != g.Val[i] || b.Val[i] != g.Val[i] {
			t.Fatalf("value %d: %v, %v, %v", i, a.Val[i], b.Val[i], g.Val[i])
		}
	}
}

package tsne

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestProfileRun(t *testing.T) {
	if os.Getenv("TSNE_PROF") == "" {
		t.Skip("set TSNE_PROF")
	}
	x, _ := blobs(5000, 50, 12, 2.5, 1)
	for _, m := range []Method{BarnesHut} {
		start := time.Now()
		var last time.Time
		_, err := Embed(context.Background(), x, Options{Method: m, Seed: 1, Iterations: 1000, Workers: 1, Progress: func(it int, kl float64, y []float64) bool {
			if it == 1 {
				last = time.Now()
				t.Logf("%s setup %v", m, last.Sub(start))
			}
			if it%100 == 0 {
				t.Logf("%s it %d %v kl %.3f", m, it, time.Since(last), kl)
				last = time.Now()
			}
			return true
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

package tsne

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
)

// TestApproxKNN checks the approximate kNN graph on Gaussian blobs: every list
// is sorted (distance, index), free of the point itself and of duplicates,
// with exact squared distances; its recall against the exact kNN is high; and
// the graph is the same for any number of workers and GOMAXPROCS.
func TestApproxKNN(t *testing.T) {
	x, _ := blobs(1500, 20, 6, 2.5, 4)
	// Duplicates: ties broken by index.
	x[10] = slices.Clone(x[3])
	x[11] = slices.Clone(x[3])
	flat, n, d, _ := flatten(x, 0)
	const k = 20
	tree, err := newVPTree(context.Background(), flat, n, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := exactKNN(context.Background(), tree, n, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	var ref []int32
	for _, procs := range []int{1, 2} {
		for _, workers := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			nbr, dist, err := approxKNN(context.Background(), flat, n, d, k, 7, workers)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = nbr
				hits := 0
				for i := 0; i < n; i++ {
					row := nbr[i*k : (i+1)*k]
					for m, j := range row {
						if int(j) == i || j < 0 || int(j) >= n {
							t.Fatalf("point %d: bad neighbour %d", i, j)
						}
						if dd := sqDist(tree.point(i), tree.point(int(j))); dd != dist[i*k+m] {
							t.Fatalf("point %d neighbour %d: distance %v, want %v", i, j, dist[i*k+m], dd)
						}
						if m > 0 && (dist[i*k+m] < dist[i*k+m-1] || (dist[i*k+m] == dist[i*k+m-1] && j < row[m-1])) {
							t.Fatalf("point %d: list not sorted at %d", i, m)
						}
						if slices.Contains(row[:m], j) {
							t.Fatalf("point %d: neighbour %d twice", i, j)
						}
						if slices.Contains(want[i*k:(i+1)*k], j) {
							hits++
						}
					}
				}
				recall := float64(hits) / float64(n*k)
				t.Logf("recall %.4f", recall)
				if recall < 0.95 || math.IsNaN(recall) {
					t.Errorf("recall %v, want ≥ 0.95", recall)
				}
				continue
			}
			if !slices.Equal(ref, nbr) {
				t.Fatalf("GOMAXPROCS=%d workers=%d: graph differs", procs, workers)
			}
		}
	}
}

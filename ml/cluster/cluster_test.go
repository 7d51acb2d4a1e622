package cluster

import (
	"math"
	"testing"
)

// TestSenseClusters: two well-separated blobs give two clusters; one blob gives one.
func TestSenseClusters(t *testing.T) {
	var x [][]float64
	for i := 0; i < 40; i++ {
		off := 0.0
		if i%2 == 1 {
			off = 10
		}
		x = append(x, []float64{off + 0.1*float64(i%5), 0.1 * float64(i%7)})
	}
	lab := SenseClusters(x, 1)
	for i := range x {
		if (lab[i] == lab[0]) != (i%2 == 0) {
			t.Fatalf("blob labels: got %v, want even and odd rows apart", lab)
		}
	}
	one := make([][]float64, 40)
	for i := range one {
		// A uniform grid: no cluster structure, silhouettes stay low.
		one[i] = []float64{float64(i % 8), float64(i / 8)}
	}
	for i, l := range SenseClusters(one, 1) {
		if l != 0 {
			t.Fatalf("grid: row %d in cluster %d, want a single cluster", i, l)
		}
	}
}

// TestKMeansSizes: k-means numbers its clusters by decreasing size, and a
// clustering of well-separated groups has a silhouette near 1.
func TestKMeansSizes(t *testing.T) {
	var x [][]float64
	for i := 0; i < 30; i++ {
		off := 0.0
		switch {
		case i < 5:
			off = 100
		case i < 15:
			off = 50
		}
		x = append(x, []float64{off + 0.01*float64(i%3), 0.01 * float64(i%4)})
	}
	lab := KMeans(x, 3, 1)
	cnt := make([]int, 3)
	for i, l := range lab {
		cnt[l]++
		if (l == lab[0]) != (i < 5) || (l == lab[5]) != (i >= 5 && i < 15) {
			t.Fatalf("labels %v do not follow the three groups", lab)
		}
	}
	if cnt[0] != 15 || cnt[1] != 10 || cnt[2] != 5 {
		t.Errorf("cluster sizes %v, want 15, 10, 5", cnt)
	}
	if s := Silhouette(x, lab, 3, len(x)); s < 0.9 || math.IsNaN(s) {
		t.Errorf("silhouette %v, want above 0.9", s)
	}
}

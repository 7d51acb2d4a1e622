// Package cluster groups points for the explorer's colouring: k-means with a
// k-means++ start, the mean silhouette of a clustering, and the choice of the
// number of senses of a term from them.
package cluster

import (
	"math"
	"math/rand/v2"
	"sort"
)

// SenseClusters groups the CE instances of one term into senses for colouring:
// k-means for k = 2..4, keeping the k with the largest mean silhouette
// (Rousseeuw 1987: s(i) = (b−a)/max(a, b), a the mean distance to the own
// cluster, b to the nearest other cluster), computed on at most 600 rows; one
// cluster when no k reaches a silhouette of 0.5 (uniform, structureless data
// scores about 0.35-0.45) or there are fewer than 10 rows.
func SenseClusters(x [][]float64, seed uint64) []int {
	best := make([]int, len(x))
	if len(x) < 10 {
		return best
	}
	bestS := 0.5
	for k := 2; k <= 4; k++ {
		lab := KMeans(x, k, seed)
		if s := Silhouette(x, lab, k, 600); s > bestS {
			bestS, best = s, lab
		}
	}
	return best
}

// Silhouette is the mean silhouette of the first limit rows (all rows' clusters
// count for a and b).
func Silhouette(x [][]float64, lab []int, k, limit int) float64 {
	n := min(len(x), limit)
	sum := make([]float64, k)
	cnt := make([]int, k)
	var total float64
	for i := 0; i < n; i++ {
		for j := range sum {
			sum[j], cnt[j] = 0, 0
		}
		for j := range x {
			if j == i {
				continue
			}
			sum[lab[j]] += math.Sqrt(SqDist(x[i], x[j]))
			cnt[lab[j]]++
		}
		if cnt[lab[i]] == 0 {
			continue // a singleton cluster scores 0
		}
		a := sum[lab[i]] / float64(cnt[lab[i]])
		b := math.Inf(1)
		for j := 0; j < k; j++ {
			if j != lab[i] && cnt[j] > 0 {
				b = math.Min(b, sum[j]/float64(cnt[j]))
			}
		}
		if math.IsInf(b, 1) {
			continue
		}
		total += (b - a) / math.Max(a, b)
	}
	return total / float64(n)
}

// KMeans clusters rows of x into k groups with Lloyd's algorithm from a k-means++
// start (seeded), 50 iterations at most; it returns each row's cluster index,
// clusters numbered by decreasing size.
func KMeans(x [][]float64, k int, seed uint64) []int {
	n := len(x)
	lab := make([]int, n)
	if k <= 1 || n <= k {
		return lab
	}
	d := len(x[0])
	cent := seedCentroids(x, k, seed)
	cnt := make([]int, k)
	for it := 0; it < 50; it++ {
		changed := false
		for i, r := range x {
			best, bj := math.Inf(1), 0
			for j, c := range cent {
				if v := SqDist(r, c); v < best {
					best, bj = v, j
				}
			}
			if lab[i] != bj || it == 0 {
				changed = changed || lab[i] != bj
				lab[i] = bj
			}
		}
		for j := range cent {
			for t := range cent[j] {
				cent[j][t] = 0
			}
			cnt[j] = 0
		}
		for i, r := range x {
			cnt[lab[i]]++
			for t := 0; t < d; t++ {
				cent[lab[i]][t] += r[t]
			}
		}
		for j := range cent {
			if cnt[j] > 0 {
				for t := range cent[j] {
					cent[j][t] /= float64(cnt[j])
				}
			}
		}
		if !changed && it > 0 {
			break
		}
	}
	renumberBySize(lab, cnt)
	return lab
}

// seedCentroids picks k starting centroids among the rows of x by k-means++
// (Arthur and Vassilvitskii 2007): the first uniformly, each next one with
// probability proportional to its squared distance to the nearest centroid
// already picked. The centroids are copies of the rows.
func seedCentroids(x [][]float64, k int, seed uint64) [][]float64 {
	n := len(x)
	rng := rand.New(rand.NewPCG(seed, 0x6b6d65616e73))
	cent := make([][]float64, 0, k)
	cent = append(cent, append([]float64(nil), x[rng.IntN(n)]...))
	dist := make([]float64, n)
	for len(cent) < k {
		var sum float64
		for i, r := range x {
			best := math.Inf(1)
			for _, c := range cent {
				best = math.Min(best, SqDist(r, c))
			}
			dist[i] = best
			sum += best
		}
		u := rng.Float64() * sum
		pick := n - 1
		for i, v := range dist {
			if u -= v; u <= 0 {
				pick = i
				break
			}
		}
		cent = append(cent, append([]float64(nil), x[pick]...))
	}
	return cent
}

// renumberBySize renumbers the cluster labels lab by decreasing cluster size
// cnt (ties by old index) so colours are stable.
func renumberBySize(lab, cnt []int) {
	k := len(cnt)
	order := make([]int, k)
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return cnt[order[a]] > cnt[order[b]] })
	ren := make([]int, k)
	for newJ, oldJ := range order {
		ren[oldJ] = newJ
	}
	for i := range lab {
		lab[i] = ren[lab[i]]
	}
}

// SqDist returns the squared Euclidean distance between a and b (equal lengths).
func SqDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		v := a[i] - b[i]
		s += v * v
	}
	return s
}

package ce

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

func TestNegativeTerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := []int{0, 2, 3, 7}
	counts := make([]int, 8)
	for i := 0; i < 8000; i++ {
		n := negativeTerm(d, 8, rng)
		if hasTerm(d, n) {
			t.Fatalf("negative term %d is in the document", n)
		}
		counts[n]++
	}
	// The 4 absent terms are equally likely: expected 2000 each (binomial sd ≈ 39).
	for _, j := range []int{1, 4, 5, 6} {
		if counts[j] < 1800 || counts[j] > 2200 {
			t.Errorf("term %d drawn %d times, want about 2000", j, counts[j])
		}
	}
	if got := negativeTerm([]int{0, 1, 2}, 3, rng); got != -1 {
		t.Errorf("full document: got %d, want -1", got)
	}
}

// twoMeans clusters the rows into 2 groups by Lloyd's algorithm, restarted from
// 20 seeded random pairs of rows; it keeps the clustering with the smallest
// within-cluster sum of squares (deterministic).
func twoMeans(rows [][]float64) []int {
	rng := rand.New(rand.NewPCG(11, 12))
	var best []int
	bestSS := math.Inf(1)
	for r := 0; r < 20; r++ {
		i, j := rng.IntN(len(rows)), rng.IntN(len(rows))
		lab, ss := lloyd2(rows, rows[i], rows[j])
		if ss < bestSS {
			best, bestSS = lab, ss
		}
	}
	return best
}

func lloyd2(rows [][]float64, a, b []float64) ([]int, float64) {
	c := [2][]float64{append([]float64(nil), a...), append([]float64(nil), b...)}
	lab := make([]int, len(rows))
	var ss float64
	for it := 0; it < 100; it++ {
		ss = 0
		for i, r := range rows {
			da, db := euclid(r, c[0]), euclid(r, c[1])
			lab[i] = 0
			if db < da {
				lab[i], da = 1, db
			}
			ss += da * da
		}
		for k := range c {
			n := 0
			clear(c[k])
			for i, r := range rows {
				if lab[i] == k {
					n++
					for j := range r {
						c[k][j] += r[j]
					}
				}
			}
			for j := range c[k] {
				if n > 0 {
					c[k][j] /= float64(n)
				}
			}
		}
	}
	return lab, ss
}

// adjustedRand is the adjusted Rand index of two labelings (Hubert & Arabie 1985):
// (Σ C(n_ij,2) − E) / (½(Σ C(a_i,2) + Σ C(b_j,2)) − E), E = Σ C(a_i,2)·Σ C(b_j,2)/C(n,2).
func adjustedRand(a, b []int) float64 {
	c2 := func(n int) float64 { return float64(n) * float64(n-1) / 2 }
	type key struct{ x, y int }
	nij, ai, bj := map[key]int{}, map[int]int{}, map[int]int{}
	for i := range a {
		nij[key{a[i], b[i]}]++
		ai[a[i]]++
		bj[b[i]]++
	}
	var sij, sa, sb float64
	for _, n := range nij {
		sij += c2(n)
	}
	for _, n := range ai {
		sa += c2(n)
	}
	for _, n := range bj {
		sb += c2(n)
	}
	e := sa * sb / c2(len(a))
	return (sij - e) / (0.5*(sa+sb) - e)
}

func TestAdjustedRand(t *testing.T) {
	// Hand-computed: identical partitions (up to renaming) give 1; for
	// a = {0,0,1,1}, b = {0,1,0,1}: Σ C(n_ij,2) = 0, Σ C(a_i,2) = Σ C(b_j,2) = 2,
	// E = 2·2/6 = 2/3, ARI = (0 − 2/3)/(2 − 2/3) = −0.5.
	if got := adjustedRand([]int{0, 0, 1, 1, 1}, []int{1, 1, 0, 0, 0}); math.Abs(got-1) > 1e-12 {
		t.Errorf("got %v, want 1", got)
	}
	if got := adjustedRand([]int{0, 0, 1, 1}, []int{0, 1, 0, 1}); math.Abs(got+0.5) > 1e-12 {
		t.Errorf("got %v, want -0.5", got)
	}
}

// TestPolysemousTagsSplitBySense: the Siamese-CE instances of each planted
// polysemous tag, over all documents holding it, separate by the true sense
// (concept) of the document: ARI of a 2-means clustering ≥ 0.8 (issue 3).
func TestPolysemousTagsSplitBySense(t *testing.T) {
	tc, m := trainSmall(t)
	for _, tag := range tc.poly {
		var rows [][]float64
		var sense []int
		for i, d := range tc.c.Docs {
			if !slices.Contains(d.Tags, tag) {
				continue
			}
			v, _, err := m.Embed(VariantSiamese, d.Tags)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, v[tag])
			sense = append(sense, tc.sense[i])
		}
		if len(rows) < 20 {
			t.Fatalf("%s: only %d instances", tag, len(rows))
		}
		if ari := adjustedRand(twoMeans(rows), sense); ari < 0.8 {
			t.Errorf("%s: ARI %v over %d instances, want ≥ 0.8", tag, ari, len(rows))
		}
	}
}

// TestTermCentroids checks ce.Model.TermCentroids against the mean of
// EmbedDocument's rows over the documents holding each term.
func TestTermCentroids(t *testing.T) {
	tc, m := trainSmall(t)
	var docs [][]string
	for _, i := range tc.split.Train[:200] {
		docs = append(docs, tc.c.Docs[i].Tags)
	}
	docs = append(docs, []string{"not-a-tag"}) // skipped: nothing in the vocabulary
	got, counts, err := m.TermCentroids(context.Background(), VariantSiamese, docs)
	if err != nil {
		t.Fatal(err)
	}
	v := m.Vocabulary().Len()
	want := make([][]float64, v)
	n := make([]int, v)
	for _, d := range docs[:len(docs)-1] {
		ids, _, vecs, _, err := m.EmbedDocument(VariantSiamese, d)
		if err != nil {
			t.Fatal(err)
		}
		for k, id := range ids {
			if want[id] == nil {
				want[id] = make([]float64, len(vecs[k]))
			}
			for j, x := range vecs[k] {
				want[id][j] += x
			}
			n[id]++
		}
	}
	for id := range v {
		if counts[id] != n[id] {
			t.Fatalf("term %d: %d documents, want %d", id, counts[id], n[id])
		}
		for j := range got[id] {
			w := 0.0
			if n[id] > 0 {
				w = want[id][j] / float64(n[id])
			}
			if math.Abs(got[id][j]-w) > 1e-12 {
				t.Fatalf("term %d, dimension %d: %v, want %v", id, j, got[id][j], w)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := m.TermCentroids(ctx, VariantSiamese, docs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	if _, _, err := m.TermCentroids(context.Background(), "word2vec", docs); err == nil {
		t.Error("an unknown variant was accepted")
	}
}

// TestOOVCentroids checks the whole-space points of tags outside the
// vocabulary: their documents are counted (documents without a vocabulary
// tag left out), the tags come sorted, and a tag held by one document sits
// where the evaluation's feature-based OOV model puts it — at the distances
// OOVDistances gives from that document's vocabulary tags.
func TestOOVCentroids(t *testing.T) {
	tc, m := trainSmall(t)
	var docs [][]string
	for _, i := range tc.split.Train[:40] {
		docs = append(docs, slices.Clone(tc.c.Docs[i].Tags))
	}
	for _, k := range []int{3, 9, 17} {
		docs[k] = append(docs[k], "zz-twice")
	}
	docs[9] = append(docs[9], "aa-once")
	docs[21] = append(docs[21], "mm-once")
	docs = append(docs, []string{"zz-twice", "only-oov"}) // no vocabulary tag: skipped
	terms, cen, counts, err := m.OOVCentroids(context.Background(), VariantSiamese, docs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"aa-once", "mm-once", "zz-twice"}; !slices.Equal(terms, want) || !slices.Equal(counts, []int{1, 1, 3}) {
		t.Fatalf("terms %v counts %v; want %v and 1, 1, 3", terms, counts, want)
	}
	for i, k := range []int{9, 21} {
		ids, _, vecs, _, err := m.EmbedDocument(VariantSiamese, docs[k])
		if err != nil {
			t.Fatal(err)
		}
		om, err := m.OOVEvalModel(VariantSiameseFeature, []eval.OOVDoc{{Terms: ids, OOV: []string{terms[i]}}})
		if err != nil {
			t.Fatal(err)
		}
		dist := make([]float64, m.Vocabulary().Len())
		if err := om.OOVDistances(terms[i], ids, nil, dist); err != nil {
			t.Fatal(err)
		}
		for r, id := range ids {
			var s float64
			for j, x := range vecs[r] {
				s += (x - cen[i][j]) * (x - cen[i][j])
			}
			if got, want := math.Sqrt(s), -dist[id]; math.Abs(got-want) > 1e-9*max(1, want) {
				t.Errorf("%s: distance to %q %v, the OOV model's %v", terms[i], m.Vocabulary().Term(id), got, want)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := m.OOVCentroids(ctx, VariantSiamese, docs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	if _, _, _, err := m.OOVCentroids(context.Background(), "word2vec", docs); err == nil {
		t.Error("an unknown variant was accepted")
	}
}

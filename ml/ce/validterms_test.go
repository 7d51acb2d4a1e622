package ce

import (
	"bytes"
	"context"
	"slices"
	"testing"
)

// TestSampleValidTerms checks the sample the validation ranks among above
// the limit: every validation term in it, then seeded others up to the limit,
// increasing; the documents re-encoded into it; nothing at or below the limit.
func TestSampleValidTerms(t *testing.T) {
	docs := func() [][]int { return [][]int{{1, 5}, {2, 5, 9}} }
	tr := &trainer{cfg: Config{Seed: 3}, valid: docs()}
	tr.sampleValidTerms(20, 20)
	if tr.validTerms != nil || !slices.EqualFunc(tr.valid, docs(), slices.Equal) {
		t.Fatalf("at the limit: sample %v, documents %v", tr.validTerms, tr.valid)
	}
	tr.sampleValidTerms(20, 6)
	if len(tr.validTerms) != 6 || !slices.IsSorted(tr.validTerms) {
		t.Fatalf("sample %v: want 6 increasing ids", tr.validTerms)
	}
	for i, d := range docs() {
		for j, x := range d {
			if got := tr.validTerms[tr.valid[i][j]]; got != x {
				t.Fatalf("document %d term %d maps back to %d, want %d", i, j, got, x)
			}
		}
		if !slices.IsSorted(tr.valid[i]) {
			t.Fatalf("document %d not sorted: %v", i, tr.valid[i])
		}
	}
	again := &trainer{cfg: Config{Seed: 3}, valid: docs()}
	again.sampleValidTerms(20, 6)
	other := &trainer{cfg: Config{Seed: 4}, valid: docs()}
	other.sampleValidTerms(20, 6)
	if !slices.Equal(again.validTerms, tr.validTerms) {
		t.Errorf("same seed, samples %v and %v", tr.validTerms, again.validTerms)
	}
	if slices.Equal(other.validTerms, tr.validTerms) {
		t.Errorf("seeds 3 and 4 drew the same sample %v", tr.validTerms)
	}
	// Fewer places than validation terms: the validation terms alone.
	few := &trainer{cfg: Config{Seed: 3}, valid: docs()}
	few.sampleValidTerms(20, 3)
	if !slices.Equal(few.validTerms, []int{1, 2, 5, 9}) {
		t.Errorf("limit 3 below the 4 validation terms: sample %v", few.validTerms)
	}
}

// TestSubsetDistances: the subset model's distances are the whole model's
// columns of the subset's terms, bit for bit, for the context mapped back.
func TestSubsetDistances(t *testing.T) {
	_, m := trainSmall(t)
	em := m.CentreModel(VariantSiamese).(*evalModel) // the sample's model has no widths
	terms := []int{0, 3, 4, 8, 11, 17, 20, 35}
	e := newEmbedder(em.e.sizes, em.e.params, subsetRows(em.e.termX, terms), em.e.dc, em.e.prod)
	sub := &subsetModel{x: &evalModel{m: m, name: VariantSiamese, e: e}, terms: terms}
	ctx, queries := []int{1, 3, 6}, []int{1, 6}
	got := make([]float64, len(queries)*len(terms))
	sub.Distances(ctx, queries, nil, got)
	v := em.VocabSize()
	full := make([]float64, len(queries)*v)
	em.Distances([]int{3, 8, 20}, []int{3, 20}, nil, full)
	for i := range queries {
		for j, x := range terms {
			if got[i*len(terms)+j] != full[i*v+x] {
				t.Fatalf("query %d, term %d: %v, whole model %v", i, x, got[i*len(terms)+j], full[i*v+x])
			}
		}
	}
}

// TestTrainValidTerms: a training above the limit records the sample's size
// and gives the same bytes twice.
func TestTrainValidTerms(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2, cfg.ValidTerms, cfg.ValidDocs = 2, 1, 20, 4
	var files [2]bytes.Buffer
	for i := range files {
		m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.vocab.Len() <= 20 || m.Info().ValidTerms != 20 {
			t.Fatalf("%d terms, Info.ValidTerms %d: want a sample of 20", m.vocab.Len(), m.Info().ValidTerms)
		}
		if err := m.Write(&files[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0].Bytes(), files[1].Bytes()) {
		t.Error("two trainings with the validation sample wrote different files")
	}
}

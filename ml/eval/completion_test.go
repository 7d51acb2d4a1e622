package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCompletionHandComputed: a line model, x = 0, 1, 3, 4, 10 for terms
// 0..4, and the document {0, 2, 4}. Held out 0: context {2, 4}; the candidates
// are 0, 1, 3; Eq. 9's minimum over the queries 2 (x = 3) and 4 (x = 10):
// term 0 → 3, term 1 → 2, term 3 → 1; so 0 ranks 3rd. Held out 2: context
// {0, 4}; candidates 1 → 1, 2 → 3, 3 → 4: rank 2. Held out 4: context {0, 2};
// candidates 1 → 1, 3 → 1, 4 → 7: rank 3. P@1 (the MAP) 0; AUC = MRR =
// (1/3 + 1/2 + 1/3)/3; P@2 = (0 + 1/2 + 0)/3; P@3 = (1/3 + 1/3 + 1/3)/3.
func TestCompletionHandComputed(t *testing.T) {
	m := &lineModel{x: []float64{0, 1, 3, 4, 10}}
	r, err := Evaluate(context.Background(), m, Completion, [][]int{{0, 2, 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Queries != 3 || r.Docs != 1 {
		t.Fatalf("queries %d, docs %d; want 3 held-out terms of 1 document", r.Queries, r.Docs)
	}
	mrr := (1.0/3 + 1.0/2 + 1.0/3) / 3
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"MAP (P@1)", r.MAP, 0}, {"P@1", r.PAtK[0], 0}, {"P@2", r.PAtK[1], 0.5 / 3},
		{"P@3", r.PAtK[2], 1.0 / 3}, {"AUC (MRR)", r.AUC, mrr}, {"PR[0]", r.PR[0], mrr}, {"PR[10]", r.PR[10], mrr},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// cueModel recognises its context: a term of ctx is at distance 0 from every
// query, any other at a distance drawn at random. Under the extended protocol
// it finds every document's terms first; under completion the held-out term
// is not in the context and it ranks at random.
type cueModel struct{ v int }

func (m *cueModel) Name() string     { return "cue" }
func (m *cueModel) Contextual() bool { return true }
func (m *cueModel) VocabSize() int   { return m.v }
func (m *cueModel) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	for i := range queries {
		for j := 0; j < m.v; j++ {
			dst[i*m.v+j] = 1 + rng.Float64()
			if slices.Contains(ctx, j) {
				dst[i*m.v+j] = 0
			}
		}
	}
}

func TestCompletionTakesTheContextCueAway(t *testing.T) {
	const v = 200
	docs := randomDocs(rand.New(rand.NewPCG(3, 4)), 300, v, 3, 6)
	m := &cueModel{v: v}
	ext, err := Evaluate(context.Background(), m, Extended, docs, &Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ext.MAP != 1 {
		t.Fatalf("extended MAP %v: the cue should find every document's terms", ext.MAP)
	}
	comp, err := Evaluate(context.Background(), m, Completion, docs, &Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// At random among about v − |δ| + 1 candidates, the MRR is about
	// H(n)/n ≈ 0.03; 0.1 leaves room for chance and fails a leak.
	if comp.AUC > 0.1 || comp.MAP > 0.05 {
		t.Errorf("completion MRR %v, P@1 %v: the held-out term should rank at random", comp.AUC, comp.MAP)
	}
}

// listLine ranks by its own score: the distance on the line from term j to
// the mean position of the queries. It checks what ListTo is given.
type listLine struct {
	lineModel
	seen [][]int
}

func (m *listLine) ListTo(dst []float64, ctx, queries []int, rng *rand.Rand) {
	m.seen = append(m.seen, slices.Clone(queries))
	var mean float64
	for _, q := range queries {
		mean += m.x[q]
	}
	mean /= float64(len(queries))
	for j := range dst {
		dst[j] = math.Abs(m.x[j] - mean)
	}
}

func TestCompletionListModel(t *testing.T) {
	m := &listLine{lineModel: lineModel{x: []float64{0, 1, 3, 4, 10}}}
	r, err := Evaluate(context.Background(), m, Completion, [][]int{{0, 2, 4}}, &Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{2, 4}, {0, 4}, {0, 2}}; !slices.EqualFunc(m.seen, want, slices.Equal) {
		t.Fatalf("ListTo's queries %v, want %v", m.seen, want)
	}
	// Held out 0: mean 6.5; candidates 0 → 6.5, 1 → 5.5, 3 → 2.5: rank 3. Held
	// out 2: mean 5; 1 → 4, 2 → 2, 3 → 1: rank 2. Held out 4: mean 1.5;
	// 1 → 0.5, 3 → 2.5, 4 → 8.5: rank 3.
	if mrr := (1.0/3 + 1.0/2 + 1.0/3) / 3; math.Abs(r.AUC-mrr) > 1e-12 {
		t.Errorf("MRR %v, want %v", r.AUC, mrr)
	}
}

func TestCompletionRefusals(t *testing.T) {
	docs := [][]int{{0, 1, 2}}
	m := &lineModel{x: ramp(5)}
	if _, err := EvaluateAll(context.Background(), m, []Protocol{Extended, Completion}, docs, nil); err == nil {
		t.Error("completion with another protocol: no error")
	}
	if _, err := Evaluate(context.Background(), m, Completion, docs, &Options{Missing: Band{Lo: 10, Hi: 30}}); err == nil {
		t.Error("completion with a missing-rate band: no error")
	}
	w := &wholeRecorder{lineModel: lineModel{x: ramp(5)}}
	if _, err := Evaluate(context.Background(), w, Completion, docs, nil); !errors.Is(err, ErrWholeContext) {
		t.Errorf("a whole-context model: %v, want ErrWholeContext", err)
	}
	if p, err := ParseProtocol(" Completion "); err != nil || p != Completion {
		t.Errorf("ParseProtocol: %v, %v", p, err)
	}
}

package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// lineModel places term j at x[j] on a line; e(q, τ) = |x[q] − x[τ]|.
type lineModel struct {
	x          []float64
	contextual bool
}

func (m *lineModel) Name() string     { return "line" }
func (m *lineModel) Contextual() bool { return m.contextual }
func (m *lineModel) VocabSize() int   { return len(m.x) }
func (m *lineModel) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	v := len(m.x)
	for i, q := range queries {
		for j := range m.x {
			dst[i*v+j] = math.Abs(m.x[q] - m.x[j])
		}
	}
}

// noisyModel is a stochastic contextual model: distances are uniform noise plus a
// bonus for terms of the context, drawn from rng only.
type noisyModel struct{ v int }

func (m *noisyModel) Name() string     { return "noisy" }
func (m *noisyModel) Contextual() bool { return true }
func (m *noisyModel) VocabSize() int   { return m.v }
func (m *noisyModel) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	for i := range queries {
		row := dst[i*m.v : (i+1)*m.v]
		for j := range row {
			row[j] = rng.Float64()
		}
		for _, c := range ctx {
			row[c] -= 0.3
		}
	}
}

func checkScores(t *testing.T, got *Result, want Scores, queries int) {
	t.Helper()
	if got.Queries != queries {
		t.Errorf("queries: got %d, want %d", got.Queries, queries)
	}
	checkFigures(t, got.PAtK, got.MAP, got.PR, got.AUC, want.PAtK, want.AP, want.PR, AUC(&want.PR))
}

// checkFigures compares P@K, the (mean) average precision, the 11-point
// precision-recall curve and its AUC with the wanted values, within tol.
func checkFigures(t *testing.T, patk [MaxK]float64, ap float64, pr [RecallLevels]float64, auc float64,
	wantPAtK [MaxK]float64, wantAP float64, wantPR [RecallLevels]float64, wantAUC float64) {
	t.Helper()
	for k := range wantPAtK {
		if !closeTo(patk[k], wantPAtK[k], tol) {
			t.Errorf("P@%d: got %v, want %v", k+1, patk[k], wantPAtK[k])
		}
	}
	if !closeTo(ap, wantAP, tol) {
		t.Errorf("MAP: got %v, want %v", ap, wantAP)
	}
	for l := range wantPR {
		if !closeTo(pr[l], wantPR[l], tol) {
			t.Errorf("PR[%d]: got %v, want %v", l, pr[l], wantPR[l])
		}
	}
	if !closeTo(auc, wantAUC, tol) {
		t.Errorf("AUC: got %v, want %v", auc, wantAUC)
	}
}

// Positions x = [0, 2, 1, 5, 9], document δ = {0, 1}, worked out by hand:
//
//	priming, query 0: distances [0 2 1 5 9] → list 0,2,1,3,4 → ranks of δ: 1, 3
//	priming, query 1: distances [2 0 1 3 7] → list 1,2,0,3,4 → ranks of δ: 1, 3
//	extended: τ=0 → e(1,0)=2; τ=1 → e(0,1)=2; τ=2 → min(1,1)=1; τ=3 → min(5,3)=3;
//	          τ=4 → min(9,7)=7 → list 2,0,1,3,4 (0 before 1 by index) → ranks 2, 3
//
// The single-term document {4} is skipped (MinTerms 2).
func TestEvaluateHandComputed(t *testing.T) {
	m := &lineModel{x: []float64{0, 2, 1, 5, 9}, contextual: true}
	docs := [][]int{{0, 1}, {4}}
	var want13, want23 Scores
	ScoreRanks([]int{1, 3}, &want13) // checked by hand in TestScoreRanks
	ScoreRanks([]int{2, 3}, &want23)
	// ranks 2,3: P@1 = 0, P@2 = 1/2, P@K = 2/K (K ≥ 3), AP = 1/4, PR ≡ 2/3.
	if want23.AP != 0.25 || want23.PR[0] != 2.0/3 || want23.PR[10] != 2.0/3 {
		t.Fatalf("hand-computed ranks 2,3: got %+v", want23)
	}

	got, err := Evaluate(context.Background(), m, Priming, docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkScores(t, got, want13, 2)
	if got.Docs != 1 || got.Skipped != 1 {
		t.Errorf("docs, skipped: got %d, %d, want 1, 1", got.Docs, got.Skipped)
	}

	got, err = Evaluate(context.Background(), m, Extended, docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkScores(t, got, want23, 1)
}

func TestEvaluateNotContextual(t *testing.T) {
	m := &lineModel{x: []float64{0, 1, 2}}
	_, err := Evaluate(context.Background(), m, Priming, [][]int{{0, 1}}, nil)
	if !errors.Is(err, ErrNotContextual) {
		t.Errorf("priming a non-contextual model: got %v, want ErrNotContextual", err)
	}
	if _, err := Evaluate(context.Background(), m, Extended, [][]int{{0, 1}}, nil); err != nil {
		t.Errorf("extended: got %v, want nil", err)
	}
}

func TestEvaluateBadInput(t *testing.T) {
	m := &lineModel{x: []float64{0, 1, 2}, contextual: true}
	for _, docs := range [][][]int{{{0, 3}}, {{-1, 0}}, {{1, 1}}} {
		if _, err := Evaluate(context.Background(), m, Priming, docs, nil); err == nil {
			t.Errorf("docs %v: got nil error, want one", docs)
		}
	}
	if _, err := Evaluate(context.Background(), m, Protocol("x"), [][]int{{0, 1}}, nil); err == nil {
		t.Error("unknown protocol: got nil error")
	}
	// NaN distances do not crash and rank last.
	nanModel := &lineModel{x: []float64{0, math.NaN(), 2, 3}, contextual: true}
	if _, err := Evaluate(context.Background(), nanModel, Extended, [][]int{{0, 1}}, nil); err != nil {
		t.Errorf("NaN distances: got %v", err)
	}
}

func randomDocs(rng *rand.Rand, n, v, minLen, maxLen int) [][]int {
	docs := make([][]int, n)
	for i := range docs {
		l := minLen + rng.IntN(maxLen-minLen+1)
		docs[i] = rng.Perm(v)[:l]
	}
	return docs
}

// TestEvaluateDeterministic: the same seed gives bit-identical results for any
// number of workers; another seed gives different ones.
func TestEvaluateDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &noisyModel{v: 40}
	docs := randomDocs(rng, 300, 40, 1, 12)
	for _, p := range []Protocol{Priming, Extended} {
		for _, band := range []Band{{}, Band10to30} {
			var ref *Result
			for _, w := range []int{1, 2, 3, 7} {
				got, err := Evaluate(context.Background(), m, p, docs, &Options{Seed: 42, Workers: w, Missing: band})
				if err != nil {
					t.Fatal(err)
				}
				if ref == nil {
					ref = got
				} else if *got != *ref {
					t.Errorf("%s band %v workers %d: got %+v, want %+v", p, band, w, *got, *ref)
				}
			}
			other, _ := Evaluate(context.Background(), m, p, docs, &Options{Seed: 43, Missing: band})
			if *other == *ref {
				t.Errorf("%s band %v: seeds 42 and 43 gave identical results", p, band)
			}
		}
	}
}

// recorder records the context length of each call (single worker).
type recorder struct {
	lineModel
	mu   sync.Mutex
	lens []int
}

func (r *recorder) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	r.mu.Lock()
	r.lens = append(r.lens, len(ctx))
	r.mu.Unlock()
	r.lineModel.Distances(ctx, queries, rng, dst)
}

// ramp returns the positions 0, 1, …, v−1 of a lineModel.
func ramp(v int) []float64 {
	x := make([]float64, v)
	for i := range x {
		x[i] = float64(i)
	}
	return x
}

func TestIncompleteBands(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const v = 60
	x := ramp(v)
	docs := randomDocs(rng, 400, v, 2, 25)
	for _, b := range []Band{BandUpTo10, Band10to30, Band30to50} {
		t.Run(b.String(), func(t *testing.T) {
			m := &recorder{lineModel: lineModel{x: x, contextual: true}}
			got, err := Evaluate(context.Background(), m, Priming, docs, &Options{Seed: 9, Workers: 1, Missing: b})
			if err != nil {
				t.Fatal(err)
			}
			wantSkipped := 0
			k := 0
			for _, d := range docs {
				n := len(d)
				ok := false
				for r := 1; r < n; r++ {
					if 100*r > b.Lo*n && 100*r <= b.Hi*n {
						ok = true
					}
				}
				if !ok {
					wantSkipped++
					continue
				}
				r := n - m.lens[k]
				k++
				if !(100*r > b.Lo*n && 100*r <= b.Hi*n) {
					t.Errorf("doc of %d terms: removed %d, missing rate %d%% outside %v", n, r, 100*r/n, b)
				}
			}
			if got.Skipped != wantSkipped || k != len(m.lens) {
				t.Errorf("skipped: got %d, want %d (calls %d, evaluated %d)", got.Skipped, wantSkipped, len(m.lens), k)
			}
		})
	}
}

// wholeRecorder is a WholeContextModel that records each call's context and
// queries (single worker).
type wholeRecorder struct {
	lineModel
	ctxs, queries [][]int
}

func (r *wholeRecorder) WholeContext() {}

func (r *wholeRecorder) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	r.ctxs = append(r.ctxs, slices.Clone(ctx))
	r.queries = append(r.queries, slices.Clone(queries))
	r.lineModel.Distances(ctx, queries, rng, dst)
}

// TestIncompleteWholeContext: a WholeContextModel (CRBM, §6.5) keeps the whole
// document as its context in the incomplete setting, while its queries are the
// reduced document's terms, the same terms another model gets with the same seed.
func TestIncompleteWholeContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const v = 40
	x := ramp(v)
	docs := randomDocs(rng, 50, v, 4, 12)
	for _, p := range []Protocol{Priming, Extended} {
		whole := &wholeRecorder{lineModel: lineModel{x: x, contextual: true}}
		plain := &recorder{lineModel: lineModel{x: x, contextual: true}}
		opt := &Options{Seed: 3, Workers: 1, Missing: Band10to30}
		if _, err := Evaluate(context.Background(), whole, p, docs, opt); err != nil {
			t.Fatal(err)
		}
		if _, err := Evaluate(context.Background(), plain, p, docs, opt); err != nil {
			t.Fatal(err)
		}
		if len(whole.ctxs) == 0 || len(whole.ctxs) != len(plain.lens) {
			t.Fatalf("%v: %d calls of the whole-context model, %d of the other", p, len(whole.ctxs), len(plain.lens))
		}
		k := 0
		for _, d := range docs {
			if k < len(whole.ctxs) && slices.Equal(whole.ctxs[k], d) {
				q := whole.queries[k]
				if len(q) >= len(d) || len(q) != plain.lens[k] {
					t.Errorf("%v: document %v: queries %v, want the reduced document (%d terms)", p, d, q, plain.lens[k])
				}
				for _, t2 := range q {
					if !slices.Contains(d, t2) {
						t.Errorf("%v: query %d not in document %v", p, t2, d)
					}
				}
				k++
			}
		}
		if k != len(whole.ctxs) {
			t.Errorf("%v: %d of %d calls had the whole document as context", p, k, len(whole.ctxs))
		}
	}
}

// TestIncompleteGroundTruth: with a model that puts the three terms of the document
// at distance 0 from each other and everything else far away, removing one term
// of δ = {0,1,2} still ranks all three first, so P@3 = 1 only if the ground truth
// is the full document (it would be 2/3 against δ̃).
func TestIncompleteGroundTruth(t *testing.T) {
	m := &lineModel{x: []float64{0, 0, 0, 10, 20, 30, 40}, contextual: true}
	docs := [][]int{{0, 1, 2}}
	for _, p := range []Protocol{Priming, Extended} {
		got, err := Evaluate(context.Background(), m, p, docs, &Options{Missing: Band30to50})
		if err != nil {
			t.Fatal(err)
		}
		wantQ := 2 // priming: the 2 terms of δ̃
		if p == Extended {
			wantQ = 1
		}
		if got.Queries != wantQ || got.PAtK[2] != 1 || got.MAP != 1 {
			t.Errorf("%s: got queries %d P@3 %v MAP %v, want %d 1 1", p, got.Queries, got.PAtK[2], got.MAP, wantQ)
		}
	}
}

func TestParseBand(t *testing.T) {
	tests := []struct {
		in   string
		want Band
		ok   bool
	}{
		{"", Band{}, true}, {"10", BandUpTo10, true}, {"<=10", BandUpTo10, true}, {"0-10", BandUpTo10, true},
		{"10-30", Band10to30, true}, {"30-50%", Band30to50, true}, {"50-30", Band{}, false}, {"x", Band{}, false},
		{"10-200", Band{}, false}, {"99", Band{}, false}, {"20-40", Band{}, false}, {"0-50", Band{}, false},
	}
	for _, tt := range tests {
		got, err := ParseBand(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseBand(%q): got %v, %v, want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// oovLine places vocabulary terms on a line and OOV terms at given positions.
type oovLine struct {
	x   []float64
	oov map[string]float64
}

func (m *oovLine) Name() string   { return "oov-line" }
func (m *oovLine) VocabSize() int { return len(m.x) }
func (m *oovLine) OOVDistances(term string, ctx []int, rng *rand.Rand, dst []float64) error {
	p, ok := m.oov[term]
	if !ok {
		return fmt.Errorf("unknown %q", term)
	}
	for j := range m.x {
		dst[j] = math.Abs(p - m.x[j])
	}
	return nil
}

// x = [0, 2, 1, 5, 9]; OOV "a" at 1.9: distances [1.9 .1 .9 3.1 7.1] → list
// 1,2,0,3,4; ground truth {0,1} → ranks 1, 3. "b" at 8: distances [8 6 7 3 1] →
// list 4,3,1,2,0 → ranks 3, 5. "zz" is unknown and fails; the document without
// an in-vocabulary term is skipped.
func TestEvaluateOOV(t *testing.T) {
	m := &oovLine{x: []float64{0, 2, 1, 5, 9}, oov: map[string]float64{"a": 1.9, "b": 8}}
	docs := []OOVDoc{{Terms: []int{0, 1}, OOV: []string{"a", "b", "zz"}}, {OOV: []string{"a"}}}
	got, err := EvaluateOOV(context.Background(), m, docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s13, s35 Scores
	ScoreRanks([]int{1, 3}, &s13)
	ScoreRanks([]int{3, 5}, &s35)
	var want Scores
	for k := range want.PAtK {
		want.PAtK[k] = (s13.PAtK[k] + s35.PAtK[k]) / 2
	}
	want.AP = (s13.AP + s35.AP) / 2
	for l := range want.PR {
		want.PR[l] = (s13.PR[l] + s35.PR[l]) / 2
	}
	checkScores(t, got, want, 2)
	if got.FailedQueries != 1 || got.Skipped != 1 || got.Docs != 1 {
		t.Errorf("failed, skipped, docs: got %d %d %d, want 1 1 1", got.FailedQueries, got.Skipped, got.Docs)
	}
}

func TestEvaluateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &noisyModel{v: 10}
	if _, err := Evaluate(ctx, m, Extended, [][]int{{1, 2}, {3, 4}}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestEvaluateAllEqualsEvaluate checks that scoring both protocols from one
// pass gives each protocol's own figures, with a model whose distances draw on
// the random stream and with an incomplete context.
func TestEvaluateAllEqualsEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := &noisyModel{v: 40}
	docs := randomDocs(rng, 200, 40, 1, 12)
	for _, band := range []Band{{}, Band10to30} {
		opt := &Options{Seed: 9, Workers: 2, Missing: band}
		both, err := EvaluateAll(context.Background(), m, []Protocol{Priming, Extended}, docs, opt)
		if err != nil {
			t.Fatal(err)
		}
		for k, p := range []Protocol{Priming, Extended} {
			one, err := Evaluate(context.Background(), m, p, docs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if *both[k] != *one {
				t.Errorf("%s band %v: EvaluateAll gave %+v, Evaluate %+v", p, band, *both[k], *one)
			}
		}
		if *both[0] == *both[1] {
			t.Errorf("band %v: priming and extended gave identical results", band)
		}
	}
	if _, err := EvaluateAll(context.Background(), m, nil, docs, nil); err == nil {
		t.Error("no protocol: want an error")
	}
}

// preparer records the terms PrepareQueries is given and the queries of every
// Distances call.
type preparer struct {
	lineModel
	mu       sync.Mutex
	prepared []int
	asked    map[int]bool
}

func (p *preparer) PrepareQueries(terms []int) { p.prepared = append([]int(nil), terms...) }

func (p *preparer) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	p.mu.Lock()
	for _, q := range queries {
		p.asked[q] = true
	}
	p.mu.Unlock()
	p.lineModel.Distances(ctx, queries, rng, dst)
}

func TestEvaluatePreparesQueries(t *testing.T) {
	docs := [][]int{{4, 1}, {7}, {9, 4, 2}, {}, {1, 8}}
	for _, band := range []Band{{}, Band30to50} {
		p := &preparer{lineModel: lineModel{x: ramp(12)}, asked: map[int]bool{}}
		if _, err := Evaluate(context.Background(), p, Extended, docs, &Options{Seed: 1, Missing: band}); err != nil {
			t.Fatal(err)
		}
		// Term 7 is only in a skipped one-term document.
		if want := []int{1, 2, 4, 8, 9}; !slices.Equal(p.prepared, want) {
			t.Errorf("band %v: prepared %v, want %v", band, p.prepared, want)
		}
		for q := range p.asked {
			if !slices.Contains(p.prepared, q) {
				t.Errorf("band %v: query %d was not prepared", band, q)
			}
		}
	}
}

// rowLine is a lineModel that lends its rows (precomputed) for calls with an
// even number of queries and declines the others.
type rowLine struct {
	lineModel
	rows [][]float64
	lent atomic.Int64
}

func (r *rowLine) DistanceRows(_, queries []int, _ *rand.Rand) ([][]float64, bool) {
	if len(queries)%2 == 1 {
		return nil, false
	}
	r.lent.Add(1)
	out := make([][]float64, len(queries))
	for i, q := range queries {
		out[i] = r.rows[q]
	}
	return out, true
}

func TestEvaluateRowModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const v = 40
	x := make([]float64, v)
	for i := range x {
		x[i] = float64(rng.IntN(10)) // ties
	}
	plain := &lineModel{x: x, contextual: true}
	rl := &rowLine{lineModel: *plain}
	for q := range v {
		rl.rows = append(rl.rows, make([]float64, v))
		plain.Distances(nil, []int{q}, nil, rl.rows[q])
	}
	var docs [][]int
	for range 60 {
		docs = append(docs, rng.Perm(v)[:2+rng.IntN(5)])
	}
	for _, p := range []Protocol{Extended, Priming} {
		want, err := Evaluate(context.Background(), plain, p, docs, &Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		rl.lent.Store(0)
		got, err := Evaluate(context.Background(), rl, p, docs, &Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if *got != *want {
			t.Errorf("%s: lent rows gave %+v, Distances %+v", p, *got, *want)
		}
		if lent := rl.lent.Load(); (p == Extended) != (lent > 0) {
			t.Errorf("%s: rows lent %d times", p, lent)
		}
	}
}

// TestMAPDocSE checks MAP's standard error over documents: with one list per
// document it is the sample standard deviation of AP over √n; with several,
// the linearized error of the ratio of sums; a skipped document does not
// count, and a single document has none.
func TestMAPDocSE(t *testing.T) {
	one := func(aps ...float64) []docAcc {
		accs := make([]docAcc, len(aps))
		for i, ap := range aps {
			accs[i].add(&Scores{AP: ap})
		}
		return accs
	}
	aps := []float64{0.1, 0.5, 0.9, 0.3}
	mean, sd := 0.45, 0.0
	for _, x := range aps {
		sd += (x - mean) * (x - mean)
	}
	sd = math.Sqrt(sd / 3)
	r := reduce(append(one(aps...), docAcc{skipped: true}))
	if math.Abs(r.MAP-mean) > 1e-15 || math.Abs(r.MAPDocSE-sd/2) > 1e-15 {
		t.Errorf("one list a document: MAP %v ± %v, want %v ± %v", r.MAP, r.MAPDocSE, mean, sd/2)
	}
	// Two documents with 1 and 3 lists: MAP = (0.2 + 1.8)/4 = 0.5; the
	// residuals 0.2 − 0.5 and 1.8 − 1.5 give √(2·(0.09+0.09))/4.
	accs := one(0.2, 0.6)
	accs[1].add(&Scores{AP: 0.6})
	accs[1].add(&Scores{AP: 0.6})
	r = reduce(accs)
	if want := math.Sqrt(2*0.18) / 4; math.Abs(r.MAP-0.5) > 1e-15 || math.Abs(r.MAPDocSE-want) > 1e-15 {
		t.Errorf("clustered lists: MAP %v ± %v, want 0.5 ± %v", r.MAP, r.MAPDocSE, want)
	}
	if r := reduce(one(0.7)); r.MAPDocSE != 0 {
		t.Errorf("one document: MAPDocSE %v, want 0", r.MAPDocSE)
	}
}

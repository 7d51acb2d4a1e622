package ce

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/ml/nn"
)

// TestTrainingMatchesInference checks that the network the trainer optimises
// and the model that is evaluated compute the same thing: for training
// documents, in the middle of stage 1 and stage 2,
//   - the context input at inference (Model.contextTo of the document as
//     eval.Encode gives it, unsorted) equals the training context ctxX;
//   - CE(τ|δ) of the training forward pass (nn.MLP.ForwardTo up to the CE layer
//     on x(τ,δ) assembled by trainSet.fillInputs, the rows stage 1 trains on)
//     equals the inference path (embedder, tanh addition theorem) for every
//     vocabulary term;
//   - the distances eval.Model.Distances returns for a query are the Euclidean
//     distances between those training-path CEs, with the query's own distance 0;
//   - after a file round trip the saved "ce" network gives the same distances.
//
// Kept in one function: the three checks share one trained model and the
// trainer state it was trained with.
func TestTrainingMatchesInference(t *testing.T) {
	tc := makeTestCorpus(3, 400)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 2, 1
	checked := 0
	cfg.epochHook = func(stage string, epoch int, tr *trainer) {
		if stage != "stage1" && stage != "stage2" {
			return
		}
		m := tr.snapshot(tr.net.Params)
		em := m.EvalModel(VariantCE)
		set := tr.set
		v := set.v
		d := m.CEDim()
		H := tr.net.Layers()
		ws := nn.NewWorkspace(tr.net.Sizes, v)
		x := mat.NewDense(v, set.inputDim(), nil)
		ex := make([]example, v)
		for di := 0; di < 15; di++ {
			doc := set.docs[di]
			// The document as the evaluation sees it: encoded from the corpus in
			// its own tag order (reversed here to make the order differ).
			evalDoc := make([]int, len(doc))
			for i, term := range doc {
				evalDoc[len(doc)-1-i] = term
			}
			ctx := make([]float64, m.ctxProj.Out)
			m.contextTo(ctx, evalDoc)
			for k := range ctx {
				if math.Abs(ctx[k]-set.ctxX[di][k]) > 1e-9 {
					t.Fatalf("%s epoch %d doc %d: inference context[%d] = %v, training %v", stage, epoch, di, k, ctx[k], set.ctxX[di][k])
				}
			}
			for term := range ex {
				ex[term] = example{term: int32(term), doc: int32(di)}
			}
			set.fillInputs(ex, x.RawMatrix().Data)
			tr.net.ForwardTo(ws, x, H-1)
			ce := ws.Out(H - 1)
			got := make([]float64, len(evalDoc)*v)
			em.Distances(evalDoc, evalDoc, nil, got)
			for qi, q := range evalDoc {
				for j := 0; j < v; j++ {
					var s float64
					for k := 0; k < d; k++ {
						diff := ce.At(q, k) - ce.At(j, k)
						s += diff * diff
					}
					want := math.Sqrt(s)
					if g := got[qi*v+j]; math.Abs(g-want) > 1e-9 {
						t.Fatalf("%s epoch %d doc %d: e(%d,%d) = %v, training path %v", stage, epoch, di, q, j, g, want)
					}
				}
				if got[qi*v+q] != 0 {
					t.Fatalf("self distance %v, want 0", got[qi*v+q])
				}
			}
		}
		checked++
	}
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if checked < 2 {
		t.Fatalf("hook ran %d times, want stage 1 and stage 2", checked)
	}
	// The saved "ce" variant after a file round trip ranks like the in-memory one.
	m2 := roundTrip(t, m)
	docs := eval.Encode(m.Vocabulary(), tc.c.Select(tc.split.Train[:10]))
	v := m.Vocabulary().Len()
	for _, doc := range docs {
		a := make([]float64, len(doc)*v)
		b := make([]float64, len(doc)*v)
		m.EvalModel(VariantCE).Distances(doc, doc, rand.New(rand.NewPCG(1, 1)), a)
		m2.EvalModel(VariantCE).Distances(doc, doc, rand.New(rand.NewPCG(1, 1)), b)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("distance %d after round trip %v, want %v", i, b[i], a[i])
			}
		}
	}
}

// TestContextMean checks ContextLDAMean: the context part of a training
// example is l(δ) followed by the mean of the scaled term rows over δ less the
// focused term (positive) or less the term at position τ mod |δ| (negative),
// while inference uses the mean over all of δ; and a model file round trip
// keeps the choice and the distances.
func TestContextMean(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 1, 1
	cfg.Context = ContextLDAMean
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info().Context != ContextLDAMean {
		t.Fatalf("Info.Context = %q", m.Info().Context)
	}
	dl, dm := m.ctxProj.Out, meanDim(m.terms.Dim())
	if got := m.ctxDim(); got != dl+dm || m.sizes[0] != m.terms.Dim()+dl+dm {
		t.Fatalf("ctxDim %d, sizes %v: want %d+%d context inputs", got, m.sizes, dl, dm)
	}
	// A trainSet of three documents over the model's term rows.
	rows := m.termRows()
	docs := [][]int{{0, 2, 5}, {1}, {3, 4}}
	set := &trainSet{v: m.vocab.Len(), docs: docs, termX: rows}
	for range docs {
		set.ctxX = append(set.ctxX, make([]float64, dl))
	}
	for _, d := range docs {
		s := make([]float64, dm)
		for _, τ := range d {
			for i := range s {
				s[i] += rows[τ][i]
			}
		}
		set.sum = append(set.sum, s)
	}
	meanOf := func(terms ...int) []float64 {
		out := make([]float64, dm)
		for _, τ := range terms {
			for i := range out {
				out[i] += rows[τ][i] / float64(len(terms))
			}
		}
		return out
	}
	dst := make([]float64, dl+dm)
	for _, c := range []struct {
		e    example
		want []float64
	}{
		{example{term: 2, doc: 0}, meanOf(0, 5)},
		{example{term: 7, doc: 0, neg: true}, meanOf(0, 5)}, // 7 mod 3 = 1: leaves out d[1] = 2
		{example{term: 9, doc: 0, neg: true}, meanOf(2, 5)}, // 9 mod 3 = 0: leaves out 0
		{example{term: 1, doc: 1}, make([]float64, dm)},     // one term: zeros
		{example{term: 4, doc: 2}, meanOf(3)},               // positive: the other term
		{example{term: 8, doc: 2, neg: true}, meanOf(4)},    // 8 mod 2 = 0: leaves out 3
	} {
		set.ctxTo(dst, c.e)
		for i, w := range c.want {
			if math.Abs(dst[dl+i]-w) > 1e-12 {
				t.Fatalf("%+v: mean[%d] = %v, want %v", c.e, i, dst[dl+i], w)
			}
		}
	}
	// Inference: the mean over the whole document.
	ctx := make([]float64, m.ctxDim())
	m.contextTo(ctx, []int{0, 2, 5})
	for i, w := range meanOf(0, 2, 5) {
		if math.Abs(ctx[dl+i]-w) > 1e-12 {
			t.Fatalf("inference mean[%d] = %v, want %v", i, ctx[dl+i], w)
		}
	}
	r := roundTrip(t, m)
	if r.Info().Context != ContextLDAMean {
		t.Fatalf("after a round trip Info.Context = %q", r.Info().Context)
	}
	q := []int{0, 2, 5}
	a := make([]float64, len(q)*m.vocab.Len())
	b := make([]float64, len(a))
	m.EvalModel(VariantSiamese).Distances(q, q, nil, a)
	r.EvalModel(VariantSiamese).Distances(q, q, nil, b)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("distance %d: %v before the round trip, %v after", i, a[i], b[i])
		}
	}
}

// TestSampleGroups checks the groups of the ranking loss: each group's pairs
// share one anchor term of a training document with at least two terms; the
// first pair's second member is another term of that document (a positive
// example) and the others are negative examples of the same document, all in
// its context.
func TestSampleGroups(t *testing.T) {
	tr := benchTrainer(4, 3, 12, Config{Hidden: []int{6, 3}, BatchSize: 8})
	const g = 5
	ps := make([]pair, 4*g)
	tr.set.sampleGroups(tr.rng, g, ps)
	for i := 0; i < len(ps); i += g {
		anchor := ps[i].a
		d := tr.set.docs[anchor.doc]
		if len(d) < 2 || anchor.neg || !hasTerm(d, int(anchor.term)) {
			t.Fatalf("group %d: anchor %+v of document %v", i/g, anchor, d)
		}
		for k, p := range ps[i : i+g] {
			if p.a != anchor || p.b.doc != anchor.doc {
				t.Fatalf("group %d pair %d: %+v does not share the anchor %+v and its document", i/g, k, p, anchor)
			}
			in := hasTerm(d, int(p.b.term))
			switch {
			case k == 0 && (p.b.neg || !in || p.b.term == anchor.term):
				t.Fatalf("group %d: the first pair's %+v is not another term of %v", i/g, p.b, d)
			case k > 0 && (!p.b.neg || in):
				t.Fatalf("group %d pair %d: %+v is not a term outside %v", i/g, k, p.b, d)
			}
		}
	}
}

// TestSampleSetGroups checks the groups of the ranking loss's set form: per
// group one training document with at least two terms and a held-out term p
// of it; candidate 0 is p, the others terms outside the document; each is
// paired with the same a anchors, terms of the document other than p
// (distinct when it has more than a others); every member's context leaves p
// out (hold), and the context mean is that of δ ∖ {p}.
func TestSampleSetGroups(t *testing.T) {
	tr := benchTrainer(4, 3, 12, Config{Hidden: []int{6, 3}, BatchSize: 8})
	tr.set.addMean(ContextLDAMean)
	const c, a = 3, 2
	ps := make([]pair, 5*c*a)
	tr.set.sampleSetGroups(tr.rng, c, a, ps, nil)
	w := tr.set.inputDim()
	for i := 0; i < len(ps); i += c * a {
		pos := ps[i].b
		d := tr.set.docs[pos.doc]
		if len(d) < 2 || pos.neg || !hasTerm(d, int(pos.term)) || pos.hold != pos.term+1 {
			t.Fatalf("group %d: positive %+v of document %v", i/(c*a), pos, d)
		}
		want := make([]float64, len(tr.set.sum[pos.doc]))
		for _, τ := range d {
			if τ != int(pos.term) {
				floats.AddScaled(want, 1/float64(len(d)-1), tr.set.termX[τ][:len(want)])
			}
		}
		for k := range c {
			for j := range a {
				p := ps[i+k*a+j]
				if p.a != ps[i+j].a || p.b != ps[i+k*a].b {
					t.Fatalf("group %d: row %d,%d pairs %+v, want anchor %d with candidate %d", i/(c*a), k, j, p, j, k)
				}
				if p.a.neg || !hasTerm(d, int(p.a.term)) || p.a.term == pos.term || p.a.doc != pos.doc {
					t.Fatalf("group %d: anchor %+v is not another term of %v", i/(c*a), p.a, d)
				}
				if k > 0 && (!p.b.neg || hasTerm(d, int(p.b.term)) || p.b.doc != pos.doc) {
					t.Fatalf("group %d: candidate %+v is not a term outside %v", i/(c*a), p.b, d)
				}
				for _, e := range [2]example{p.a, p.b} {
					if e.hold != pos.term+1 {
						t.Fatalf("group %d: member %+v does not hold out %d", i/(c*a), e, pos.term)
					}
					row := make([]float64, w)
					tr.set.inputTo(row, e)
					got := row[w-len(want):]
					for x := range want {
						if math.Abs(got[x]-want[x]) > 1e-12 {
							t.Fatalf("group %d: member %+v's context mean %v, want that of δ∖{p} %v", i/(c*a), e, got, want)
						}
					}
				}
			}
		}
		if len(d)-1 >= a && ps[i].a == ps[i+1].a {
			t.Fatalf("group %d: repeated anchor %+v though %v has %d other terms", i/(c*a), ps[i].a, d, len(d)-1)
		}
	}
}

// TestEarlyStopCompletion trains with early stopping on the completion
// protocol's MRR: every validation entry of the log has it, and each stage
// keeps the weights of its best entry.
func TestEarlyStopCompletion(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2, cfg.EarlyStop = 4, 3, EarlyStopCompletion
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	best := map[string]LogEntry{}
	for _, e := range in.Log {
		if !(e.ValidMRR > 0 && e.ValidMRR <= 1) {
			t.Fatalf("log entry %+v: completion MRR out of (0, 1]", e)
		}
		if b, ok := best[e.Stage]; !ok || e.ValidMRR > b.ValidMRR {
			best[e.Stage] = e
		}
	}
	if got, want := in.BestEpoch1, best["stage1"].Epoch; got != want {
		t.Errorf("stage 1 kept epoch %d, the best completion MRR is at epoch %d (%+v)", got, want, in.Log)
	}
	want := best["stage2"].Epoch
	if best["stage1"].ValidMRR > best["stage2"].ValidMRR {
		want = 0 // CE's network, stage 2's evaluation 0
	}
	if got := in.BestEpoch2; got != want {
		t.Errorf("stage 2 kept epoch %d, the best completion MRR is at epoch %d (%+v)", got, want, in.Log)
	}
}

// TestRankingTrains trains with the ranking loss, in its one-anchor and its
// set form: the model records it, a file round trip keeps it, the same seed
// gives the same bytes, and a batch smaller than two groups is refused.
func TestRankingTrains(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 1, 2
	cfg.Stage2Loss, cfg.RankingTemperature, cfg.LearningRate2 = Stage2Ranking, 10, 0.01
	set := cfg
	set.Context, set.RankingAnchors = ContextLDAMean, 3
	for _, cfg := range []Config{cfg, set} {
		var files [2][]byte
		for i := range files {
			m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := m.Info()
			if in.Stage2Loss != Stage2Ranking || in.RankingGroup != 10 || in.RankingTemperature != 10 || in.LearningRate2 != 0.01 || in.RankingAnchors != cfg.RankingAnchors {
				t.Fatalf("Info: stage2 loss %q, group %d, T %v, learning rate %v, anchors %d", in.Stage2Loss, in.RankingGroup, in.RankingTemperature, in.LearningRate2, in.RankingAnchors)
			}
			var buf bytes.Buffer
			if err := m.Write(&buf); err != nil {
				t.Fatal(err)
			}
			files[i] = buf.Bytes()
			if r := roundTrip(t, m); !reflect.DeepEqual(r.Info(), m.Info()) {
				t.Fatalf("after a round trip Info = %+v, want %+v", r.Info(), m.Info())
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("anchors %d: two trainings with the same seed wrote different files", cfg.RankingAnchors)
		}
	}
	bad := cfg
	bad.BatchSize = 15
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "ranking_group") {
		t.Errorf("batch of 15 with groups of 10: %v, want a ranking_group error", err)
	}
}

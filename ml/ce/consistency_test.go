package ce

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

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

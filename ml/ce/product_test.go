package ce

import (
	"context"
	"math"
	"testing"

	"github.com/taglens/taglens/ml/nn"
)

// naiveCE computes CE(x) = z_{H-1} of the network with sizes and params for
// one input x by plain loops and math.Tanh: an independent path to compare
// the embedder's batched, split first layer with.
func naiveCE(sizes []int, params, x []float64) []float64 {
	l := nn.NewLayout(sizes)
	z := x
	for h := 1; h < len(sizes)-1; h++ {
		out := make([]float64, sizes[h])
		for j := range out {
			s := params[l.B[h]+j]
			for i, zi := range z {
				s += params[l.W[h]+j*sizes[h-1]+i] * zi
			}
			out[j] = math.Tanh(s)
		}
		z = out
	}
	return z
}

// TestContextProduct checks ContextLDAMeanProduct: a training input is the
// term row, the context part of ContextLDAMean (leave-one-out mean) and the
// products of the term row's first components with that mean; at inference
// the CE of every vocabulary term, of chosen terms and of an arbitrary term
// input equals the network run on (t(τ), l(δ), m(δ), t(τ)⊙m(δ)) with m the
// whole document's mean; a model file round trip keeps it.
func TestContextProduct(t *testing.T) {
	tc := makeTestCorpus(3, 300)
	cfg := smallConfig(5)
	cfg.MaxEpochs1, cfg.MaxEpochs2 = 1, 1
	cfg.Context = ContextLDAMeanProduct
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt, dl, P := m.terms.Dim(), m.ctxProj.Out, meanDim(m.terms.Dim())
	if m.Info().Context != ContextLDAMeanProduct || m.prodDim() != P || m.sizes[0] != dt+dl+2*P {
		t.Fatalf("context %q, prodDim %d, sizes %v: want %d+%d+%d+%d inputs", m.Info().Context, m.prodDim(), m.sizes, dt, dl, P, P)
	}

	// Training inputs: the products use the leave-one-out mean.
	rows := m.termRows()
	docs := [][]int{{0, 2, 5}, {3, 4}}
	set := &trainSet{v: m.vocab.Len(), docs: docs, termX: rows, prod: P}
	for _, d := range docs {
		set.ctxX = append(set.ctxX, make([]float64, dl))
		s := make([]float64, P)
		for _, τ := range d {
			for i := range s {
				s[i] += rows[τ][i]
			}
		}
		set.sum = append(set.sum, s)
	}
	row := make([]float64, set.inputDim())
	for _, c := range []struct {
		e    example
		mean []int // the terms the mean is over
	}{
		{example{term: 2, doc: 0}, []int{0, 5}},
		{example{term: 7, doc: 0, neg: true}, []int{0, 5}}, // 7 mod 3 = 1: leaves out 2
		{example{term: 4, doc: 1}, []int{3}},
	} {
		set.inputTo(row, c.e)
		for i := 0; i < P; i++ {
			var mean float64
			for _, τ := range c.mean {
				mean += rows[τ][i] / float64(len(c.mean))
			}
			want := rows[c.e.term][i] * mean
			if got := row[dt+dl+P+i]; math.Abs(got-want) > 1e-12 {
				t.Fatalf("%+v: product[%d] = %v, want %v", c.e, i, got, want)
			}
		}
	}

	// Inference against the plain forward pass.
	doc := []int{0, 2, 5}
	ctx := make([]float64, m.ctxDim())
	m.contextTo(ctx, doc)
	input := func(tx []float64) []float64 {
		x := append(append([]float64{}, tx...), ctx...)
		for i := 0; i < P; i++ {
			x = append(x, tx[i]*ctx[dl+i])
		}
		return x
	}
	for _, v := range Variants {
		e, err := m.net(v)
		if err != nil {
			t.Fatal(err)
		}
		d := e.ceDim()
		all := make([]float64, m.vocab.Len()*d)
		e.embedVocab(all, ctx)
		some := make([]float64, 2*d)
		e.embedTerms(some, []int{5, 1}, ctx)
		one := make([]float64, d)
		e.embedInput(one, rows[3], ctx)
		p, _ := m.Params(v)
		for τ := range rows {
			want := naiveCE(m.sizes, p, input(rows[τ]))
			for k, w := range want {
				if math.Abs(all[τ*d+k]-w) > 1e-9 {
					t.Fatalf("%s: CE(%d)[%d] = %v, plain forward %v", v, τ, k, all[τ*d+k], w)
				}
			}
		}
		for k := 0; k < d; k++ {
			if some[k] != all[5*d+k] || some[d+k] != all[1*d+k] || math.Abs(one[k]-all[3*d+k]) > 1e-12 {
				t.Fatalf("%s: embedTerms / embedInput disagree with embedVocab at %d", v, k)
			}
		}
	}

	r := roundTrip(t, m)
	if r.Info().Context != ContextLDAMeanProduct {
		t.Fatalf("after a round trip Info.Context = %q", r.Info().Context)
	}
	a := make([]float64, len(doc)*m.vocab.Len())
	b := make([]float64, len(a))
	m.EvalModel(VariantCE).Distances(doc, doc, nil, a)
	r.EvalModel(VariantCE).Distances(doc, doc, nil, b)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("distance %d after round trip %v, want %v", i, b[i], a[i])
		}
	}
}

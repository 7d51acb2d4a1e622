package ce

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

func TestInvWidths(t *testing.T) {
	inv := invWidths([]int{0, 1, 3, 99}, 0.5)
	want := []float64{1, 1 / math.Sqrt(2), 0.5, 0.1}
	for j := range want {
		if math.Abs(inv[j]-want[j]) > 1e-15 {
			t.Errorf("1/σ[%d] = %v, want %v", j, inv[j], want[j])
		}
	}
	if got := invWidths([]int{3}, 0); got != nil {
		t.Errorf("β = 0: %v, want nil (the paper's distances)", got)
	}
	d := []float64{2, 2, 2, 2, 4, 4, 4, 4}
	toWidths(d, inv)
	if !slices.Equal(d, []float64{2, 2 / math.Sqrt(2), 1, 0.2, 4, 4 / math.Sqrt(2), 2, 0.4}) {
		t.Errorf("toWidths: %v", d)
	}
	defer func() {
		if recover() == nil {
			t.Error("toWidths accepted 5 distances for rows of 4 terms")
		}
	}()
	toWidths(make([]float64, 5), inv)
}

// withWidth returns m with β of both networks set to beta.
func withWidth(m *Model, beta float64) *Model {
	c := &Model{vocab: m.vocab, terms: m.terms, ctxProj: m.ctxProj, lda: m.lda, sizes: m.sizes, params: m.params, info: m.info}
	c.info.WidthCE, c.info.WidthSiamese = beta, beta
	c.init()
	return c
}

// TestWidthDistances: with widths every ranking distance is the centres'
// distance times 1/σ of the candidate, in Distances, the screened distances,
// Prime's lists (each query still first in its own) and the concept-based OOV
// distances; the centre model keeps the centres' distances.
func TestWidthDistances(t *testing.T) {
	_, trained := trainSmall(t)
	m := withWidth(trained, 0) // the paper's distances, whatever the default
	const beta = 0.4
	b := withWidth(m, beta)
	inv := invWidths(m.terms.DF, beta)
	v := m.vocab.Len()
	ctx, queries := []int{1, 3, 6}, []int{1, 3, 6}
	centre := make([]float64, len(queries)*v)
	wide := make([]float64, len(queries)*v)
	plain := make([]float64, len(queries)*v)
	for _, variant := range []Variant{VariantCE, VariantSiamese} {
		b.CentreModel(variant).Distances(ctx, queries, nil, centre)
		b.EvalModel(variant).Distances(ctx, queries, nil, wide)
		m.EvalModel(variant).Distances(ctx, queries, nil, plain)
		if !slices.Equal(centre, plain) {
			t.Fatalf("%s: the centre model's distances differ from the model without widths", variant)
		}
		changed := false
		for i := range queries {
			for j := 0; j < v; j++ {
				want := centre[i*v+j] * inv[j]
				if wide[i*v+j] != want {
					t.Fatalf("%s: query %d, term %d: %v, want %v·%v", variant, i, j, wide[i*v+j], centre[i*v+j], inv[j])
				}
				changed = changed || want != centre[i*v+j]
			}
		}
		if !changed {
			t.Fatalf("%s: no distance changed", variant)
		}
		sm, ok := b.EvalModel(variant).(eval.ScreeningModel)
		if !ok {
			t.Fatalf("%s: the eval model does not screen", variant)
		}
		scr := make([]float64, len(wide))
		eps, refine, ok := sm.ScreenDistances(ctx, queries, ctx, nil, scr)
		switch {
		case !ok && useScreen:
			t.Fatalf("%s: screening declined with the AVX-512 kernels (bound %v)", variant, eps)
		case !ok:
			t.Logf("%s: no AVX-512 kernels, the screened distances are not tested", variant)
		default:
			refine([]int{0, 2})
			for i := range queries {
				for j := 0; j < v; j++ {
					exact := slices.Contains(ctx, j) || j == 0 || j == 2
					if d := math.Abs(scr[i*v+j] - wide[i*v+j]); (exact && d != 0) || d > eps {
						t.Fatalf("%s: screened query %d, term %d: %v, want %v (eps %v)", variant, i, j, scr[i*v+j], wide[i*v+j], eps)
					}
				}
			}
		}
		tags := []string{m.vocab.Term(1), m.vocab.Term(3), m.vocab.Term(6)}
		res, err := b.Prime(variant, tags, v)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Extended {
			j, _ := m.vocab.ID(p.Term)
			want := math.Inf(1)
			for i, q := range queries {
				if q != j {
					want = min(want, wide[i*v+j])
				}
			}
			if p.Distance != want {
				t.Fatalf("%s: Prime's Eq. 9 distance of %q %v, want %v", variant, p.Term, p.Distance, want)
			}
		}
		for _, tag := range tags {
			if got := res.PerTerm[tag][0].Term; got != tag {
				t.Errorf("%s: Eq. 8's list of %q begins with %q", variant, tag, got)
			}
		}
		om, err := b.OOVEvalModel(variant.WithOOV(OOVAvg), nil)
		if err != nil {
			t.Fatal(err)
		}
		om0, _ := m.OOVEvalModel(variant.WithOOV(OOVAvg), nil)
		got, base := make([]float64, v), make([]float64, v)
		if err := om.OOVDistances("x", ctx, nil, got); err != nil {
			t.Fatal(err)
		}
		if err := om0.OOVDistances("x", ctx, nil, base); err != nil {
			t.Fatal(err)
		}
		for j := range got {
			if got[j] != base[j]*inv[j] {
				t.Fatalf("%s: concept-based OOV distance to term %d: %v, want %v", variant, j, got[j], base[j]*inv[j])
			}
		}
	}
}

// TestTrainWidthFit: a training with Width fit keeps the networks of the
// training without it, records the validation MAP that eval gives the model
// on the validation documents (bit for bit), never below the MAP without
// widths, and writes the same bytes twice; the widths come back with the file.
func TestTrainWidthFit(t *testing.T) {
	tc, plain := trainSmall(t)
	cfg := smallConfig(7)
	cfg.Width = WidthFit
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []Variant{VariantCE, VariantSiamese} {
		if !slices.Equal(m.params[v], plain.params[v]) {
			t.Fatalf("%s: the widths changed the trained network", v)
		}
	}
	info := m.Info()
	if info.Width != WidthFit || !slices.Contains(WidthGrid, info.WidthCE) || !slices.Contains(WidthGrid, info.WidthSiamese) {
		t.Fatalf("Info: width %q, β %v and %v", info.Width, info.WidthCE, info.WidthSiamese)
	}
	if info.WidthCE == 0 && info.WidthSiamese == 0 {
		t.Fatal("β = 0 for both networks: the test exercises nothing")
	}
	valid := eval.Encode(m.vocab, tc.c.Select(tc.split.Valid))
	for _, c := range []struct {
		v       Variant
		got, at float64
	}{{VariantCE, info.ValidMAPWidthCE, info.ValidMAPCE}, {VariantSiamese, info.ValidMAPWidthSiamese, info.ValidMAPSiamese}} {
		r, err := eval.Evaluate(context.Background(), m.EvalModel(c.v), eval.Extended, valid, &eval.Options{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if r.MAP != c.got {
			t.Errorf("%s: fitted validation MAP %v, eval gives %v", c.v, c.got, r.MAP)
		}
		if c.got < c.at {
			t.Errorf("%s: MAP with the fitted widths %v below the MAP without %v (β = 0 is in the grid)", c.v, c.got, c.at)
		}
	}
	again, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var files [2]bytes.Buffer
	for i, x := range []*Model{m, again} {
		if err := x.Write(&files[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0].Bytes(), files[1].Bytes()) {
		t.Error("two trainings with fitted widths wrote different files")
	}
	read, err := Read(bytes.NewReader(files[0].Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("β: CE %v, Siamese-CE %v", info.WidthCE, info.WidthSiamese)
	for _, v := range []Variant{VariantCE, VariantSiamese} {
		if !slices.Equal(read.nets[v].invWidth, m.nets[v].invWidth) {
			t.Errorf("%s: widths read back differ", v)
		}
	}
}

package ce

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

func TestRadiusShape(t *testing.T) {
	g := radiusShape([]int{0, 1, 7, 3})
	want := []float64{0, math.Log(2) / math.Log(8), 1, math.Log(4) / math.Log(8)}
	for j := range want {
		if math.Abs(g[j]-want[j]) > 1e-15 {
			t.Errorf("shape[%d] = %v, want %v", j, g[j], want[j])
		}
	}
	if got := radii(g, 0); got != nil {
		t.Errorf("radii with R = 0: %v, want nil (the paper's distances)", got)
	}
	if got := radiusShape([]int{0, 0}); got[0] != 0 || got[1] != 0 {
		t.Errorf("no document: %v, want zeros", got)
	}
}

// withRadius returns m with the radius R of both networks set to r.
func withRadius(m *Model, r float64) *Model {
	c := &Model{vocab: m.vocab, terms: m.terms, ctxProj: m.ctxProj, lda: m.lda, sizes: m.sizes, params: m.params, info: m.info}
	c.info.RadiusCE, c.info.RadiusSiamese = r, r
	c.init()
	return c
}

// TestBallDistances: with radii every ranking distance is the centres'
// distance less the candidate's radius, in Distances, the screened
// distances, Prime's lists and the concept-based OOV distances; the centre
// model and the maps keep the centres' distances.
func TestBallDistances(t *testing.T) {
	_, m := trainSmall(t)
	const r = 0.3
	b := withRadius(m, r)
	shape := radiusShape(m.terms.DF)
	v := m.vocab.Len()
	ctx, queries := []int{1, 3, 6}, []int{1, 3, 6}
	centre := make([]float64, len(queries)*v)
	ball := make([]float64, len(queries)*v)
	plain := make([]float64, len(queries)*v)
	for _, variant := range []Variant{VariantCE, VariantSiamese} {
		b.CentreModel(variant).Distances(ctx, queries, nil, centre)
		b.EvalModel(variant).Distances(ctx, queries, nil, ball)
		m.EvalModel(variant).Distances(ctx, queries, nil, plain)
		if !slices.Equal(centre, plain) {
			t.Fatalf("%s: the centre model's distances differ from the model without radii", variant)
		}
		for i := range queries {
			for j := 0; j < v; j++ {
				if want := centre[i*v+j] - r*shape[j]; ball[i*v+j] != want {
					t.Fatalf("%s: query %d, term %d: %v, want %v − %v", variant, i, j, ball[i*v+j], centre[i*v+j], r*shape[j])
				}
			}
		}
		if sm, ok := b.EvalModel(variant).(eval.ScreeningModel); ok {
			scr := make([]float64, len(ball))
			if eps, refine, ok := sm.ScreenDistances(ctx, queries, ctx, nil, scr); ok {
				refine([]int{0, 2})
				for i := range queries {
					for j := 0; j < v; j++ {
						exact := slices.Contains(ctx, j) || j == 0 || j == 2
						if d := math.Abs(scr[i*v+j] - ball[i*v+j]); (exact && d != 0) || d > eps {
							t.Fatalf("%s: screened query %d, term %d: %v, want %v (eps %v)", variant, i, j, scr[i*v+j], ball[i*v+j], eps)
						}
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
					want = min(want, ball[i*v+j])
				}
			}
			if p.Distance != want {
				t.Fatalf("%s: Prime's Eq. 9 distance of %q %v, want %v", variant, p.Term, p.Distance, want)
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
			if got[j] != base[j]-r*shape[j] {
				t.Fatalf("%s: concept-based OOV distance to term %d: %v, want %v", variant, j, got[j], base[j]-r*shape[j])
			}
		}
	}
}

// TestTrainRadiusFit: a training with Radius fit keeps the networks of the
// training without it, fits R from the grid, records the validation MAP that
// eval gives the model on the validation documents (bit for bit), never
// below the MAP without radii, and writes the same bytes twice.
func TestTrainRadiusFit(t *testing.T) {
	tc, plain := trainSmall(t)
	cfg := smallConfig(7)
	cfg.Radius = RadiusFit
	m, err := Train(context.Background(), tc.c, tc.split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []Variant{VariantCE, VariantSiamese} {
		if !slices.Equal(m.params[v], plain.params[v]) {
			t.Fatalf("%s: the radius changed the trained network", v)
		}
	}
	info := m.Info()
	if info.Radius != RadiusFit || info.RadiusSiamese < 0 || info.RadiusCE < 0 {
		t.Fatalf("Info: radius %q, R %v and %v", info.Radius, info.RadiusCE, info.RadiusSiamese)
	}
	valid := eval.Encode(m.vocab, tc.c.Select(tc.split.Valid))
	for _, c := range []struct {
		v       Variant
		got, at float64
	}{{VariantCE, info.ValidMAPRadiusCE, info.ValidMAPCE}, {VariantSiamese, info.ValidMAPRadiusSiamese, info.ValidMAPSiamese}} {
		r, err := eval.Evaluate(context.Background(), m.EvalModel(c.v), eval.Extended, valid, &eval.Options{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if r.MAP != c.got {
			t.Errorf("%s: fitted validation MAP %v, eval gives %v", c.v, c.got, r.MAP)
		}
		if c.got < c.at {
			t.Errorf("%s: MAP with the fitted radius %v below the MAP without %v (α = 0 is in the grid)", c.v, c.got, c.at)
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
		t.Error("two trainings with fitted radii wrote different files")
	}
	// The radii come back with the file.
	read, err := Read(bytes.NewReader(files[0].Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("R: CE %v, Siamese-CE %v", info.RadiusCE, info.RadiusSiamese)
	for _, v := range []Variant{VariantCE, VariantSiamese} {
		if !slices.Equal(read.nets[v].radius, m.nets[v].radius) {
			t.Errorf("%s: radii read back differ", v)
		}
	}
}

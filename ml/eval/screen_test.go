package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// screenModel wraps a model as a ScreeningModel whose screened values are the
// exact ones moved by up to eps (a fixed pattern of the position), except the
// named terms' and the queries' columns; refine restores the exact values.
type screenModel struct {
	Model
	eps     float64
	refine  bool // false: refine does nothing (the figures then change)
	settled atomic.Int64
	calls   atomic.Int64
}

func (s *screenModel) ScreenDistances(ctx, queries, exact []int, rng *rand.Rand, dst []float64) (float64, func([]int), bool) {
	s.Distances(ctx, queries, rng, dst)
	want := slices.Clone(dst)
	v := s.VocabSize()
	for i := range dst {
		j := i % v
		if slices.Contains(exact, j) || slices.Contains(queries, j) {
			continue
		}
		h := splitmix64(uint64(i)*7919 + uint64(len(ctx)))
		dst[i] += s.eps * 0.999 * (2*float64(h>>11)/(1<<53) - 1)
	}
	s.calls.Add(1)
	return s.eps, func(terms []int) {
		s.settled.Add(int64(len(terms)))
		if s.refine {
			restoreCols(dst, want, len(queries), v, terms)
		}
	}, true
}

// restoreCols copies the columns terms of the nq rows of length v from want
// into dst: the exact values a test model's refine gives back.
func restoreCols(dst, want []float64, nq, v int, terms []int) {
	for q := range nq {
		for _, t := range terms {
			dst[q*v+t] = want[q*v+t]
		}
	}
}

// nanModel gives NaN distances to two terms of its vocabulary.
type nanModel struct{ Model }

func (n nanModel) Distances(ctx, queries []int, rng *rand.Rand, dst []float64) {
	n.Model.Distances(ctx, queries, rng, dst)
	v := n.VocabSize()
	for q := range queries {
		dst[q*v+7], dst[q*v+8] = math.NaN(), math.NaN()
	}
}

// TestEvaluateScreening checks that a screening model's figures are those of
// its exact distances under both protocols, together and apart, with an
// incomplete context too, while only a small part of the terms is settled
// exactly; and that without settling, the same screened values change the
// figures (so the comparison can fail).
func TestEvaluateScreening(t *testing.T) {
	const v = 400
	docs := mtgLikeDocs(300, v, 6)
	for _, tc := range []struct {
		ps   []Protocol
		opt  Options
		base Model
	}{
		{[]Protocol{Extended}, Options{Seed: 1}, nil},
		{[]Protocol{Priming}, Options{Seed: 1}, nil},
		{[]Protocol{Extended, Priming}, Options{Seed: 2, Workers: 3}, nil},
		{[]Protocol{Extended, Priming}, Options{Seed: 3, Missing: Band{Lo: 10, Hi: 30}}, nil},
		{[]Protocol{Extended, Priming}, Options{Seed: 4}, nanModel{newEmbedModel(v, 8, 5)}},
	} {
		base := tc.base
		if base == nil {
			base = newEmbedModel(v, 8, 5)
		}
		want, err := EvaluateAll(context.Background(), base, tc.ps, docs, &tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		sm := &screenModel{Model: base, eps: 0.01, refine: true}
		got, err := EvaluateAll(context.Background(), sm, tc.ps, docs, &tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if *got[k] != *want[k] {
				t.Errorf("%v %+v: screened %+v, exact %+v", tc.ps, tc.opt.Missing, *got[k], *want[k])
			}
		}
		frac := float64(sm.settled.Load()) / float64(sm.calls.Load()*v)
		t.Logf("%v, missing %+v: %.1f%% of the terms settled exactly", tc.ps, tc.opt.Missing, 100*frac)
		if sm.calls.Load() == 0 || frac > 0.5 {
			t.Errorf("%v: %d screened documents, %.2f of the terms settled", tc.ps, sm.calls.Load(), frac)
		}
		opt := tc.opt
		opt.NoScreening = true
		sm.calls.Store(0)
		if _, err := EvaluateAll(context.Background(), sm, tc.ps, docs, &opt); err != nil {
			t.Fatal(err)
		}
		if n := sm.calls.Load(); n != 0 {
			t.Errorf("NoScreening: %d screened documents", n)
		}
		loose := &screenModel{Model: base, eps: 0.01}
		bad, err := EvaluateAll(context.Background(), loose, tc.ps, docs, &tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if *bad[0] == *want[0] {
			t.Errorf("%v: the screened values alone gave the exact figures: the test cannot tell settling from none", tc.ps)
		}
	}
}

// nanScreen is a screening model whose screened values are exact except
// NaN in every other column not named (in every row, or in the first row
// only); refine restores the exact values. A NaN never wins Eq. 9's minimum,
// so the screened minimum of such a term can be far above the exact one.
type nanScreen struct {
	Model
	allRows bool
}

func (s *nanScreen) ScreenDistances(ctx, queries, exact []int, rng *rand.Rand, dst []float64) (float64, func([]int), bool) {
	s.Distances(ctx, queries, rng, dst)
	want := slices.Clone(dst)
	v := s.VocabSize()
	for i := range dst {
		j := i % v
		if j%2 == 0 && !slices.Contains(exact, j) && !slices.Contains(queries, j) && (s.allRows || i < v) {
			dst[i] = math.NaN()
		}
	}
	return 1e-9, func(terms []int) { restoreCols(dst, want, len(queries), v, terms) }, true
}

// TestEvaluateScreeningNaN checks that a NaN among the screened values is
// settled exactly under both protocols, whether it fills a term's every row
// (its screened minimum +Inf) or one row (its screened minimum another
// row's).
func TestEvaluateScreeningNaN(t *testing.T) {
	const v = 400
	docs := mtgLikeDocs(300, v, 6)
	base := newEmbedModel(v, 8, 5)
	for _, all := range []bool{true, false} {
		for _, p := range []Protocol{Priming, Extended} {
			want, err := Evaluate(context.Background(), base, p, docs, &Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Evaluate(context.Background(), &nanScreen{Model: base, allRows: all}, p, docs, &Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if *got != *want {
				t.Errorf("NaN in every row %v, %v: MAP %.6f screened, %.6f exact", all, p, got.MAP, want.MAP)
			}
		}
	}
}

// TestKernelMinRow compares the kernel of Eq. 9's minimum with the Go loop, bit for
// bit, on rows with NaNs, infinities, signed zeros and ties, of every length
// from 1 to 40 and every skipped position.
func TestKernelMinRow(t *testing.T) {
	if !useCountCmp {
		t.Skip("no AVX2 kernel")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, 1, 2.5, -3}
	pick := func() float64 {
		if rng.IntN(2) == 0 {
			return vals[rng.IntN(len(vals))]
		}
		return rng.NormFloat64()
	}
	for n := 1; n <= 40; n++ {
		for skip := 0; skip < n; skip++ {
			mn, row := make([]float64, n), make([]float64, n)
			for j := range mn {
				mn[j], row[j] = pick(), pick()
			}
			want := slices.Clone(mn)
			for j, d := range row {
				if d < want[j] && j != skip {
					want[j] = d
				}
			}
			MinRow(mn, row, skip)
			for j := range mn {
				if math.Float64bits(mn[j]) != math.Float64bits(want[j]) {
					t.Fatalf("n %d, skip %d: mn[%d] = %v, want %v", n, skip, j, mn[j], want[j])
				}
			}
		}
	}
}

package ce

import (
	"math"
	"slices"
	"sync"

	"github.com/taglens/taglens/ml/eval"
)

// Term radii (taglens's extension, design.md, decision 9): a concept in
// context is a ball, its centre CE(τ|δ) and its radius ρ_τ, and a term is
// ranked by the distance from the query's point to the candidate's ball,
//
//	e_ρ(q, τ_j | δ) = ‖CE(q|δ) − CE(τ_j|δ)‖ − ρ_j,
//
// in Eq. 8 and Eq. 9 alike (negative inside the ball). The radius grows with
// how many training documents hold the term,
//
//	ρ_j = R · log(1 + df_j) / log(1 + max_i df_i),
//
// so a broad tag held by many documents reaches further than a rare one: the
// per-candidate prior that a Euclidean distance has no room for, and that
// EASE^R's score carries in its normalization (quality notes, D53). R is the
// radius of the most frequent term, fitted per network on the validation
// documents: R = α·s, s the median of the Eq. 9 distances of the validation
// documents, α the value of RadiusGrid with the highest validation extended
// MAP (the smallest of equals). With R = 0 the distances are the paper's.
// The ball only shifts each candidate's distance; the maps draw the centres
// (Model.CentreModel).

// Radius settings (Config.Radius).
const (
	RadiusFit  = "fit"  // R fitted on the validation documents
	RadiusNone = "none" // R = 0: the paper's point distances
)

// DefaultRadius is the default Config.Radius.
const DefaultRadius = RadiusNone

// Radii are the accepted values of Config.Radius.
var Radii = []string{RadiusFit, RadiusNone}

// RadiusGrid is the grid of α, the radius of the most frequent term in units
// of the median validation distance, that a fit chooses from.
var RadiusGrid = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2}

// radiusShape returns log(1 + df_j) / log(1 + max df) for every term: the
// radius of term j for R = 1, in [0, 1].
func radiusShape(df []int) []float64 {
	mx := 0
	for _, x := range df {
		mx = max(mx, x)
	}
	g := make([]float64, len(df))
	if mx == 0 {
		return g
	}
	den := math.Log1p(float64(mx))
	for j, x := range df {
		g[j] = math.Log1p(float64(x)) / den
	}
	return g
}

// radii returns R·shape, or nil when R is zero (the paper's distances).
func radii(shape []float64, r float64) []float64 {
	if r == 0 {
		return nil
	}
	out := make([]float64, len(shape))
	for j, g := range shape {
		out[j] = r * g
	}
	return out
}

// toBalls subtracts the radius of every term j from dst[i·v+j] (the
// distances of len(dst)/v queries to the v terms); nothing without radii.
func toBalls(dst, radius []float64) {
	if radius == nil {
		return
	}
	v := len(radius)
	for i := 0; i+v <= len(dst); i += v {
		row := dst[i : i+v]
		for j, r := range radius {
			row[j] -= r
		}
	}
}

// radiusFit is the outcome of fitRadius.
type radiusFit struct {
	r     float64 // R = α·s
	alpha float64
	scale float64 // s
	mapR  float64 // validation extended MAP with R
}

// fitRadius fits R for the network params on the validation documents: each
// document's Eq. 9 list of centre distances is computed once, then scored
// with the radii of every α of RadiusGrid, exactly as eval's extended
// protocol scores the model with those radii (min_t̂ (d − ρ_j) = min_t̂ d − ρ_j).
// Documents are scored in parallel and reduced in order: the same R on any
// machine.
func (t *trainer) fitRadius(params []float64) (radiusFit, error) {
	em := t.validModel(params)
	v := em.VocabSize()
	shape := radiusShape(t.m.terms.DF)
	if t.validTerms != nil {
		sub := make([]float64, len(t.validTerms))
		for i, τ := range t.validTerms {
			sub[i] = shape[τ]
		}
		shape = sub
	}
	var docs [][]int
	for _, d := range t.valid {
		if len(d) >= 2 {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return radiusFit{}, nil
	}
	mins := make([][]float64, len(docs))
	var wg sync.WaitGroup
	for w := range numWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rows []float64
			for i := w; i < len(docs); i += numWorkers {
				if t.ctx.Err() != nil {
					return
				}
				d := docs[i]
				rows = slices.Grow(rows[:0], len(d)*v)[:len(d)*v]
				em.Distances(d, d, nil, rows)
				mn := make([]float64, v)
				for j := range mn {
					mn[j] = math.Inf(1)
				}
				for q, τ := range d {
					for j, x := range rows[q*v : (q+1)*v] {
						if j != τ && x < mn[j] { // NaN never wins, as in eval
							mn[j] = x
						}
					}
				}
				mins[i] = mn
			}
		}()
	}
	wg.Wait()
	if err := t.ctx.Err(); err != nil {
		return radiusFit{}, err
	}
	scale := medianFinite(mins)
	best := radiusFit{mapR: math.Inf(-1), scale: scale}
	sc := make([]float64, v)
	var s eval.Scores
	var ranks []int
	for _, a := range RadiusGrid {
		r := a * scale
		sum := 0.0
		for i, d := range docs {
			for j, x := range mins[i] {
				sc[j] = x - r*shape[j]
			}
			ranks = slices.Grow(ranks[:0], len(d))[:len(d)]
			eval.ScoreList(sc, d, ranks, &s)
			sum += s.AP
		}
		if m := sum / float64(len(docs)); m > best.mapR {
			best.mapR, best.alpha, best.r = m, a, r
		}
	}
	return best, nil
}

// medianFinite returns the median of the finite values of the rows.
func medianFinite(rows [][]float64) float64 {
	var all []float64
	for _, r := range rows {
		for _, x := range r {
			if !math.IsInf(x, 0) && !math.IsNaN(x) {
				all = append(all, x)
			}
		}
	}
	if len(all) == 0 {
		return 0
	}
	slices.Sort(all)
	return all[len(all)/2]
}

// fitRadii fits R of both networks when Config.Radius asks for it and records
// the fits in Info.
func (t *trainer) fitRadii() error {
	if t.cfg.Radius != RadiusFit {
		return nil
	}
	info := &t.m.info
	info.Radius = RadiusFit
	for _, v := range []Variant{VariantCE, VariantSiamese} {
		f, err := t.fitRadius(t.m.params[v])
		if err != nil {
			return err
		}
		if v == VariantCE {
			info.RadiusCE, info.ValidMAPRadiusCE = f.r, f.mapR
		} else {
			info.RadiusSiamese, info.ValidMAPRadiusSiamese = f.r, f.mapR
		}
	}
	return nil
}

// CentreModel is EvalModel without the term radii: the distances between the
// centres CE(τ|δ), which the maps draw.
func (m *Model) CentreModel(variant Variant) eval.Model {
	x := m.EvalModel(variant).(*evalModel)
	x.centres = true
	return x
}

// radiusOf returns R of the network variant.
func (in *Info) radiusOf(v Variant) float64 {
	if v == VariantSiamese {
		return in.RadiusSiamese
	}
	return in.RadiusCE
}

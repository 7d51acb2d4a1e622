package ce

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/taglens/taglens/ml/eval"
)

// Term widths (taglens's extension, design.md, decision 9): a concept in
// context is a region around its centre CE(τ|δ) whose width grows with how
// many training documents hold the term,
//
//	σ_j = (1 + df_j)^β,
//
// and a term is ranked by the distance from the query to it in units of its
// width,
//
//	e_σ(q, τ_j | δ) = ‖CE(q|δ) − CE(τ_j|δ)‖ / σ_j,
//
// in Eq. 8 and Eq. 9 alike (the standardized distance to an isotropic
// concept). A broad tag reaches further than a rare one: the per-candidate
// prior that a Euclidean distance between points has no room for, and that
// EASE^R's score carries in its normalization (quality notes, D53). The query
// stays at distance 0 from itself, so Eq. 8's lists still begin with it. β
// is fitted per network on the validation documents after stage 2: the value
// of WidthGrid with the highest validation extended MAP (the smallest of
// equals). With β = 0 the distances are the paper's. The maps draw and
// measure the centres (Model.CentreModel).

// Width settings (Config.Width).
const (
	WidthFit  = "fit"  // β fitted on the validation documents
	WidthNone = "none" // β = 0: the paper's distances
)

// DefaultWidth is the default Config.Width.
const DefaultWidth = WidthFit

// Widths are the accepted values of Config.Width.
var Widths = []string{WidthFit, WidthNone}

// WidthGrid is the grid of β that a fit chooses from.
var WidthGrid = []float64{0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.25, 1.5, 2}

// invWidths returns 1/σ_j = (1 + df_j)^−β of every term, or nil when β is
// zero (the paper's distances). Every entry is in (0, 1].
func invWidths(df []int, beta float64) []float64 {
	if beta == 0 {
		return nil
	}
	inv := make([]float64, len(df))
	for j, x := range df {
		inv[j] = math.Pow(1+float64(x), -beta)
	}
	return inv
}

// toWidths divides the distance dst[i·v+j] of each of len(dst)/v queries by
// the width of term j (v = len(inv)); nothing without widths. It panics when
// dst is not whole rows of v distances.
func toWidths(dst, inv []float64) {
	if inv == nil {
		return
	}
	v := len(inv)
	if v == 0 || len(dst)%v != 0 {
		panic(fmt.Sprintf("ce: toWidths: %d distances are not rows of %d terms", len(dst), v))
	}
	for i := 0; i+v <= len(dst); i += v {
		row := dst[i : i+v]
		for j, w := range inv {
			row[j] *= w
		}
	}
}

// widthFit is the outcome of fitWidth.
type widthFit struct {
	beta float64
	mapW float64 // validation extended MAP with β
}

// fitWidth fits β for the network params on the validation documents (above
// Config.ValidTerms terms, ranked among the validation sample of terms, as
// early stopping ranks: the recorded MAP is then the sample's): each
// document's Eq. 9 list of centre distances is computed once, then scored
// with the widths of every β of WidthGrid, exactly as eval's extended
// protocol scores the model with them (min_t̂ d·w_j = (min_t̂ d)·w_j, w_j > 0).
// Documents are computed in parallel and scored in order: the same β on any
// machine.
func (t *trainer) fitWidth(params []float64) (widthFit, error) {
	em := t.validModel(params)
	v := em.VocabSize()
	df := t.m.terms.DF
	if t.validTerms != nil {
		sub := make([]int, len(t.validTerms))
		for i, τ := range t.validTerms {
			sub[i] = df[τ]
		}
		df = sub
	}
	var docs [][]int
	for _, d := range t.valid {
		if len(d) >= 2 {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return widthFit{}, nil
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
					eval.MinRow(mn, rows[q*v:(q+1)*v], τ)
				}
				mins[i] = mn
			}
		}()
	}
	wg.Wait()
	if err := t.ctx.Err(); err != nil {
		return widthFit{}, err
	}
	best := widthFit{mapW: math.Inf(-1)}
	sc := make([]float64, v)
	var s eval.Scores
	var ranks []int
	for _, beta := range WidthGrid {
		inv := invWidths(df, beta)
		sum := 0.0
		for i, d := range docs {
			copy(sc, mins[i])
			toWidths(sc, inv)
			ranks = slices.Grow(ranks[:0], len(d))[:len(d)]
			eval.ScoreList(sc, d, ranks, &s)
			sum += s.AP
		}
		if m := sum / float64(len(docs)); m > best.mapW {
			best.mapW, best.beta = m, beta
		}
	}
	return best, nil
}

// fitWidths fits β of both networks when Config.Width asks for it and
// records the fits in Info.
func (t *trainer) fitWidths() error {
	if t.cfg.Width != WidthFit {
		return nil
	}
	info := &t.m.info
	info.Width = WidthFit
	for _, v := range []Variant{VariantCE, VariantSiamese} {
		f, err := t.fitWidth(t.m.params[v])
		if err != nil {
			return err
		}
		if v == VariantCE {
			info.WidthCE, info.ValidMAPWidthCE = f.beta, f.mapW
		} else {
			info.WidthSiamese, info.ValidMAPWidthSiamese = f.beta, f.mapW
		}
	}
	return nil
}

// widthNote says what the width fit chose and what it did to the validation
// extended MAP of each network, for a training's log; empty without a fit.
func (in *Info) widthNote() string {
	if in.Width != WidthFit {
		return ""
	}
	return fmt.Sprintf("term widths β: CE %g (validation extended MAP %.4f → %.4f), Siamese-CE %g (%.4f → %.4f)",
		in.WidthCE, in.ValidMAPCE, in.ValidMAPWidthCE, in.WidthSiamese, in.ValidMAPSiamese, in.ValidMAPWidthSiamese)
}

// ValidationNote is the last line of a training's log: the validation
// figures of both networks, whether stage 1 started again (FlatStage1),
// whether Siamese-CE is CE's network, and the width fit's.
func (in *Info) ValidationNote() string {
	s := fmt.Sprintf("validation P@2: CE %.4f, Siamese-CE %.4f, random %.4f; extended MAP: CE %.4f, Siamese-CE %.4f",
		in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random, in.ValidMAPCE, in.ValidMAPSiamese)
	if in.Stage1Restart != "" {
		s += "; stage 1 started again from random initial weights, flat at Eq. 5's all-zero output after stage 0"
	}
	if strings.HasPrefix(in.StopReason1, flatPrefix) {
		s += "; stage 1 stopped after its second epoch, flat at Eq. 5's all-zero output after stage 0"
	}
	if in.Epochs2 > 0 && in.BestEpoch2 == 0 {
		s += "; Siamese-CE is CE's network, which scored higher on validation"
	}
	if n := in.widthNote(); n != "" {
		s += "; " + n
	}
	return s
}

// widthOf returns β of the network variant.
func (in *Info) widthOf(v Variant) float64 {
	if v == VariantSiamese {
		return in.WidthSiamese
	}
	return in.WidthCE
}

// Width returns β of the network variant: its distances are divided by the
// candidate's width (1 + df)^β; 0 means the paper's distances.
func (m *Model) Width(variant Variant) float64 { return m.info.widthOf(variant) }

// CentreModel is EvalModel without the term widths: the Euclidean distances
// between the centres CE(τ|δ), which the maps draw.
func (m *Model) CentreModel(variant Variant) eval.Model {
	x := m.EvalModel(variant).(*evalModel)
	x.centres = true
	return x
}

package baselines

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/taglens/taglens/ml/eval"
)

// The baselines' report names, the one spelling used by reports, the API, the
// command line, the compare page and the palette.
const (
	NameRandom   = "random"
	NameLSA      = "lsa"
	NamePCA      = "pca"
	NameInfoTheo = "infotheo"
	NameSkipGram = "skipgram"
	NameLDA      = "lda"
	NamePLSA     = "plsa"
	NameCRBM     = "crbm"
	NamePPMISVD  = "ppmi-svd"
	NameGloVe    = "glove"

	NameEASE      = "ease"
	NameEASEScore = "ease-score"
	NameRP3beta   = "rp3beta"
	NameItemKNN   = "itemknn"
)

// Names are the baselines in report order: the eight of the paper's §6.2.5
// first, then two modern count-based embeddings the paper does not evaluate,
// PPMI-SVD (Levy, Goldberg & Dagan 2015) and GloVe (Pennington, Socher &
// Manning 2014), then the top-N recommenders a practitioner tries first on
// "rank the tags that go with these": EASE^R (Steck 2019) under Eq. 9 and
// with its own score, RP3beta (Paudel et al. 2017) and item-kNN.
var Names = []string{NameRandom, NameLSA, NamePCA, NameInfoTheo, NameSkipGram, NameLDA, NamePLSA, NameCRBM, NamePPMISVD, NameGloVe,
	NameEASE, NameEASEScore, NameRP3beta, NameItemKNN}

// NonContextual are the baselines evaluated with the extended protocol only
// (the paper's rule for its global models, §6.2.5, applied to the modern ones
// too): their distances ignore the document.
var NonContextual = []string{NameLSA, NamePCA, NameInfoTheo, NameSkipGram, NamePPMISVD, NameGloVe,
	NameEASE, NameEASEScore, NameRP3beta, NameItemKNN}

// OwnScore are the baselines that rank a document's vocabulary by a score of
// their own (eval.ListModel) instead of Eq. 9's minimum distance: how
// recommenders are used, not the paper's protocol.
var OwnScore = []string{NameEASEScore, NameRP3beta, NameItemKNN}

// Dense are the baselines built on dense V×V matrices, refused above
// MaxDenseTerms terms.
var Dense = []string{NameEASE, NameEASEScore}

// Scope says what an evaluation asks of a baseline.
type Scope struct {
	Protocol eval.Protocol
	Subset   string    // train, valid, test, oov or all
	Cross    bool      // the evaluated documents come from another corpus
	OOV      bool      // the OOV setting
	Missing  eval.Band // incomplete local context; zero when complete
	Terms    int       // the compared models' vocabulary size |Γ|

	// All reports that the evaluation asks for every baseline ("all")
	// rather than naming them one by one.
	All bool
	// GloVeSteps is the AdaGrad steps of a point of GloVe's grid on the
	// training documents, or a bound of them not above MaxGloVeSteps
	// (GloVeSteps); 0 when not computed.
	GloVeSteps int64
}

// Skip returns why baseline name is left out of an evaluation with the given
// scope (a sentence for the report's notes), or "" when it is evaluated:
// baselines handle no OOV term (§6.2.4); non-contextual ones only take the
// extended protocol (§6.2.5); CRBM's context is the training document's one-hot
// condition, so it is evaluated on training documents only, and with an
// incomplete context only under the extended protocol, its condition left whole
// (§6.2.5, §6.5). Of every baseline ("all"), GloVe is left out where a point
// of its grid takes more than MaxGloVeSteps steps (a comparison's budget).
func Skip(name string, sc Scope) string {
	switch {
	case sc.OOV:
		return name + " skipped: baselines do not handle OOV terms; the paper evaluates only the OOV variants (§6.2.4)"
	case sc.Protocol == eval.Priming && slices.Contains(NonContextual, name):
		return name + " skipped: not contextual, evaluated with the extended protocol only (paper §6.2.5)"
	case name == NameCRBM && sc.Protocol == eval.Completion:
		return "crbm skipped: its context is the document's one-hot condition, which holds the held-out term, so the completion protocol cannot hide it"
	case name == NameCRBM && (sc.Subset != "train" || sc.Cross):
		return "crbm skipped: its context is the training document's one-hot condition, so it is evaluated on training documents only (paper §6.2.5)"
	case slices.Contains(Dense, name) && sc.Terms > MaxDenseTerms:
		return fmt.Sprintf("%s skipped: %d terms: %s", name, sc.Terms, denseRefusal(sc.Terms))
	case name == NameGloVe && sc.All && sc.GloVeSteps > MaxGloVeSteps:
		return fmt.Sprintf("glove skipped from every baseline: a point of its grid takes %s AdaGrad steps (its epochs × its nonzero co-occurrence counts) on these training documents, above the %s a comparison of every baseline gives it; ask for glove by name to train it",
			powerOfTen(float64(sc.GloVeSteps)), powerOfTen(MaxGloVeSteps))
	case name == NameCRBM && !sc.Missing.IsZero() && sc.Protocol == eval.Priming:
		return "crbm skipped: its context, the document's one-hot condition, cannot be made incomplete; the paper uses it, with its context whole, in the extended protocol only (§6.5)"
	}
	return ""
}

// Settings are what the paper takes from the evaluated model when it trains a
// baseline (§6.2.5): LDA and PLSA use the topic count of the model's local
// context, CRBM the dimension of its CE space as hidden units.
type Settings struct {
	Topics int
	Hidden int
}

// Train trains baseline name on d (term indices 0..d.V-1) with seed and
// returns it with its tuning record (the baseline's own, if it has one, plus
// the seed). progress, if not nil, receives the grid steps of the tuned
// baselines as sentences.
func Train(ctx context.Context, name string, d Data, set Settings, seed uint64, progress func(string)) (eval.Model, map[string]any, error) {
	train, v := d.Train, d.V
	say := func(format string, a ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, a...))
		}
	}
	var (
		bm  eval.Model
		err error
	)
	switch name {
	case NameRandom:
		bm = NewRandom(v)
	case NameLSA:
		bm, err = FitLSA(ctx, train, v, LSAOptions{Seed: seed})
	case NamePCA:
		bm, err = FitPCA(ctx, train, v, PCAOptions{Seed: seed})
	case NameInfoTheo:
		bm, err = FitInfoTheo(ctx, train, v, InfoTheoOptions{Seed: seed,
			Progress: func(p InfoTheoPoint) { say("infotheo: k=%d α=%.1f training P@2 %.4f", p.K, p.Alpha, p.TrainP2) }})
	case NameSkipGram:
		// One line per window, after its last representation: the best
		// training P@2 over the representations at that window.
		n, bestW := 0, math.Inf(-1)
		bm, err = FitSkipGram(ctx, train, v, SkipGramOptions{Seed: seed, Progress: func(p SkipGramPoint) {
			bestW = max(bestW, p.TrainP2)
			if n++; n%len(skipGramRepresentations) == 0 {
				say("skipgram: window %d training P@2 %.4f", p.Window, bestW)
				bestW = math.Inf(-1)
			}
		}})
	case NamePPMISVD:
		bm, err = FitPPMISVD(ctx, train, v, PPMISVDOptions{Seed: seed,
			Progress: func(p PPMISVDPoint) {
				say("ppmi-svd: shift %g dim %d p=%g training P@2 %.4f", p.Shift, p.Dim, p.Power, p.TrainP2)
			}})
	case NameGloVe:
		bm, err = FitGloVe(ctx, train, v, GloVeOptions{Seed: seed,
			Progress: func(p GloVePoint) { say("glove: dim %d epochs %d training P@2 %.4f", p.Dim, p.Epochs, p.TrainP2) }})
	case NameEASE, NameEASEScore:
		fit := func() (any, error) {
			m, s, err := FitEASE(ctx, d, EASEOptions{Seed: seed, Progress: func(p EASEPoint) {
				say("ease: λ=%g validation MAP %.4f under Eq. 9, %.4f by its own score", p.Lambda, p.MAPEq9, p.MAPScore)
			}})
			return &easePair{m: [2]eval.Model{m, s}}, err
		}
		var pair any
		if pair, err = d.Shared.Do(fmt.Sprintf("ease/%d", seed), fit); err == nil {
			k := slices.Index([]string{NameEASE, NameEASEScore}, name)
			if bm = pair.(*easePair).take(k); bm == nil { // taken before: fit again
				if pair, err = fit(); err == nil {
					bm = pair.(*easePair).take(k)
				}
			}
		}
	case NameRP3beta:
		bm, err = FitRP3beta(ctx, d, NeighboursOptions{Seed: seed, Progress: func(p NeighboursPoint) {
			say("rp3beta: α=%g β=%g k=%d validation MAP %.4f", p.Alpha, p.Beta, p.K, p.ValidMAP)
		}})
	case NameItemKNN:
		bm, err = FitItemKNN(ctx, d, NeighboursOptions{Seed: seed, Progress: func(p NeighboursPoint) {
			say("itemknn: a=%g shrink=%g k=%d validation MAP %.4f", p.Alpha, p.Shrink, p.K, p.ValidMAP)
		}})
	case NameLDA:
		bm, err = FitLDA(ctx, train, v, TopicOptions{Topics: set.Topics, Seed: seed})
	case NamePLSA:
		bm, err = FitPLSA(ctx, train, v, TopicOptions{Topics: set.Topics, Seed: seed})
	case NameCRBM:
		bm, err = FitCRBM(ctx, train, v, CRBMOptions{Hidden: set.Hidden, Seed: seed})
	default:
		return nil, nil, fmt.Errorf("baselines: unknown baseline %q (want one of %v)", name, Names)
	}
	if err != nil {
		return nil, nil, err
	}
	var tun map[string]any
	if tm, ok := bm.(eval.Tuned); ok {
		tun = maps.Clone(tm.Tuning())
	}
	if tun == nil {
		tun = map[string]any{}
	}
	tun["seed"] = seed
	return bm, tun, nil
}

// easePair holds the two rankings of one EASE^R fit until each has been
// taken once, so that a trial's cache does not keep them (two V×V matrices)
// after the entries that use them.
type easePair struct {
	mu sync.Mutex
	m  [2]eval.Model
}

func (p *easePair) take(k int) eval.Model {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.m[k]
	p.m[k] = nil
	return m
}

// powerOfTen writes x ≥ 1 as "m×10^e" with one decimal of m ("5.7×10^8"),
// or "m×10^e" without the decimal when it is zero ("2×10^8").
func powerOfTen(x float64) string {
	e := int(math.Floor(math.Log10(x)))
	m := x / math.Pow(10, float64(e))
	if m >= 9.95 {
		m, e = m/10, e+1
	}
	s := strconv.FormatFloat(m, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return fmt.Sprintf("%s×10^%d", s, e)
}

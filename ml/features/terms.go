package features

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/taglens/taglens/ml/internal/defaults"
)

// PCAMethod chooses how the term features are decorrelated.
type PCAMethod int

const (
	// Auto uses Exact when the vocabulary has at most ExactMaxTerms terms and
	// Randomized otherwise.
	Auto PCAMethod = iota
	// Exact is the full thin SVD of the dense |Γ|×|Γ| centred aggregation matrix,
	// keeping every component with non-negligible variance (unless Dim caps it).
	Exact
	// Randomized is the randomized truncated SVD of the sparse aggregation
	// matrix, implicitly centred; no dense |Γ|×|Γ| matrix is formed.
	Randomized
)

// DefaultExactMaxTerms is the largest vocabulary for which Auto picks the exact
// PCA. Above it the dense |Γ|×|Γ| matrix (8·|Γ|² bytes) and its O(|Γ|³) SVD stop
// being cheap on a small machine; the randomized path then keeps the input width
// at PCAOptions.Dim (default DefaultRandomizedDim) however large |Γ| grows.
const DefaultExactMaxTerms = 1000

// TermOptions tunes FitTerms. The zero value means the defaults.
type TermOptions struct {
	// Method selects the PCA path (default Auto).
	Method PCAMethod
	// ExactMaxTerms is Auto's threshold on |Γ| (default DefaultExactMaxTerms).
	ExactMaxTerms int
	// PCA tunes the decorrelation; its Randomized field is set from Method.
	PCA PCAOptions
	// Normalize scales every row t(τ) of Eq. 2 to unit Euclidean length before
	// the PCA (see TermFeatures.Normalize).
	Normalize bool
	// Smooth, when positive, is the α of Mandel et al.'s smoothing applied to
	// the training documents before Eq. 2's aggregation (see
	// TermFeatures.Smooth); zero keeps Eq. 2 as printed.
	Smooth float64
	// Step, when not nil, is called as each step of the fit begins ("counts",
	// "smoothed counts", "pca", "projection") and, within the randomized PCA,
	// before each product with the term matrix ("pca", done of total), so that
	// a caller can say how far a long fit is. It is called from the fitting
	// goroutine and must not block.
	Step func(step string, done, total int)
}

// TermFeatures holds the fitted term representation of paper §3.1 and §5.2:
// the training idf, and the PCA + (−1, +1) scaling of the term features
// t(τ) = {T(τ, τ_i)}_{i=1}^{|Γ|} (Eq. 2), with every in-vocabulary term's scaled
// features precomputed. It is immutable after fitting and safe for concurrent
// use. Its exported fields are its serialized form (see also MarshalBinary).
//
// PCA observations. The PCA is fitted with the |Γ| vocabulary terms' rows t(τ)
// as observations, each term once. t(τ) is a property of the term alone (it
// does not depend on the document), so the distinct values the term part of the
// network input can take on training data are exactly these |Γ| rows; fitting
// on the training examples instead would repeat each row once per occurrence
// (plus uniformly drawn negatives), letting a handful of frequent tags decide
// the principal directions and squeezing the rare, descriptive terms that the
// paper deliberately keeps and up-weights with idf (§3.1).
type TermFeatures struct {
	// V is |Γ|, NumDocs is |Δ| (training documents).
	V, NumDocs int
	// DF and IDF are the training document frequencies and idf (§3.1).
	DF  []int
	IDF []float64
	// Normalize records that the rows t(τ) were scaled to unit Euclidean
	// length, t(τ)/‖t(τ)‖, before the PCA (and OOV rows are too). Eq. 2's rows
	// have norms spanning orders of magnitude on long-tailed vocabularies
	// (T_ij = idf_i·idf_j·C_ij), and after the PCA the Euclidean neighbours of
	// most terms are then the small-norm terms near the centre, not the terms
	// they co-occur with; unit rows give the input the cosine geometry of the
	// co-occurrence profiles, which is what the paper's global baselines use
	// (§6.2.5: "the cosine metric outperformed Euclidian for all models").
	Normalize bool
	// Smooth is α of the smoothing of Mandel et al. (2011) applied to the
	// training documents before Eq. 2's aggregation (0: none, Eq. 2 as
	// printed), and Assoc[τ] the term's strongest associate under Eq. 2
	// (TopAssociates with k = 1; −1 when τ co-occurs with no other term):
	//
	//	T = SᵀS,  S(δ)_j = idf_j·(1 if j ∈ δ, else α·|{τ ∈ δ : Assoc[τ] = j}|)
	//
	// (Smooth with k = 1), the matrix the InfoTheo baseline reduces (§6.2.5),
	// in place of Eq. 2's T = UᵀU with U the tf-idf BoW. A term seen in a few
	// documents then also co-occurs, with weight α, with its documents' other
	// terms' strongest associates, which keeps its row informative after the
	// PCA (on lastfm-hetrec, docs/quality-notes.md, D4).
	Smooth float64
	Assoc  []int
	// Proj decorrelates and scales t(τ) (In = V).
	Proj *Projection
	// Scaled is the V×Proj.Out row-major matrix of the scaled features of every
	// vocabulary term: row τ = Proj.Transform(t(τ)).
	Scaled []float64
}

// TermMatrix returns the training idf (§3.1) and the sparse symmetric
// aggregation matrix T of Eq. 2, T_ij = <u(τ_i), u(τ_j)> = idf_i·idf_j·C_ij with
// C_ij the number of training documents holding both terms (row i of T is
// t(τ_i)). It costs O(Σ_δ |δ|²). It panics if a term is outside [0, v) or
// train is empty.
func TermMatrix(train [][]int, v int) (df []int, idf []float64, t *Sparse) {
	df, idf, t, _ = termMatrix(context.Background(), train, v)
	return df, idf, t
}

// termMatrix is TermMatrix that stops with ctx.Err() when ctx is cancelled
// during the counting (gramSparse).
func termMatrix(ctx context.Context, train [][]int, v int) (df []int, idf []float64, t *Sparse, err error) {
	df = DocFreq(train, v)
	idf = IDF(len(train), df)
	t, err = gramSparse(ctx, DocTerm(train, v, idf))
	return df, idf, t, err
}

// FitTerms fits the term features on the encoded training documents (term
// indices in [0, v)). opt may be nil. It returns an error for fewer than two
// documents, an empty vocabulary, or term features without variance (e.g.
// every term in every document); it panics if a term is outside [0, v).
func FitTerms(train [][]int, v int, opt *TermOptions) (*TermFeatures, error) {
	return FitTermsContext(context.Background(), train, v, opt)
}

// FitTermsContext is FitTerms that stops with ctx.Err() when ctx is cancelled,
// checked between its steps (term matrix, smoothing, PCA, projection) and
// within the two co-occurrence countings and the projection of every term.
func FitTermsContext(ctx context.Context, train [][]int, v int, opt *TermOptions) (*TermFeatures, error) {
	if len(train) < 2 {
		return nil, fmt.Errorf("features: fit terms: %d training documents, need at least 2", len(train))
	}
	if v < 1 {
		return nil, errors.New("features: fit terms: empty vocabulary")
	}
	var o TermOptions
	if opt != nil {
		o = *opt
	}
	defaults.Positive(&o.ExactMaxTerms, DefaultExactMaxTerms)
	switch o.Method {
	case Auto:
		o.PCA.Randomized = v > o.ExactMaxTerms
	case Exact:
		o.PCA.Randomized = false
	case Randomized:
		o.PCA.Randomized = true
	default:
		panic(fmt.Sprintf("features: unknown PCAMethod %d", o.Method))
	}
	step := o.Step
	if step == nil {
		step = func(string, int, int) {}
	}
	step("counts", 0, 1)
	df, idf, t, err := termMatrix(ctx, train, v)
	if err != nil {
		return nil, err
	}
	var assoc []int
	if o.Smooth > 0 {
		step("smoothed counts", 0, 1)
		top := TopAssociates(t, 1)
		assoc = make([]int, v)
		for i, a := range top {
			assoc[i] = -1
			if len(a) > 0 {
				assoc[i] = a[0]
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if t, err = gramSparse(ctx, Smooth(train, v, idf, top, 1, o.Smooth)); err != nil {
			return nil, err
		}
	}
	if o.Normalize {
		t = unitRows(t)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o.PCA.ctx = ctx
	step("pca", 0, 1)
	o.PCA.step = func(done, total int) { step("pca", done, total) }
	proj, err := FitPCASparse(t, &o.PCA)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("features: fit terms: %w", err)
	}
	f := &TermFeatures{V: v, NumDocs: len(train), DF: df, IDF: idf, Proj: proj, Normalize: o.Normalize}
	if o.Smooth > 0 {
		f.Smooth, f.Assoc = o.Smooth, assoc
	}
	step("projection", 0, 1)
	f.Scaled = make([]float64, v*proj.Out)
	for i := 0; i < v; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ind, val := t.Row(i)
		proj.SparseTransformTo(f.Scaled[i*proj.Out:(i+1)*proj.Out], ind, val)
	}
	return f, nil
}

// Dim returns the width of the scaled term features.
func (f *TermFeatures) Dim() int { return f.Proj.Out }

// Row returns the scaled features of vocabulary term τ (a view into Scaled;
// the caller must not modify it). It panics if τ is outside [0, V).
func (f *TermFeatures) Row(tau int) []float64 {
	d := f.Proj.Out
	return f.Scaled[tau*d : (tau+1)*d : (tau+1)*d]
}

// ErrOOVUnseen is returned by the OOV methods when the OOV term occurs in none
// of the documents given.
var ErrOOVUnseen = errors.New("features: OOV term occurs in no given document")

// OOVRaw returns the unscaled term features t(τ_oov) of an out-of-vocabulary
// term (paper §4.4, feature-based method) as a sparse vector over the
// in-vocabulary terms. docs are the test documents that contain the OOV term,
// each given by its in-vocabulary term indices (the OOV term itself is not in
// them).
//
// Reading of §4.4: the OOV term's tf-idf is measured "the same as for
// in-vocabulary terms with all the training documents plus all test documents
// containing it": over |Δ| + m documents, of which it occurs in the m given
// ones, so
//
//	idf(τ_oov) = log((|Δ| + m) / (1 + m)).
//
// The in-vocabulary terms keep the training idf fitted with the model (their
// usage vectors are merely extended to the m new documents), so that each
// feature still means relatedness to the same term and the features stay
// comparable with the training t(τ). "Aggregation only against in-vocabulary
// terms" gives, with binary tf,
//
//	t(τ_oov)[i] = Σ_δ tfidf(τ_oov, δ)·tfidf(τ_i, δ) = idf(τ_oov)·idf(τ_i)·|{δ in docs : τ_i ∈ δ}|
//
// (training documents contribute nothing, since the OOV term is in none of
// them). With Smooth the documents are smoothed like the training ones: τ_i ∉ δ
// counts α·|{τ ∈ δ : Assoc[τ] = τ_i}| instead of 0 (the OOV term has no
// associate). It returns ErrOOVUnseen when docs is empty and panics if a term
// is outside [0, V).
func (f *TermFeatures) OOVRaw(docs [][]int) (ind []int, val []float64, err error) {
	m := len(docs)
	if m == 0 {
		return nil, nil, ErrOOVUnseen
	}
	idfOOV := idfOf(f.NumDocs+m, m)
	// The documents' rows u(δ)_i = idf_i (smoothed like the training rows
	// when Smooth), summed over the documents and scaled by idf(τ_oov).
	var u *Sparse
	if f.Smooth > 0 {
		u = Smooth(docs, f.V, f.IDF, assocLists(f.Assoc), 1, f.Smooth)
	} else {
		u = DocTerm(docs, f.V, f.IDF)
	}
	sum := make([]float64, f.V)
	for p, i := range u.Ind {
		sum[i] += u.Val[p]
	}
	for i, x := range sum {
		if x != 0 {
			ind = append(ind, i)
			val = append(val, idfOOV*x)
		}
	}
	return ind, val, nil
}

// OOVTo sets dst (length Dim()) to the scaled features of an OOV term: OOVRaw
// (made unit length when Normalize) followed by the training PCA and scaling. It returns ErrOOVUnseen when docs
// is empty.
func (f *TermFeatures) OOVTo(dst []float64, docs [][]int) error {
	ind, val, err := f.OOVRaw(docs)
	if err != nil {
		return err
	}
	if f.Normalize {
		unit(val)
	}
	f.Proj.SparseTransformTo(dst, ind, val)
	return nil
}

// CheckSmooth reports an inconsistent smoothing record: Smooth must be finite
// and non-negative and, when positive, Assoc must hold one associate per term,
// −1 or another term's index.
func (f *TermFeatures) CheckSmooth() error {
	switch {
	case !(f.Smooth >= 0) || math.IsInf(f.Smooth, 0):
		return fmt.Errorf("smoothing α %v", f.Smooth)
	case f.Smooth == 0:
		return nil
	case len(f.Assoc) != f.V:
		return fmt.Errorf("%d associates for %d terms", len(f.Assoc), f.V)
	}
	for i, a := range f.Assoc {
		if a < -1 || a >= f.V || a == i {
			return fmt.Errorf("term %d has associate %d", i, a)
		}
	}
	return nil
}

// unitRows returns a copy of t whose nonzero rows have unit Euclidean length.
func unitRows(t *Sparse) *Sparse {
	u := &Sparse{R: t.R, C: t.C, Ptr: t.Ptr, Ind: t.Ind, Val: slices.Clone(t.Val)}
	for i := 0; i < u.R; i++ {
		unit(u.Val[u.Ptr[i]:u.Ptr[i+1]])
	}
	return u
}

// unit scales x in place to unit Euclidean length (a zero x stays zero).
func unit(x []float64) {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	if ss > 0 {
		inv := 1 / math.Sqrt(ss)
		for i := range x {
			x[i] *= inv
		}
	}
}

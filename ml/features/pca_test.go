package features

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// plantedDocs draws n documents from g disjoint groups of `per` terms each:
// a document picks one group and 2..5 of its terms, plus with probability 0.2
// one uniformly random term (noise), so T has a clear block structure.
func plantedDocs(rng *rand.Rand, n, g, per int) [][]int {
	docs := make([][]int, n)
	for d := range docs {
		grp := rng.IntN(g)
		k := 2 + rng.IntN(4)
		for _, i := range rng.Perm(per)[:k] {
			docs[d] = append(docs[d], grp*per+i)
		}
		if rng.Float64() < 0.2 {
			docs[d] = append(docs[d], rng.IntN(g*per))
		}
	}
	return docs
}

// correlated returns n observations of c features with strong correlations.
func correlated(rng *rand.Rand, n, c int) *mat.Dense {
	x := mat.NewDense(n, c, nil)
	for i := 0; i < n; i++ {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		for j := 0; j < c; j++ {
			x.Set(i, j, float64(j+1)*a+float64(c-j)*b+0.1*rng.NormFloat64())
		}
	}
	return x
}

// normalDense returns an r×c matrix of standard normal values.
func normalDense(rng *rand.Rand, r, c int) *mat.Dense {
	x := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// covariance returns the covariance matrix of the rows of z.
func covariance(z *mat.Dense) *mat.Dense {
	n, k := z.Dims()
	mean := make([]float64, k)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			mean[j] += z.At(i, j) / float64(n)
		}
	}
	cov := mat.NewDense(k, k, nil)
	for i := 0; i < n; i++ {
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				cov.Set(a, b, cov.At(a, b)+(z.At(i, a)-mean[a])*(z.At(i, b)-mean[b])/float64(n-1))
			}
		}
	}
	return cov
}

func checkDecorrelatedScaled(t *testing.T, p *Projection, x *mat.Dense) {
	t.Helper()
	n, _ := x.Dims()
	z := mat.NewDense(n, p.Out, nil)
	s := mat.NewDense(n, p.Out, nil)
	for i := 0; i < n; i++ {
		p.ScoresTo(z.RawRowView(i), x.RawRowView(i))
	}
	p.TransformRowsTo(s, x)
	// Unscaled scores: covariance diagonal with the fitted variances (a PCA fact).
	cov := covariance(z)
	for a := 0; a < p.Out; a++ {
		for b := 0; b < p.Out; b++ {
			want := 0.0
			if a == b {
				want = p.Variance[a]
			}
			if got := cov.At(a, b); math.Abs(got-want) > 1e-8*p.Variance[0] {
				t.Errorf("score cov[%d][%d]: got %v, want %v", a, b, got, want)
			}
		}
	}
	// Per-component linear scaling keeps the covariance diagonal.
	cs := covariance(s)
	for a := 0; a < p.Out; a++ {
		for b := 0; b < p.Out; b++ {
			if a != b && math.Abs(cs.At(a, b)) > 1e-8 {
				t.Errorf("scaled cov[%d][%d]: got %v, want 0", a, b, cs.At(a, b))
			}
		}
	}
	// Scaled training data lie in [-1, 1] and reach both ends.
	for j := 0; j < p.Out; j++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < n; i++ {
			lo, hi = min(lo, s.At(i, j)), max(hi, s.At(i, j))
		}
		if lo < -1-1e-12 || hi > 1+1e-12 || math.Abs(lo+1) > 1e-9 || math.Abs(hi-1) > 1e-9 {
			t.Errorf("component %d: scaled range [%v, %v], want [-1, 1]", j, lo, hi)
		}
	}
}

func TestFitPCADecorrelates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		n, c int
		opt  *PCAOptions
	}{
		{"exact", 80, 6, nil},
		{"exact-wide", 5, 9, nil}, // n < c: at most n-1 components have variance
		{"randomized", 80, 6, &PCAOptions{Randomized: true, Dim: 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := correlated(rng, tc.n, tc.c)
			p, err := FitPCA(x, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if tc.n < tc.c && p.Out > tc.n-1 {
				t.Errorf("Out: got %d, want ≤ %d", p.Out, tc.n-1)
			}
			checkDecorrelatedScaled(t, p, x)
			// All variance is kept when every non-negligible component is.
			if math.Abs(p.Explained()-1) > 1e-9 {
				t.Errorf("explained: got %v, want 1", p.Explained())
			}
		})
	}
}

// TestFitPCAContext: topic proportions sum to 1, so the centred data has rank
// K−1 and exactly one component must be dropped as negligible.
func TestFitPCAContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, k = 50, 5
	x := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		var s float64
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.ExpFloat64()
			s += row[j]
		}
		for j := range row {
			row[j] /= s
		}
	}
	p, err := FitPCA(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Out != k-1 {
		t.Errorf("Out: got %d, want %d", p.Out, k-1)
	}
	checkDecorrelatedScaled(t, p, x)
}

func TestFitPCANoVariance(t *testing.T) {
	x := mat.NewDense(4, 3, []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3})
	if _, err := FitPCA(x, nil); !errors.Is(err, ErrNoVariance) {
		t.Errorf("got %v, want ErrNoVariance", err)
	}
}

// denseTermMatrix computes T = ΥᵀΥ from a dense tf-idf matrix built directly from
// the §3.1 definitions (an implementation independent of Cooccurrence).
func denseTermMatrix(docs [][]int, v int) *mat.Dense {
	n := len(docs)
	u := mat.NewDense(n, v, nil)
	for d, doc := range docs {
		for _, t := range doc {
			u.Set(d, t, 1) // binary tf
		}
	}
	for j := 0; j < v; j++ {
		var df float64
		for d := 0; d < n; d++ {
			df += u.At(d, j)
		}
		idf := math.Log(float64(n) / (1 + df))
		for d := 0; d < n; d++ {
			u.Set(d, j, u.At(d, j)*idf)
		}
	}
	var tm mat.Dense
	tm.Mul(u.T(), u)
	return &tm
}

func TestSparseEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	docs := plantedDocs(rng, 120, 4, 6)
	const v = 24
	_, _, ts := TermMatrix(docs, v)
	td := denseTermMatrix(docs, v)
	if !mat.EqualApprox(ts.Dense(), td, 1e-10) {
		t.Fatalf("sparse T differs from dense ΥᵀΥ")
	}
	// Gram operator (Aᵀ(A·x)) equals the dense product too.
	_, idf, _ := TermMatrix(docs, v)
	x := mat.NewDense(v, 3, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	got := mat.NewDense(v, 3, nil)
	Gram{A: DocTerm(docs, v, idf)}.MulTo(got, false, x)
	var want mat.Dense
	want.Mul(td, x)
	if !mat.EqualApprox(got, &want, 1e-10) {
		t.Errorf("Gram.MulTo differs from dense product")
	}
	for _, opt := range []*PCAOptions{nil, {Randomized: true, Dim: 8, Seed: 9}} {
		ps, err := FitPCASparse(ts, opt)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := FitPCA(td, opt)
		if err != nil {
			t.Fatal(err)
		}
		if ps.Out != pd.Out {
			t.Fatalf("randomized=%v Out: sparse %d, dense %d", opt != nil, ps.Out, pd.Out)
		}
		for name, pair := range map[string][2][]float64{
			"Mean": {ps.Mean, pd.Mean}, "W": {ps.W, pd.W}, "Variance": {ps.Variance, pd.Variance},
			"Lo": {ps.Lo, pd.Lo}, "Hi": {ps.Hi, pd.Hi},
		} {
			for i := range pair[0] {
				if math.Abs(pair[0][i]-pair[1][i]) > 1e-7*(1+math.Abs(pair[1][i])) {
					t.Errorf("randomized=%v %s[%d]: sparse %v, dense %v", opt != nil, name, i, pair[0][i], pair[1][i])
					break
				}
			}
		}
		if math.Abs(ps.TotalVariance-pd.TotalVariance) > 1e-9*pd.TotalVariance {
			t.Errorf("TotalVariance: sparse %v, dense %v", ps.TotalVariance, pd.TotalVariance)
		}
	}
}

// TestRandomizedMatchesExact: on a planted block-structured T with a clear
// spectral gap after the leading components, the randomized PCA spans the same
// leading subspace as the exact one: all cosines of the principal angles between
// the two d-dimensional direction sets are 1 (singular values of W_exactᵀ·W_rand).
func TestRandomizedMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const g, per = 5, 8
	docs := plantedDocs(rng, 400, g, per)
	_, _, tm := TermMatrix(docs, g*per)
	ex, err := FitPCASparse(tm, nil)
	if err != nil {
		t.Fatal(err)
	}
	const d = 4
	rd, err := FitPCASparse(tm, &PCAOptions{Randomized: true, Dim: d, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rd.Out != d {
		t.Fatalf("randomized Out: got %d, want %d", rd.Out, d)
	}
	if gap := ex.Variance[d] / ex.Variance[d-1]; gap > 0.5 {
		t.Fatalf("test data has no spectral gap after %d components (ratio %v)", d, gap)
	}
	we := mat.NewDense(ex.In, ex.Out, ex.W).Slice(0, ex.In, 0, d)
	wr := mat.NewDense(rd.In, rd.Out, rd.W)
	var m mat.Dense
	m.Mul(we.T(), wr)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		t.Fatal("svd failed")
	}
	for i, c := range svd.Values(nil) {
		if math.Abs(c-1) > 1e-6 {
			t.Errorf("principal angle cosine %d: got %v, want 1", i, c)
		}
	}
	for i := 0; i < d; i++ {
		if math.Abs(rd.Variance[i]-ex.Variance[i]) > 1e-6*ex.Variance[i] {
			t.Errorf("variance %d: randomized %v, exact %v", i, rd.Variance[i], ex.Variance[i])
		}
	}
}

func TestFitTermsDeterministic(t *testing.T) {
	for _, m := range []PCAMethod{Exact, Randomized} {
		var first []byte
		for run := 0; run < 2; run++ {
			docs := plantedDocs(rand.New(rand.NewPCG(11, 12)), 150, 3, 7)
			f, err := FitTerms(docs, 21, &TermOptions{Method: m, PCA: PCAOptions{Dim: 5, Seed: 3}})
			if err != nil {
				t.Fatal(err)
			}
			b, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				first = b
			} else if !bytes.Equal(first, b) {
				t.Errorf("method %d: two fits with the same seed differ", m)
			}
		}
	}
}

func TestFitTermsScaledRows(t *testing.T) {
	docs := plantedDocs(rand.New(rand.NewPCG(13, 14)), 150, 3, 7)
	const v = 21
	f, err := FitTerms(docs, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Proj.Randomized {
		t.Errorf("Auto chose randomized for |Γ| = %d", v)
	}
	_, _, tm := TermMatrix(docs, v)
	x := tm.Dense()
	checkDecorrelatedScaled(t, f.Proj, x)
	// Scaled rows are Transform(t(τ)).
	checkRowsTransform(t, f, x)
	auto, err := FitTerms(docs, v, &TermOptions{ExactMaxTerms: 10, PCA: PCAOptions{Dim: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if !auto.Proj.Randomized || auto.Dim() != 4 {
		t.Errorf("Auto above threshold: randomized %v dim %d, want true 4", auto.Proj.Randomized, auto.Dim())
	}
}

func TestFitTermsErrors(t *testing.T) {
	if _, err := FitTerms([][]int{{0}}, 1, nil); err == nil {
		t.Error("one document: got nil error")
	}
	if _, err := FitTerms([][]int{{0, 1}, {0, 1}, {0, 1}}, 2, nil); !errors.Is(err, ErrNoVariance) {
		t.Errorf("identical documents: got %v, want ErrNoVariance", err)
	}
}

func TestOOVHand(t *testing.T) {
	// Fit on handDocs is degenerate for PCA only if T has no variance; it has.
	f, err := FitTerms(handDocs, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	// OOV term seen in m = 2 test documents {1, 2} and {1}: idf_oov =
	// log((3+2)/(1+2)); t[1] = idf_oov·log(3/4)·2, t[2] = idf_oov·log(3/2)·1.
	ind, val, err := f.OOVRaw([][]int{{2, 1}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	io := math.Log(5.0 / 3)
	wantInd := []int{1, 2}
	wantVal := []float64{io * math.Log(0.75) * 2, io * math.Log(1.5)}
	if len(ind) != 2 {
		t.Fatalf("ind: got %v, want %v", ind, wantInd)
	}
	for k := range ind {
		if ind[k] != wantInd[k] || math.Abs(val[k]-wantVal[k]) > 1e-14 {
			t.Errorf("entry %d: got (%d, %v), want (%d, %v)", k, ind[k], val[k], wantInd[k], wantVal[k])
		}
	}
	got := make([]float64, f.Dim())
	if err := f.OOVTo(got, [][]int{{2, 1}, {1}}); err != nil {
		t.Fatal(err)
	}
	dense := make([]float64, 4)
	dense[1], dense[2] = wantVal[0], wantVal[1]
	want := make([]float64, f.Dim())
	f.Proj.TransformTo(want, dense)
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-12 {
			t.Errorf("OOVTo[%d]: got %v, want %v", j, got[j], want[j])
		}
	}
	if err := f.OOVTo(got, nil); !errors.Is(err, ErrOOVUnseen) {
		t.Errorf("no documents: got %v, want ErrOOVUnseen", err)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	docs := plantedDocs(rand.New(rand.NewPCG(15, 16)), 100, 3, 5)
	f, err := FitTerms(docs, 15, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g TermFeatures
	if err := g.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	b2, _ := g.MarshalBinary()
	if !bytes.Equal(b, b2) {
		t.Error("marshal → unmarshal → marshal changed the bytes")
	}
	for _, cut := range []int{0, 3, 8, 20, len(b) / 2, len(b) - 1} {
		var h TermFeatures
		if err := h.UnmarshalBinary(b[:cut]); !errors.Is(err, ErrFormat) {
			t.Errorf("truncated at %d: got %v, want ErrFormat", cut, err)
		}
	}
	bad := bytes.Clone(b)
	bad[4] = 99 // version
	if err := g.UnmarshalBinary(bad); !errors.Is(err, ErrFormat) {
		t.Errorf("bad version: got %v, want ErrFormat", err)
	}
	pb, _ := f.Proj.MarshalBinary()
	var p Projection
	if err := p.UnmarshalBinary(pb); err != nil {
		t.Fatal(err)
	}
	if err := p.UnmarshalBinary(append(pb, 0)); !errors.Is(err, ErrFormat) {
		t.Errorf("trailing byte: got %v, want ErrFormat", err)
	}
}

// TestFitPCAOperator: PCA of the rows of the Gram operator ΥᵀΥ equals PCA of the
// explicitly built sparse T (they are the same matrix), on both paths.
func TestFitPCAOperator(t *testing.T) {
	docs := plantedDocs(rand.New(rand.NewPCG(17, 18)), 120, 3, 6)
	const v = 18
	_, idf, tm := TermMatrix(docs, v)
	for _, opt := range []*PCAOptions{nil, {Randomized: true, Dim: 5, Seed: 2}} {
		want, err := FitPCASparse(tm, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, scores, err := FitPCAOperator(Gram{A: DocTerm(docs, v, idf)}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got.Out != want.Out {
			t.Fatalf("Out: got %d, want %d", got.Out, want.Out)
		}
		for i := range want.W {
			if math.Abs(got.W[i]-want.W[i]) > 1e-8 {
				t.Fatalf("randomized=%v W[%d]: got %v, want %v", opt != nil, i, got.W[i], want.W[i])
			}
		}
		z := make([]float64, want.Out)
		for i := 0; i < v; i++ {
			ind, val := tm.Row(i)
			want.SparseScoresTo(z, ind, val)
			for j := range z {
				if math.Abs(scores.At(i, j)-z[j]) > 1e-8 {
					t.Fatalf("scores[%d][%d]: got %v, want %v", i, j, scores.At(i, j), z[j])
				}
			}
		}
	}
}

// checkRowsTransform checks that f's scaled rows are its projection of the
// rows of x.
func checkRowsTransform(t *testing.T, f *TermFeatures, x *mat.Dense) {
	t.Helper()
	want := make([]float64, f.Dim())
	for i := 0; i < f.V; i++ {
		f.Proj.TransformTo(want, x.RawRowView(i))
		for j, w := range want {
			if math.Abs(f.Row(i)[j]-w) > 1e-12 {
				t.Fatalf("Row(%d)[%d]: got %v, want %v", i, j, f.Row(i)[j], w)
			}
		}
	}
}

// TestSparseMulToSplit checks that the products MulTo splits among goroutines
// equal the serial loop bit for bit, both ways and for several goroutine counts.
func TestSparseMulToSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const r, c, k = 3000, 500, 70
	a := &Sparse{R: r, C: c, Ptr: make([]int, r+1)}
	for i := 0; i < r; i++ {
		for _, j := range rng.Perm(c)[:5+rng.IntN(10)] {
			a.Ind = append(a.Ind, j)
		}
		slices.Sort(a.Ind[a.Ptr[i]:])
		for range a.Ind[a.Ptr[i]:] {
			a.Val = append(a.Val, rng.NormFloat64())
		}
		a.Ptr[i+1] = len(a.Ind)
	}
	if a.NNZ()*k < parallelMulAbove {
		t.Fatalf("%d×%d products do not reach the split", a.NNZ(), k)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, trans := range []bool{false, true} {
		in, out := c, r
		if trans {
			in, out = r, c
		}
		x := normalDense(rng, in, k)
		want := mat.NewDense(out, k, nil)
		a.mulRange(want, trans, x, 0, r, 0, k)
		for _, procs := range []int{1, 2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			got := mat.NewDense(out, k, nil)
			got.Set(0, 0, 42) // MulTo overwrites
			a.MulTo(got, trans, x)
			g, w := got.RawMatrix().Data, want.RawMatrix().Data
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
					t.Fatalf("trans=%v, GOMAXPROCS %d: element %d is %v, serial %v", trans, procs, i, g[i], w[i])
				}
			}
		}
	}
}

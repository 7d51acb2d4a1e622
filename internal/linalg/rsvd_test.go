package linalg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// lowRank returns an r×c matrix U·diag(s)·Vᵀ with random orthonormal U and V,
// plus Gaussian noise of standard deviation noise.
func lowRank(r, c int, s []float64, noise float64, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	u := mat.NewDense(r, len(s), nil)
	v := mat.NewDense(c, len(s), nil)
	for _, m := range []*mat.Dense{u, v} {
		raw := m.RawMatrix().Data
		for i := range raw {
			raw[i] = rng.NormFloat64()
		}
		Orthonormalize(m)
	}
	for j, sj := range s {
		for i := 0; i < r; i++ {
			u.Set(i, j, u.At(i, j)*sj)
		}
	}
	a := mat.NewDense(r, c, nil)
	a.Mul(u, v.T())
	raw := a.RawMatrix().Data
	for i := range raw {
		raw[i] += noise * rng.NormFloat64()
	}
	return a
}

// TestOrthonormalize: QᵀQ = I, and Q spans the columns of the input (QQᵀY = Y).
func TestOrthonormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	y := mat.NewDense(200, 30, nil)
	for i, raw := 0, y.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = rng.NormFloat64()
	}
	q := mat.DenseCopyOf(y)
	Orthonormalize(q)
	var qtq mat.Dense
	qtq.Mul(q.T(), q)
	if !mat.EqualApprox(&qtq, eye(30), 1e-12) {
		t.Errorf("QᵀQ is not the identity")
	}
	var proj, back mat.Dense
	proj.Mul(q.T(), y)
	back.Mul(q, &proj)
	if !mat.EqualApprox(&back, y, 1e-10) {
		t.Errorf("Q does not span Y's columns")
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// TestRandomizedSVD: on a matrix of rank 8 plus small noise, both forms of
// the small factor recover the leading singular values and vectors of the
// exact SVD, U·diag(s)·Vᵀ reproduces A, and the results do not depend on
// anything but the generator's seed.
func TestRandomizedSVD(t *testing.T) {
	s0 := []float64{100, 60, 40, 25, 12, 8, 5, 3}
	a := lowRank(300, 120, s0, 1e-6, 7)
	var exact mat.SVD
	if !exact.Factorize(a, mat.SVDThin) {
		t.Fatal("exact SVD did not converge")
	}
	se := exact.Values(nil)
	var ve mat.Dense
	exact.VTo(&ve)
	for _, f := range []Factor{FactorTransposed, FactorDirect} {
		u, s, v, err := RandomizedSVD(Dense{a}, 8, rand.New(rand.NewPCG(3, 4)), SVDOptions{PowerIters: 2, Factor: f, WantU: true})
		if err != nil {
			t.Fatal(err)
		}
		for j := range s {
			if math.Abs(s[j]-se[j]) > 1e-8*se[0] {
				t.Errorf("factor %d: σ_%d = %g, exact %g", f, j, s[j], se[j])
			}
			var dot float64
			for i := 0; i < 120; i++ {
				dot += v.At(i, j) * ve.At(i, j)
			}
			if math.Abs(math.Abs(dot)-1) > 1e-8 {
				t.Errorf("factor %d: |⟨v_%d, exact⟩| = %g, want 1", f, j, math.Abs(dot))
			}
		}
		var us, rec mat.Dense
		us.Mul(u, mat.NewDiagDense(len(s), s))
		rec.Mul(&us, v.T())
		if !mat.EqualApprox(&rec, a, 1e-4) {
			t.Errorf("factor %d: U·Σ·Vᵀ does not reproduce A", f)
		}
		u2, s2, v2, _ := RandomizedSVD(Dense{a}, 8, rand.New(rand.NewPCG(3, 4)), SVDOptions{PowerIters: 2, Factor: f, WantU: true})
		if !mat.Equal(u, u2) || !mat.Equal(v, v2) || !equal(s, s2) {
			t.Errorf("factor %d: two runs with the same seed differ", f)
		}
		_, _, v3, _ := RandomizedSVD(Dense{a}, 8, rand.New(rand.NewPCG(3, 4)), SVDOptions{PowerIters: 2, Factor: f})
		if !mat.Equal(v, v3) {
			t.Errorf("factor %d: V depends on WantU", f)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestFactorDirectProduct pins FactorDirect's premise: for a dense operator
// the transpose of Aᵀ·Q (the operator's product) is bit for bit gonum's Qᵀ·A,
// so forming B through the operator keeps the bits of forming it directly.
func TestFactorDirectProduct(t *testing.T) {
	for _, sz := range [][3]int{{50, 300, 12}, {700, 400, 60}, {3000, 600, 60}} {
		a := lowRank(sz[0], sz[1], []float64{5, 3, 2, 1}, 0.1, uint64(sz[0]))
		q := RangeFinder(Dense{a}, sz[2], 1, rand.New(rand.NewPCG(1, 1)))
		bt := mat.NewDense(sz[1], sz[2], nil)
		Dense{a}.MulTo(bt, true, q)
		var b mat.Dense
		b.Mul(q.T(), a)
		if !mat.Equal(bt.T(), &b) {
			t.Errorf("%d×%d, l = %d: (AᵀQ)ᵀ and QᵀA differ in the bits", sz[0], sz[1], sz[2])
		}
	}
}

// TestRandomizedSVDCheck: Check's error stops the SVD and is returned.
func TestRandomizedSVDCheck(t *testing.T) {
	a := lowRank(60, 40, []float64{3, 2, 1}, 0.01, 2)
	stop := errors.New("stop")
	for _, after := range []int{0, 1, 3, 6} {
		calls := 0
		check := func() error {
			calls++
			if calls > after {
				return stop
			}
			return nil
		}
		_, _, _, err := RandomizedSVD(Dense{a}, 3, rand.New(rand.NewPCG(1, 1)), SVDOptions{PowerIters: 2, Check: check})
		if after < 6 && !errors.Is(err, stop) {
			t.Errorf("stop after %d checks: err = %v", after, err)
		}
		if after == 6 && err != nil {
			t.Errorf("2 iterations make 6 products, yet err = %v", err)
		}
	}
}

// TestRandomizedSVDRank: a rank outside [1, min(r, c)] panics.
func TestRandomizedSVDRank(t *testing.T) {
	a := mat.NewDense(5, 3, nil)
	for _, k := range []int{0, 4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("rank %d: no panic", k)
				}
			}()
			_, _, _, _ = RandomizedSVD(Dense{a}, k, rand.New(rand.NewPCG(1, 1)), SVDOptions{})
		}()
	}
}

// TestSignByLargest: each column's largest-magnitude entry (the first of
// equal ones) ends positive; a zero column is left alone.
func TestSignByLargest(t *testing.T) {
	m := mat.NewDense(3, 4, []float64{
		1, -2, 0, 3,
		-5, 1, 0, -3,
		2, 2, 0, 1,
	})
	SignByLargest(m)
	want := mat.NewDense(3, 4, []float64{
		-1, 2, 0, 3,
		5, -1, 0, -3,
		-2, -2, 0, 1,
	})
	if !mat.Equal(m, want) {
		t.Errorf("got\n%v\nwant\n%v", mat.Formatted(m), mat.Formatted(want))
	}
}

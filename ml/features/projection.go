package features

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ScoresTo sets dst (length Out) to the unscaled PCA scores (x − Mean)ᵀ·W of a
// dense input x (length In). It panics on a length mismatch.
func (p *Projection) ScoresTo(dst, x []float64) {
	if len(x) != p.In || len(dst) != p.Out {
		panic(fmt.Sprintf("features: Projection %d→%d given x %d, dst %d", p.In, p.Out, len(x), len(dst)))
	}
	copy(dst, p.MeanW)
	for j := range dst {
		dst[j] = -dst[j]
	}
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		wi := p.W[i*p.Out : (i+1)*p.Out]
		for j := range dst {
			dst[j] += xi * wi[j]
		}
	}
}

// SparseScoresTo is ScoresTo for a sparse input given by its nonzero entries
// x[ind[k]] = val[k]. It panics on an index outside [0, In) or a length mismatch.
func (p *Projection) SparseScoresTo(dst []float64, ind []int, val []float64) {
	if len(dst) != p.Out || len(ind) != len(val) {
		panic("features: SparseScoresTo length mismatch")
	}
	for j := range dst {
		dst[j] = -p.MeanW[j]
	}
	for k, i := range ind {
		xi := val[k]
		wi := p.W[i*p.Out : (i+1)*p.Out]
		for j := range dst {
			dst[j] += xi * wi[j]
		}
	}
}

// Scale maps scores z (length Out) in place to the scaled features
// 2·(z − Lo)/(Hi − Lo) − 1 (0 for a component with Hi = Lo).
func (p *Projection) Scale(z []float64) {
	for j := range z {
		if w := p.Hi[j] - p.Lo[j]; w > 0 {
			z[j] = 2*(z[j]-p.Lo[j])/w - 1
		} else {
			z[j] = 0
		}
	}
}

// TransformTo sets dst (length Out) to the decorrelated, scaled features of the
// dense input x (length In): Scale(ScoresTo(x)).
func (p *Projection) TransformTo(dst, x []float64) {
	p.ScoresTo(dst, x)
	p.Scale(dst)
}

// SparseTransformTo is TransformTo for a sparse input.
func (p *Projection) SparseTransformTo(dst []float64, ind []int, val []float64) {
	p.SparseScoresTo(dst, ind, val)
	p.Scale(dst)
}

// TransformRowsTo transforms every row of x (n×In) into the rows of dst (n×Out).
func (p *Projection) TransformRowsTo(dst, x *mat.Dense) {
	n, c := x.Dims()
	dn, dc := dst.Dims()
	if c != p.In || dn != n || dc != p.Out {
		panic(fmt.Sprintf("features: TransformRowsTo: x %d×%d, dst %d×%d, projection %d→%d", n, c, dn, dc, p.In, p.Out))
	}
	for i := 0; i < n; i++ {
		p.TransformTo(dst.RawRowView(i), x.RawRowView(i))
	}
}

// Explained returns the fraction of the training variance kept, Σ Variance /
// TotalVariance (NaN when TotalVariance is 0, i.e. unknown).
func (p *Projection) Explained() float64 {
	if p.TotalVariance <= 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range p.Variance {
		s += v
	}
	return s / p.TotalVariance
}

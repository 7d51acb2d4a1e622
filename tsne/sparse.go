package tsne

import "math"

// attractive computes, for points lo..hi-1, the attractive term
// a_i = Σ_j p_ij w_ij (y_i − y_j) with w_ij = (1+‖y_i−y_j‖²)⁻¹ into attr and,
// when wantKL, returns Σ_ij p_ij ln w_ij over those rows.
func (P *csr) attractive(y, attr []float64, lo, hi int, wantKL bool) float64 {
	slw := 0.0
	for i := lo; i < hi; i++ {
		yi0, yi1 := y[2*i], y[2*i+1]
		var a0, a1 float64
		cols := P.col[P.ptr[i]:P.ptr[i+1]]
		vals := P.val[P.ptr[i]:P.ptr[i+1]]
		vals = vals[:len(cols)]
		for t, j := range cols {
			d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
			q := 1 + d0*d0 + d1*d1
			pw := vals[t] / q
			a0 += pw * d0
			a1 += pw * d1
			if wantKL {
				slw -= vals[t] * math.Log(q)
			}
		}
		attr[2*i], attr[2*i+1] = a0, a1
	}
	return slw
}

// plogp returns Σ p_ij ln p_ij over the non-zeros.
func (P *csr) plogp() float64 {
	s := 0.0
	for _, v := range P.val {
		if v > 0 {
			s += v * math.Log(v)
		}
	}
	return s
}

package tsne

import "math"

// attractive computes, for points lo..hi-1, the attractive term
// a_i = Σ_j p_ij w_ij (y_i − y_j) with w_ij = (1+‖y_i−y_j‖²)⁻¹ into attr and,
// when wantKL, returns Σ_ij p_ij ln w_ij over those rows.
//
// Entries are taken in pairs sharing one division: with q₁, q₂ ≥ 1,
// 1/q₁ = q₂·r and 1/q₂ = q₁·r for r = 1/(q₁q₂), which is exact up to a few
// rounding errors and halves the divisions, the costliest operation here.
func (P *csr) attractive(y, attr []float64, lo, hi int, wantKL bool) float64 {
	slw := 0.0
	for i := lo; i < hi; i++ {
		yi0, yi1 := y[2*i], y[2*i+1]
		var a0, a1 float64
		cols := P.col[P.ptr[i]:P.ptr[i+1]]
		vals := P.val[P.ptr[i]:P.ptr[i+1]]
		vals = vals[:len(cols)]
		t := 0
		for ; t+1 < len(cols); t += 2 {
			j, l := int(cols[t]), int(cols[t+1])
			d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
			e0, e1 := yi0-y[2*l], yi1-y[2*l+1]
			q := 1 + d0*d0 + d1*d1
			s := 1 + e0*e0 + e1*e1
			r := 1 / (q * s)
			pw := float64(vals[t]) * (s * r)
			pv := float64(vals[t+1]) * (q * r)
			a0 += pw*d0 + pv*e0
			a1 += pw*d1 + pv*e1
		}
		if t < len(cols) {
			j := int(cols[t])
			d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
			pw := float64(vals[t]) / (1 + d0*d0 + d1*d1)
			a0 += pw * d0
			a1 += pw * d1
		}
		attr[2*i], attr[2*i+1] = a0, a1
		if wantKL {
			for t, j := range cols {
				d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
				slw -= float64(vals[t]) * math.Log(1+d0*d0+d1*d1)
			}
		}
	}
	return slw
}

// plogp returns Σ p_ij ln p_ij over the non-zeros.
func (P *csr) plogp() float64 {
	s := 0.0
	for _, v := range P.val {
		if v > 0 {
			s += float64(v) * math.Log(float64(v))
		}
	}
	return s
}

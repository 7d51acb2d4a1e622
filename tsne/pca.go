package tsne

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// initStd is the standard deviation of the first coordinate of the initial
// embedding (scikit-learn and openTSNE scale the PCA initialisation to it).
const initStd = 1e-4

// pcaInit writes to y (flat n×2) the projection of the centred x (flat n×d)
// on its two leading principal axes, scaled so that the first coordinate has
// standard deviation 1e-4. Each axis's sign is fixed so that its
// largest-magnitude loading is positive, making the result deterministic. If
// the data have fewer than two non-degenerate directions, the missing
// coordinates are Gaussian noise from seed with the same scale.
func pcaInit(x []float64, n, d int, y []float64, seed uint64) {
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	xc := mat.NewDense(n, d, nil)
	raw := xc.RawMatrix().Data
	for i := 0; i < n; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			raw[i*d+j] = v - mean[j]
		}
	}
	var cov mat.SymDense
	cov.SymOuterK(1/float64(n-1), xc.T())
	var eig mat.EigenSym
	ok := eig.Factorize(&cov, true)
	comps := 0
	var vecs mat.Dense
	if ok {
		eig.VectorsTo(&vecs)
		vals := eig.Values(nil) // ascending
		top := vals[len(vals)-1]
		for c := 0; c < 2 && c < d; c++ {
			j := d - 1 - c
			if vals[j] <= 1e-12*math.Max(top, 0) || vals[j] <= 0 {
				break
			}
			comps++
		}
	}
	for c := 0; c < comps; c++ {
		col := d - 1 - c
		best, sign := 0.0, 1.0
		for r := 0; r < d; r++ {
			if v := vecs.At(r, col); math.Abs(v) > best {
				best = math.Abs(v)
				if v < 0 {
					sign = -1
				} else {
					sign = 1
				}
			}
		}
		for i := 0; i < n; i++ {
			s := 0.0
			for r := 0; r < d; r++ {
				s += raw[i*d+r] * vecs.At(r, col)
			}
			y[2*i+c] = sign * s
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x7473_6e65_696e_6974))
	for c := comps; c < 2; c++ {
		for i := 0; i < n; i++ {
			y[2*i+c] = rng.NormFloat64()
		}
	}
	// Scale both coordinates by the same factor: std of the first is 1e-4.
	m, s := 0.0, 0.0
	for i := 0; i < n; i++ {
		m += y[2*i]
	}
	m /= float64(n)
	for i := 0; i < n; i++ {
		s += (y[2*i] - m) * (y[2*i] - m)
	}
	std := math.Sqrt(s / float64(n))
	if comps == 1 {
		// Noise in the second coordinate gets the same spread as the first.
		for i := 0; i < n; i++ {
			y[2*i+1] *= std
		}
	}
	for i := range y {
		y[i] *= initStd / std
	}
}

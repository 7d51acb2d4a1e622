package tsne

import (
	"math/rand/v2"
	"testing"
)

// TestRepulsionApprox checks the Barnes-Hut and FFT repulsive sums and Z
// against the brute-force sums on a spread-out embedding.
func TestRepulsionApprox(t *testing.T) {
	n := 1500
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		c := float64(i%7) * 9
		y[2*i] = c + 2*rng.NormFloat64()
		y[2*i+1] = float64(i%3)*12 + 3*rng.NormFloat64()
	}
	wantR, wantZ := exactRepulsion(y)
	P := &csr{ptr: make([]int, n+1)}

	bh := newBHGrad(P, n, 0.5, 2)
	bh.tree.build(y, n)
	gotR := make([]float64, 2*n)
	gotZ := 0.0
	for i := 0; i < n; i++ {
		r0, r1, z, _ := bh.tree.repulse(y[2*i], y[2*i+1], int32(i), 0.25, nil)
		gotR[2*i], gotR[2*i+1] = r0, r1
		gotZ += z
	}
	t.Logf("bh: force rel err %.2e, Z rel err %.2e", relErr(gotR, wantR), (gotZ-wantZ)/wantZ)

	f := newFFTGrad(P, n, 2)
	z := f.repulsive(y)
	for i := 0; i < n; i++ {
		y0, y1 := y[2*i]-f.c0, y[2*i+1]-f.c1
		gotR[2*i] = y0*f.phi[4*i] - f.phi[4*i+1]
		gotR[2*i+1] = y1*f.phi[4*i] - f.phi[4*i+2]
	}
	t.Logf("fft: m=%d nodes=%d force rel err %.2e, Z rel err %.2e", f.m, f.nodes, relErr(gotR, wantR), (z-wantZ)/wantZ)
}

package ce

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/nn"
)

// eachScreenKernels runs f as a subtest for every set of screening kernels
// this processor runs, with screen set to it, and skips without any.
func eachScreenKernels(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	sets := screenKernelSets()
	if len(sets) == 0 {
		t.Skip("no AVX-512 and no AVX2 with FMA: evaluation does not screen")
	}
	saved := screen
	t.Cleanup(func() { screen = saved })
	for _, k := range sets {
		screen = k
		t.Run(k.name, f)
	}
}

// TestTanh32 measures the absolute error of the single-precision tanh kernel
// against math.Tanh over float32 inputs spread across [−20, 20] (every one of
// them near 0, where the error is relative) and checks it is within the
// tanh32Err the screening bound assumes.
func TestTanh32(t *testing.T) {
	eachScreenKernels(t, testTanh32)
}

func testTanh32(t *testing.T) {
	const cols = 4096
	src := make([]float32, cols)
	dst := make([]float32, cols)
	zero := []float32{0}
	worst, at := 0.0, float32(0)
	check := func() {
		screen.tanh(&dst[0], &src[0], 0, 0, &zero[0], 1, cols)
		for i, x := range src {
			e := math.Abs(float64(dst[i]) - math.Tanh(float64(x)))
			if !(e <= worst) {
				worst, at = e, x
			}
		}
	}
	// Every 97th float32 from 0 to 20 and its negative.
	n := 0
	for b := uint32(0); math.Float32frombits(b) <= 20; b += 97 {
		x := math.Float32frombits(b)
		src[n] = x
		if n+1 < cols {
			src[n+1] = -x
		}
		n += 2
		if n >= cols {
			check()
			n = 0
		}
	}
	for i := n; i < cols; i++ {
		src[i] = 0
	}
	check()
	t.Logf("largest error %.3g at x = %g (bound %.3g)", worst, at, tanh32Err)
	// A sum that overflowed, or a NaN, still comes out in [−1, 1] (the
	// kernel clamps its input first): the screened distances stay finite.
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32}
	clear(src)
	copy(src, special)
	screen.tanh(&dst[0], &src[0], 0, 0, &zero[0], 1, 16)
	for i, x := range special {
		if y := dst[i]; !(y >= -1 && y <= 1) {
			t.Fatalf("tanh32(%v) = %v, want a value in [−1, 1]", x, y)
		}
	}
	if !(worst <= tanh32Err/2) {
		t.Fatalf("tanh32: error %.3g at x = %g, more than half the bound %.3g", worst, at, tanh32Err)
	}
}

// TestTanh32Every runs the single-precision tanh over every one of the 2³²
// float32 values (NaNs and infinities included) and checks what the screening
// bound assumes of it: an absolute error at most half of tanh32Err for every
// finite input, and an output in [−1, 1] for every input. About half a
// minute of one core, so only with TAGLENS_TANH32_EVERY=1.
func TestTanh32Every(t *testing.T) {
	if os.Getenv("TAGLENS_TANH32_EVERY") != "1" {
		t.Skip("set TAGLENS_TANH32_EVERY=1 to run the tanh kernel over every float32")
	}
	eachScreenKernels(t, testTanh32Every)
}

func testTanh32Every(t *testing.T) {
	const cols = 1 << 16
	src, dst := make([]float32, cols), make([]float32, cols)
	zero := []float32{0}
	worst, at := 0.0, float32(0)
	for hi := range uint32(1 << 16) {
		for i := range src {
			src[i] = math.Float32frombits(hi<<16 | uint32(i))
		}
		screen.tanh(&dst[0], &src[0], 0, 0, &zero[0], 1, cols)
		for i, x := range src {
			y := dst[i]
			if !(y >= -1 && y <= 1) {
				t.Fatalf("tanh32(%v) = %v, outside [−1, 1]", x, y)
			}
			if x != x {
				continue
			}
			if e := math.Abs(float64(y) - math.Tanh(float64(x))); e > worst {
				worst, at = e, x
			}
		}
	}
	t.Logf("largest error over every float32: %.4g at x = %v", worst, at)
	if !(worst <= tanh32Err/2) {
		t.Fatalf("largest error %.4g at x = %v, more than half of %.3g", worst, at, tanh32Err)
	}
}

// randomEmbedder builds an embedder of the given hidden widths over v random
// terms, with weights of the scale of trained ones (non-zero biases too).
func randomEmbedder(seed uint64, hidden []int, v int, scale float64) (*embedder, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	const dt, dc = 12, 6
	sizes := append(append([]int{dt + dc}, hidden...), v)
	net := nn.NewMLP(sizes, rng)
	for i := range net.Params {
		net.Params[i] = scale * (net.Params[i] + 0.1*rng.NormFloat64())
	}
	termX := make([][]float64, v)
	for i := range termX {
		termX[i] = make([]float64, dt)
		for j := range termX[i] {
			termX[i][j] = 2*rng.Float64() - 1
		}
	}
	ctx := make([]float64, dc)
	for j := range ctx {
		ctx[j] = 2*rng.Float64() - 1
	}
	return newEmbedder(sizes, net.Params, termX, dc, 0), ctx
}

// TestKernelScreenBound checks the screening pass against the exact one: every
// single-precision distance within eps of the exact distance, over networks
// of one to three hidden layers, widths that are not multiples of the tiles,
// vocabularies of several blocks with a partial last one, and large weights.
func TestKernelScreenBound(t *testing.T) {
	eachScreenKernels(t, testScreenBound)
}

func testScreenBound(t *testing.T) {
	for _, tc := range []struct {
		hidden []int
		v      int
		scale  float64
	}{
		{[]int{20}, 70, 1},
		{[]int{20, 10}, 300, 1},
		{[]int{100, 100, 50}, 700, 1},
		{[]int{37, 29, 11}, 513, 3},
	} {
		e, ctx := randomEmbedder(uint64(tc.v), tc.hidden, tc.v, tc.scale)
		v, d := e.v, e.ceDim()
		exact := make([]float64, v*d)
		e.embedVocab(exact, ctx)
		queries := []int{0, 5, v / 2, v - 1}
		qce := make([]float64, len(queries)*d)
		for i, q := range queries {
			copy(qce[i*d:(i+1)*d], exact[q*d:(q+1)*d])
		}
		s := e.screener()
		w := s.work(len(queries))
		cp := make([]float64, e.sizes[1])
		e.ctxPreTo(cp, ctx)
		eps := s.bound(w, cp)
		got := make([]float64, len(queries)*v)
		s.distances(w, got, v, cp, qce, len(queries))
		worst := 0.0
		for i, q := range queries {
			for j := 0; j < v; j++ {
				want := euclid(exact[q*d:(q+1)*d], exact[j*d:(j+1)*d])
				if err := math.Abs(got[i*v+j] - want); !(err <= eps) {
					t.Fatalf("hidden %v: distance %d–%d = %v, exact %v: error %.3g above eps %.3g", tc.hidden, q, j, got[i*v+j], want, err, eps)
				} else {
					worst = max(worst, err)
				}
			}
		}
		t.Logf("hidden %v, %d terms: eps %.3g, largest error %.3g (%.1f%% of eps)", tc.hidden, v, eps, worst, 100*worst/eps)
		if worst == 0 {
			t.Fatalf("hidden %v: no error at all: the screening pass did not run in single precision", tc.hidden)
		}
	}
}

// TestScreenUseful checks that screening declines a network with a weight
// outside float32's range, where the single-precision pass would overflow
// while the bound, in float64, stays finite; and takes one of ordinary scale.
func TestScreenUseful(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		want  bool
	}{{1, true}, {1e39, false}, {1e30, false}} {
		e, ctx := randomEmbedder(7, []int{20, 10}, 70, 1)
		// Only the last layer's weights and biases scaled: layer 1's
		// pre-activations keep their ordinary size.
		h := len(e.sizes) - 2
		for i := e.layout.W[h]; i < e.layout.B[h]+e.sizes[h]; i++ {
			e.params[i] *= tc.scale
		}
		s := newScreener(e)
		w := s.work(1)
		cp := make([]float64, e.sizes[1])
		e.ctxPreTo(cp, ctx)
		eps := s.bound(w, cp)
		if got := s.useful(eps); got != tc.want {
			t.Errorf("weights ×%g: eps %.3g, useful %v, want %v", tc.scale, eps, got, tc.want)
		}
	}
}

// TestKernelScreenDistancesExact checks the contract eval relies on: the queries'
// and the named terms' columns are Distances' values bit for bit, every other
// within eps, and refine makes the named columns Distances' values.
func TestKernelScreenDistancesExact(t *testing.T) {
	eachScreenKernels(t, testScreenDistancesExact)
}

func testScreenDistancesExact(t *testing.T) {
	tc, m := trainSmall(t)
	v := m.vocab.Len()
	for _, variant := range Variants {
		em := m.EvalModel(variant).(*evalModel)
		for _, i := range tc.split.Test[:20] {
			doc, _ := m.vocab.Encode(tc.c.Docs[i])
			queries := doc[:len(doc)-1] // the last term named, not a query
			want := make([]float64, len(queries)*v)
			em.Distances(doc, queries, nil, want)
			got := make([]float64, len(queries)*v)
			eps, refine, ok := em.ScreenDistances(doc, queries, doc, nil, got)
			if !ok {
				t.Fatal("ScreenDistances declined")
			}
			for q := range queries {
				for j := 0; j < v; j++ {
					g, w := got[q*v+j], want[q*v+j]
					if slices.Contains(doc, j) && math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("%s: document term %d: %v, Distances %v", variant, j, g, w)
					}
					if !(math.Abs(g-w) <= eps) {
						t.Fatalf("%s: term %d: %v, Distances %v, beyond eps %.3g", variant, j, g, w, eps)
					}
				}
			}
			var rest []int
			for j := 0; j < v; j++ {
				if !slices.Contains(doc, j) {
					rest = append(rest, j)
				}
			}
			refine(rest)
			for k := range got {
				if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
					t.Fatalf("%s: after refine, entry %d = %v, Distances %v", variant, k, got[k], want[k])
				}
			}
		}
	}
}

// TestKernelScreenGemmDist checks the product and distance kernels of each
// set against float64 sums of the same float32 values, within the inner
// product bound γ_k·Σ|w||z| (Higham §3.1), over tiles whose strides are not
// the inputs' widths; and, where the processor runs more than one set, that
// they give the same bits (the same fused multiply-adds in the same order).
func TestKernelScreenGemmDist(t *testing.T) {
	sets := screenKernelSets()
	if len(sets) == 0 {
		t.Skip("no AVX-512 and no AVX2 with FMA: evaluation does not screen")
	}
	rng := rand.New(rand.NewPCG(5, 8))
	const k, zs, cs, wrs = 37, 96, 40, 41 // strides in float32s
	w := make([]float32, 8*wrs)
	z := make([]float32, k*zs)
	for i := range w {
		w[i] = float32(2*rng.Float64() - 1)
	}
	for i := range z {
		z[i] = float32(2*rng.Float64() - 1)
	}
	const d, cols, ces = 13, 128, 136
	ce := make([]float32, d*ces)
	q := make([]float32, d)
	for i := range ce {
		ce[i] = float32(2*rng.Float64() - 1)
	}
	for i := range q {
		q[i] = float32(2*rng.Float64() - 1)
	}
	var firstC, firstD []float32
	for _, set := range sets {
		c := make([]float32, 8*cs)
		set.gemm(k, &w[0], wrs*4, &z[0], zs*4, &c[0], cs*4)
		g := float64(k) * u32 / (1 - float64(k)*u32)
		for o := 0; o < 8; o++ {
			for j := 0; j < cs; j++ {
				if j >= 32 {
					if c[o*cs+j] != 0 {
						t.Fatalf("%s: gemm wrote C[%d][%d] outside the tile", set.name, o, j)
					}
					continue
				}
				var sum, abs float64
				for p := 0; p < k; p++ {
					x := float64(w[o*wrs+p]) * float64(z[p*zs+j])
					sum += x
					abs += math.Abs(x)
				}
				if e := math.Abs(float64(c[o*cs+j]) - sum); !(e <= g*abs+1e-12) {
					t.Fatalf("%s: gemm C[%d][%d] = %v, float64 sum %v: error %.3g above %.3g", set.name, o, j, c[o*cs+j], sum, e, g*abs)
				}
			}
		}
		out := make([]float32, cols)
		set.dist(&ce[0], ces*4, &q[0], d, &out[0], cols)
		for j := 0; j < cols; j++ {
			var ss float64
			for i := 0; i < d; i++ {
				x := float64(ce[i*ces+j]) - float64(q[i])
				ss += x * x
			}
			want := math.Sqrt(ss)
			if e := math.Abs(float64(out[j]) - want); !(e <= float64(d+4)*u32*2*want+1e-7) {
				t.Fatalf("%s: dist[%d] = %v, float64 %v", set.name, j, out[j], want)
			}
		}
		if firstC == nil {
			firstC, firstD = c, out
			continue
		}
		if !slices.Equal(c, firstC) || !slices.Equal(out, firstD) {
			t.Fatalf("%s: gemm or dist differs from %s's bits", set.name, sets[0].name)
		}
	}
}

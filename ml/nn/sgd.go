package nn

import "fmt"

// SGD is mini-batch stochastic gradient descent with the step-wise learning-rate
// decay of Appendix A.4:
//
//	θ_{t+1} = θ_t - η_t ∇L(t),   η_{t+1} = Decay·η_t if t mod DecayEvery = 0, else η_t,
//
// optionally with classical momentum v ← μv - η∇L, θ ← θ + v (off by default, as in the
// paper). The zero value is not usable: set LearningRate. The first Step fixes the
// parameter count.
type SGD struct {
	// LearningRate is the initial rate η_0 (the paper used 1e-4 for MagTag5K and 1e-5
	// for CAL500 and Corel5K, §5.2). It must be positive.
	LearningRate float64
	// Decay is the factor applied every DecayEvery steps; zero means 0.95 (A.4).
	Decay float64
	// DecayEvery is the number of steps between decays; zero means 200 (A.4). §5.2
	// decays every 10 epochs in stage 1 (set 10·batches per epoch) and every 10
	// mini-batches in stage 2.
	DecayEvery int
	// Momentum is μ; zero disables momentum.
	Momentum float64
	// Average, if in (0, 1), keeps an exponential moving average of the
	// parameters, θ̄ ← γ·θ̄ + (1−γ)·θ after every step with γ = Average
	// (Polyak-Ruppert averaging in its exponential form): a smoothed copy of the
	// weights that SGD's last iterate fluctuates around. Averaged returns it.
	// Zero disables averaging.
	Average float64

	t        int
	eta      float64
	velocity []float64
	avg      []float64
	team     team // runs the halves of a large update (split) for Step
}

// Step applies one update θ ← θ - η_t·grad to params in place and advances the
// schedule. It panics if the lengths differ or LearningRate is not positive.
func (s *SGD) Step(params, grad []float64) {
	s.step(params, grad, &s.team)
}

// StepWith is Step run by the helpers of tr, which lingers between its own
// regions: the update does not wake a thread of its own. The result is the same.
func (s *SGD) StepWith(tr *Trainer, params, grad []float64) {
	s.step(params, grad, &tr.team)
}

func (s *SGD) step(params, grad []float64, tm *team) {
	if len(params) != len(grad) {
		panic(fmt.Sprintf("nn: SGD step with %d parameters and %d gradients", len(params), len(grad)))
	}
	if s.t == 0 {
		if !(s.LearningRate > 0) {
			panic("nn: SGD.LearningRate must be positive")
		}
		s.eta = s.LearningRate
	}
	avg := s.Average > 0 && len(s.avg) == len(params) // average in the same pass
	if s.Momentum != 0 {
		if len(s.velocity) != len(params) {
			s.velocity = make([]float64, len(params))
		}
		mu, eta, g := s.Momentum, s.eta, s.Average
		// One pass over the parameters, in two halves run concurrently for
		// large vectors: each element gets the same operations in the same
		// order as a plain loop would give it.
		tm.split(len(params), func(lo, hi int) {
			vel, p, gr := s.velocity[lo:hi], params[lo:hi], grad[lo:hi]
			if !avg {
				for i := range gr {
					v := mu*vel[i] - eta*gr[i]
					vel[i] = v
					p[i] += v
				}
				return
			}
			// The average in the same loop: p[i] is read once (the update is
			// memory-bound), with the operations of the two separate loops.
			a, h := s.avg[lo:hi], 1-g
			a, vel, p = a[:len(gr)], vel[:len(gr)], p[:len(gr)]
			// The same operations eight (AVX-512) or four (AVX2) elements at a
			// time, the rest in Go.
			kern, w := sgdMomAvgAVX2, 4
			if useAVX512 {
				kern, w = sgdMomAvgAVX512, 8
			}
			if useAsm && len(gr) >= w {
				m := len(gr) &^ (w - 1)
				c := [4]float64{mu, eta, g, h}
				kern(&p[0], &vel[0], &a[0], &gr[0], m, &c)
				a, vel, p, gr = a[m:], vel[m:], p[m:], gr[m:]
			}
			// Each product rounded before the sum (never fused), as
			// sgdMomAvgAVX512 does.
			for i := range gr {
				v := float64(mu*vel[i]) - float64(eta*gr[i])
				vel[i] = v
				pi := p[i] + v
				p[i] = pi
				a[i] = float64(g*a[i]) + float64(h*pi)
			}
		})
	} else {
		eta, g := s.eta, s.Average
		tm.split(len(params), func(lo, hi int) {
			axpyUnitary(-eta, grad[lo:hi], params[lo:hi])
			if avg {
				a, p := s.avg[lo:hi], params[lo:hi]
				for i, v := range p {
					a[i] = g*a[i] + (1-g)*v
				}
			}
		})
	}
	if s.Average > 0 && !avg {
		s.avg = append(s.avg[:0], params...)
	}
	s.t++
	every := s.DecayEvery
	if every == 0 {
		every = 200
	}
	if s.t%every == 0 {
		decay := s.Decay
		if decay == 0 {
			decay = 0.95
		}
		s.eta *= decay
	}
}

// Rate returns the learning rate the next Step will use.
func (s *SGD) Rate() float64 {
	if s.t == 0 {
		return s.LearningRate
	}
	return s.eta
}

// Averaged returns the moving average of the parameters (see Average), or nil
// before the first step or when averaging is off. The slice is the optimizer's
// own: copy it to keep it past the next Step.
func (s *SGD) Averaged() []float64 { return s.avg }

// Steps returns the number of steps taken.
func (s *SGD) Steps() int { return s.t }

// split calls f on [0, n) and, for large n, on two halves concurrently (an
// element-wise update of a large parameter vector is memory-bound; each element gets
// the same operations either way).
func (t *team) split(n int, f func(lo, hi int)) {
	const minSplit = 1 << 16
	if n < minSplit {
		f(0, n)
		return
	}
	t.run(2, func(i int) {
		if i == 0 {
			f(0, n/2)
		} else {
			f(n/2, n)
		}
	})
}

// axpyUnitary sets y += a·x, the product rounded before the sum (the AVX2
// loop gives the Go loop's bits).
func axpyUnitary(a float64, x, y []float64) {
	y = y[:len(x)]
	if useAsm && len(x) >= 4 {
		m := len(x) &^ 3
		axpyAVX2(a, &x[0], &y[0], m)
		x, y = x[m:], y[m:]
	}
	for i, v := range x {
		y[i] += a * v
	}
}

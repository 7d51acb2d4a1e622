package ce

import (
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/taglens/taglens/ml/nn"
)

// An example is one training instance of §4.3.1: a focused term in the local
// context of a training document. A positive example's term belongs to the
// document and its target is BoW(δ); a negative example's term is a random
// vocabulary term not in δ and its target is the complement of BoW(δ).
type example struct {
	term int32 // vocabulary index of the focused term τ
	doc  int32 // index into trainSet.docs (the context δ)
	neg  bool
	// hold, when positive, is 1 + the term left out of the context's mean
	// row instead of ctxTo's rule: the held-out term of a set-ranking group
	// (sampleSetGroups), so that every member sees the context δ ∖ {held}.
	hold int32
	// ctx, when positive, is 1 + the slot of trainSet.loo whose context part
	// replaces the document's l(δ): the context l(δ ∖ {held}) of a completion
	// group (sampleCompletionGroups).
	ctx int32
}

// trainSet holds the inputs of training: the encoded training documents and the
// scaled input parts, so that x(τ,δ) = (termX[τ], ctxX[δ]) is assembled per batch.
type trainSet struct {
	v      int         // |Γ|
	docs   [][]int     // in-vocabulary term ids of each training document, sorted, non-empty
	termX  [][]float64 // |Γ| × dT: PCA-decorrelated, (-1,1)-scaled t(τ) (Eq. 2)
	ctxX   [][]float64 // |Δ| × dC: PCA-decorrelated, (-1,1)-scaled l(δ) (Eq. 3)
	ctxRaw [][]float64 // |Δ| × |Φ|: raw topic proportions p(φ|δ), for the KL of Eq. 6
	multi  []int       // indices of documents with at least two terms (within-document I1 pairs)
	// sum[δ] = Σ_{τ∈δ} termX[τ] when the context part ends with the mean term
	// row (Config.Context = ContextLDAMean), nil otherwise.
	sum [][]float64
	// prod is the width of the product part of the input (the products of
	// the focused term's first components with the context's mean row) with
	// ContextLDAMeanProduct, 0 otherwise.
	prod int
	// balanced selects the class-balanced weights of Eq. 5 (nn.Target.Balanced).
	balanced bool
	// loo holds the context parts l(δ ∖ {p}) of the completion groups of a
	// batch, one slot per group, written by sampleCompletionGroups with
	// looCtx (l of a document through the training PCA and scaling, as
	// inference computes it); nil unless the completion form runs.
	loo    [][]float64
	looCtx func(dst []float64, doc []int)
}

// addMean prepares the mean term row of context c (sum, and prod with
// ContextLDAMeanProduct); nothing for the paper's context.
func (s *trainSet) addMean(c string) {
	if !hasMean(c) {
		return
	}
	dm := meanDim(len(s.termX[0]))
	s.sum = make([][]float64, len(s.docs))
	for i, d := range s.docs {
		s.sum[i] = make([]float64, dm)
		for _, τ := range d {
			floats.Add(s.sum[i], s.termX[τ][:dm])
		}
	}
	if c == ContextLDAMeanProduct {
		s.prod = dm
	}
}

func (s *trainSet) inputDim() int { return len(s.termX[0]) + s.ctxDim() + s.prod }

// ctxDim is the width of the context part: l(δ), and the mean term row with
// ContextLDAMean.
func (s *trainSet) ctxDim() int {
	if s.sum != nil {
		return len(s.ctxX[0]) + len(s.sum[0])
	}
	return len(s.ctxX[0])
}

// ctxTo writes the context part of example e's input into dst (ctxDim): l(δ),
// then with ContextLDAMean the mean of termX over δ less one of its terms: the
// focused term of a positive example (its own row would tell the network that
// τ ∈ δ), and for a negative example the term at position τ mod |δ|, so that
// both kinds see a mean of |δ|−1 rows and the mean's spread says nothing about
// the kind. A one-term document gives zeros.
func (s *trainSet) ctxTo(dst []float64, e example) {
	src := s.ctxX[e.doc]
	if e.ctx > 0 {
		src = s.loo[e.ctx-1]
	}
	dc := copy(dst, src)
	if s.sum == nil {
		return
	}
	mean := dst[dc:]
	d := s.docs[e.doc]
	if len(d) == 1 {
		clear(mean)
		return
	}
	left := int(e.term)
	if e.neg {
		left = d[int(e.term)%len(d)]
	}
	if e.hold > 0 {
		left = int(e.hold - 1)
	}
	own, inv := s.termX[left][:len(mean)], 1/float64(len(d)-1)
	for i, x := range s.sum[e.doc] {
		mean[i] = (x - own[i]) * inv
	}
}

// hasTerm reports whether sorted document d contains term t.
func hasTerm(d []int, t int) bool {
	_, ok := slices.BinarySearch(d, t)
	return ok
}

// negativeTerm draws a vocabulary term not in document d uniformly at random.
// It returns -1 when d holds every term (no negative example exists).
func negativeTerm(d []int, v int, rng *rand.Rand) int {
	if len(d) >= v {
		return -1
	}
	// Draw among the v-len(d) absent terms directly: the k-th absent term.
	k := rng.IntN(v - len(d))
	// d is sorted: walk it, shifting k past every present term ≤ k.
	for _, t := range d {
		if t <= k {
			k++
		} else {
			break
		}
	}
	return k
}

// epochExamples returns the examples of one stage-1 epoch (a validation period)
// in random order. A pass holds every positive example (τ, δ) with τ ∈ δ and for
// each a negative example of the same document with a freshly drawn term not in
// δ (§4.3.1: as many negatives as positives). With limit > 0 the epoch is exactly
// limit examples: the first limit of one shuffled pass on a large corpus, or
// several whole passes (fresh negatives each) and a part of the last on a small
// one, so that an epoch means the same amount of learning on every corpus.
func (s *trainSet) epochExamples(rng *rand.Rand, limit int, buf []example) []example {
	buf = buf[:0]
	for {
		start := len(buf)
		for di, d := range s.docs {
			for _, t := range d {
				buf = append(buf, example{term: int32(t), doc: int32(di)})
				if n := negativeTerm(d, s.v, rng); n >= 0 {
					buf = append(buf, example{term: int32(n), doc: int32(di), neg: true})
				}
			}
		}
		pass := buf[start:]
		rng.Shuffle(len(pass), func(i, j int) { pass[i], pass[j] = pass[j], pass[i] })
		if limit <= 0 || len(buf) >= limit || len(pass) == 0 {
			break
		}
	}
	if limit > 0 && len(buf) > limit {
		buf = buf[:limit]
	}
	return buf
}

// fillInputs writes x(τ,δ) of each example into the rows of x (len(ex) ×
// inputDim, row-major).
func (s *trainSet) fillInputs(ex []example, x []float64) {
	w := s.inputDim()
	for i, e := range ex {
		s.inputTo(x[i*w:(i+1)*w], e)
	}
}

// inputTo writes x(τ,δ) of example e into row (inputDim): the term part
// termX[τ], the context part (ctxTo) and, with ContextLDAMeanProduct, the
// products termX[τ]_i · mean_i of the first prod components with the
// context's mean row (the leave-one-out mean ctxTo wrote).
func (s *trainSet) inputTo(row []float64, e example) {
	dt := len(s.termX[0])
	copy(row[:dt], s.termX[e.term])
	end := dt + s.ctxDim()
	s.ctxTo(row[dt:end], e)
	if s.prod > 0 {
		mean, t := row[end-s.prod:end], s.termX[e.term]
		for i, m := range mean {
			row[end+i] = t[i] * m
		}
	}
}

// targetsTo sets the targets of Eq. 5 for the examples: BoW(δ) (Eq. 4) for a
// positive example, its complement for a negative one (§4.3.1), as nn.Target
// views on the sorted document (no copy).
func (s *trainSet) targetsTo(dst []nn.Target, ex []example) {
	for i, e := range ex {
		dst[i] = nn.Target{Idx: s.docs[e.doc], Complement: e.neg, Balanced: s.balanced}
	}
}

// A pair is one input pair of the Siamese architecture (§4.3.3).
type pair struct {
	a, b example
	kind nn.PairType
}

// samplePairs fills ps with random pairs in the proportion I1 : I2 : I3 = 1 : 1 : 2
// (§5.2): slots 4k and 4k+1 are I1 and I2, slots 4k+2 and 4k+3 are I3.
//
// I1: with probability withinDoc two different terms of one random document with
// at least two terms (same context, D = 1), else two independent random positive
// examples (the paper's random pairing). I2: two independent random negative
// examples. I3: a random positive example and, with probability withinDocI3, a
// negative example synthesised from the same document, else from an independent
// random document.
func (s *trainSet) samplePairs(rng *rand.Rand, withinDoc, withinDocI3 float64, ps []pair) {
	for i := range ps {
		switch i % 4 {
		case 0:
			if len(s.multi) > 0 && rng.Float64() < withinDoc {
				x, y := s.withinDoc(rng)
				ps[i] = pair{a: x, b: y, kind: nn.I1}
			} else {
				ps[i] = pair{a: s.randomPositive(rng), b: s.randomPositive(rng), kind: nn.I1}
			}
		case 1:
			ps[i] = pair{a: s.randomNegative(rng, -1), b: s.randomNegative(rng, -1), kind: nn.I2}
		default:
			p := s.randomPositive(rng)
			nd := -1
			if rng.Float64() < withinDocI3 {
				nd = int(p.doc)
			}
			ps[i] = pair{a: p, b: s.randomNegative(rng, nd), kind: nn.I3}
		}
	}
}

// sampleGroups fills ps with groups of g pairs for the ranking form of the
// distance loss (nn.GroupLoss): per group a random training document with at
// least two terms, an anchor term of it and, as the group's first pair,
// another of its terms; then g−1 pairs of the anchor and a term outside the
// document drawn uniformly (negativeTerm), all in the document's context.
// len(ps) must be a multiple of g.
func (s *trainSet) sampleGroups(rng *rand.Rand, g int, ps []pair) {
	for i := 0; i < len(ps); i += g {
		anchor, other := s.withinDoc(rng)
		ps[i] = pair{a: anchor, b: other, kind: nn.I1}
		d := s.docs[anchor.doc]
		for k := 1; k < g; k++ {
			n := negativeTerm(d, s.v, rng)
			b := example{term: int32(n), doc: anchor.doc, neg: true}
			if n < 0 { // the document holds every term: its other term stands in
				b = other
			}
			ps[i+k] = pair{a: anchor, b: b, kind: nn.I3}
		}
	}
}

// sampleSetGroups fills ps with groups of c·a pairs for the set form of the
// ranking loss (nn.GroupLoss with a anchors): per group a random training
// document with at least two terms, a held-out term p of it, a anchors drawn
// from its other terms (all of them, repeated in turn, when it has a or fewer)
// and c−1 terms outside the document drawn uniformly; candidate p then the
// others, each paired with every anchor, all in the context δ ∖ {p}: the
// completion protocol's situation, where the term to find is not in the
// context. len(ps) must be a multiple of c·a.
func (s *trainSet) sampleSetGroups(rng *rand.Rand, c, a int, ps []pair, idx []int) []int {
	g := c * a
	for i := 0; i < len(ps); i += g {
		di := s.multi[rng.IntN(len(s.multi))]
		d := s.docs[di]
		pi := rng.IntN(len(d))
		hold := int32(d[pi]) + 1
		idx = otherPositions(rng, len(d), pi, a, idx)
		pos := example{term: int32(d[pi]), doc: int32(di), hold: hold}
		for k := range c {
			cand, kind := pos, nn.I1
			if k > 0 {
				if n := negativeTerm(d, s.v, rng); n >= 0 {
					cand, kind = example{term: int32(n), doc: int32(di), neg: true, hold: hold}, nn.I3
				}
			}
			for j := range a {
				an := example{term: int32(d[idx[j%min(a, len(idx))]]), doc: int32(di), hold: hold}
				ps[i+k*a+j] = pair{a: an, b: cand, kind: kind}
			}
		}
	}
	return idx
}

// sampleCompletionGroups fills ex with groups of a + c examples for the
// completion form of the distance loss (nn.SetLoss): per group a random
// training document with at least two terms and a held-out term p of it; a
// anchors, its other terms (a random a of them when it has more, all of them
// repeated in turn when fewer); then c candidates, p and c−1 terms outside the
// document drawn uniformly (negativeTerm; p again when the document holds
// every term), all in the context δ ∖ {p}: l(δ ∖ {p}) inferred for the group
// (looCtx into loo[group]) and the mean row without p. len(ex) must be a
// multiple of a+c, and loo must hold a slot for each group.
func (s *trainSet) sampleCompletionGroups(rng *rand.Rand, a, c int, ex []example, idx []int) []int {
	g := a + c
	var rest []int
	for i := 0; i < len(ex); i += g {
		di := s.multi[rng.IntN(len(s.multi))]
		d := s.docs[di]
		pi := rng.IntN(len(d))
		hold := int32(d[pi]) + 1
		rest = append(append(rest[:0], d[:pi]...), d[pi+1:]...)
		slot := i / g
		s.looCtx(s.loo[slot], rest)
		idx = otherPositions(rng, len(d), pi, a, idx)
		cs := int32(slot + 1)
		for j := range a {
			ex[i+j] = example{term: int32(d[idx[j%min(a, len(idx))]]), doc: int32(di), hold: hold, ctx: cs}
		}
		pos := example{term: int32(d[pi]), doc: int32(di), hold: hold, ctx: cs}
		ex[i+a] = pos
		for k := 1; k < c; k++ {
			e := pos
			if n := negativeTerm(d, s.v, rng); n >= 0 {
				e = example{term: int32(n), doc: int32(di), neg: true, hold: hold, ctx: cs}
			}
			ex[i+a+k] = e
		}
	}
	return idx
}

// otherPositions returns in idx the positions 0..n−1 but pi, the first a of
// them a random a (partial Fisher-Yates) when there are more than a: the
// anchors of a set-ranking or completion group.
func otherPositions(rng *rand.Rand, n, pi, a int, idx []int) []int {
	idx = idx[:0]
	for j := range n {
		if j != pi {
			idx = append(idx, j)
		}
	}
	if len(idx) > a {
		for j := range a {
			k := j + rng.IntN(len(idx)-j)
			idx[j], idx[k] = idx[k], idx[j]
		}
	}
	return idx
}

// withinDoc draws a random training document with at least two terms and
// two different terms of it, as positive examples in its context.
func (s *trainSet) withinDoc(rng *rand.Rand) (x, y example) {
	di := s.multi[rng.IntN(len(s.multi))]
	d := s.docs[di]
	a := rng.IntN(len(d))
	b := rng.IntN(len(d) - 1)
	if b >= a {
		b++
	}
	return example{term: int32(d[a]), doc: int32(di)}, example{term: int32(d[b]), doc: int32(di)}
}

func (s *trainSet) randomPositive(rng *rand.Rand) example {
	di := rng.IntN(len(s.docs))
	d := s.docs[di]
	return example{term: int32(d[rng.IntN(len(d))]), doc: int32(di)}
}

// randomNegative returns a negative example of document di, or of a random
// document when di < 0. Documents holding the whole vocabulary are skipped.
func (s *trainSet) randomNegative(rng *rand.Rand, di int) example {
	for tries := 0; ; tries++ {
		if di < 0 || tries > 0 {
			di = rng.IntN(len(s.docs))
		}
		if t := negativeTerm(s.docs[di], s.v, rng); t >= 0 {
			return example{term: int32(t), doc: int32(di), neg: true}
		}
		if tries > 1000 {
			panic("ce: every training document holds the whole vocabulary")
		}
	}
}

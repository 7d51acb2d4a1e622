package eval

import (
	"math"
	"slices"
)

// settle completes a screening model's distances (ScreeningModel): dist holds
// values within eps of the exact ones, exact in the columns of doc's terms.
// For every protocol of ps it finds the terms outside doc whose score (the
// row's distance under Priming, the minimum over the queries under Extended)
// is NaN or lies within eps of the score of one of doc's terms, and has the
// model write their exact distances. Any other term's exact score lies on the
// same side of every relevant score as its screened one (for Extended: if
// every distance of the term moves by at most eps without crossing a value,
// so does their minimum), so RanksTo counts the same.
func (w *worker) settle(ps []Protocol, doc, queries []int, dist []float64, eps float64, refine func([]int)) {
	v := w.v
	if w.stamp++; w.stamp == 0 {
		clear(w.mark)
		w.stamp = 1
	}
	for _, r := range doc {
		w.mark[r] = w.stamp
	}
	unsure := w.unsure[:0]
	flag := func(j int) {
		if w.mark[j] != w.stamp {
			w.mark[j] = w.stamp
			unsure = append(unsure, j)
		}
	}
	// near reports whether x is NaN or within eps of a value of the sorted s.
	near := func(s []float64, x float64) bool {
		if math.IsNaN(x) {
			return true
		}
		k, _ := slices.BinarySearch(s, x-eps)
		return k < len(s) && s[k] <= x+eps
	}
	// check flags the terms whose score in list (a row of distances, or Eq.
	// 9's minima) is near a relevant term's; every term of list when a
	// relevant score is NaN.
	check := func(list []float64) {
		s := w.scores[:0]
		for _, r := range doc {
			s = append(s, list[r])
		}
		if sortScores(s) {
			for j := range list {
				flag(j)
			}
			return
		}
		for j, x := range list {
			if w.mark[j] != w.stamp && near(s, x) {
				flag(j)
			}
		}
	}
	for _, p := range ps {
		switch p {
		case Priming:
			for q := range queries {
				check(dist[q*v : (q+1)*v])
			}
		case Extended:
			mn := w.min
			for j := range mn {
				mn[j] = math.Inf(1)
			}
			for q, t := range queries {
				row := dist[q*v : (q+1)*v]
				MinRow(mn, row, t)
				// A NaN never wins minRow, so the minimum without it need not
				// be within eps of the exact one: settle its term.
				for j, d := range row {
					if d != d && j != t {
						flag(j)
					}
				}
			}
			check(mn)
		}
	}
	w.unsure = unsure
	refine(unsure)
}

// MinRow sets mn[j] = row[j] where row[j] < mn[j], for every j but skip: one
// query's step of Eq. 9's minimum over t̂ ∈ δ, t̂ ≠ τ_j (row holds the
// distances of the query skip to every term; mn starts at +Inf). A NaN
// distance never wins. Every Eq. 9 list of taglens is built with it.
func MinRow(mn, row []float64, skip int) {
	if !useCountCmp {
		for j, d := range row[:len(mn)] {
			if d < mn[j] && j != skip {
				mn[j] = d
			}
		}
		return
	}
	keep := mn[skip]
	minInto(mn, row)
	mn[skip] = keep
}

// sortScores sorts s and reports whether it holds a NaN.
func sortScores(s []float64) (nan bool) {
	for _, x := range s {
		if math.IsNaN(x) {
			return true
		}
	}
	slices.Sort(s)
	return false
}

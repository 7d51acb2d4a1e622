package features

import (
	"fmt"
	"math"
	"slices"
)

// DocFreq returns df(τ) = |{δ ∈ docs : τ appears in δ}| for every term 0..v-1.
// A term repeated within a document counts once. It panics if a term is outside [0, v).
func DocFreq(docs [][]int, v int) []int {
	df := make([]int, v)
	for _, doc := range docs {
		for _, t := range BoW(doc) {
			if t < 0 || t >= v {
				panic(fmt.Sprintf("features: term %d outside vocabulary of %d", t, v))
			}
			df[t]++
		}
	}
	return df
}

// IDF returns the paper's inverted document frequency (§3.1)
//
//	idf(τ) = log(|Δ| / (1 + df(τ)))
//
// for n = |Δ| training documents and the document frequencies df. A term held by
// every document (or by n−1 of them) gets idf ≤ 0 with this formula; the value
// is returned as the formula gives it. It panics if n < 1.
func IDF(n int, df []int) []float64 {
	if n < 1 {
		panic("features: IDF needs at least one document")
	}
	idf := make([]float64, len(df))
	for i, f := range df {
		idf[i] = idfOf(n, f)
	}
	return idf
}

// idfOf is the single place of the §3.1 idf formula.
func idfOf(n, df int) float64 {
	return math.Log(float64(n) / (1 + float64(df)))
}

// BoW returns the Bag-of-Words of a document (Eq. 4) as its support: the sorted,
// distinct term indices i with BoW(δ)[i] = 1. The input is not modified.
func BoW(doc []int) []int {
	b := slices.Clone(doc)
	slices.Sort(b)
	return slices.Compact(b)
}

// Complement returns the sorted indices in [0, v) that are not in the sorted
// set bow: the entries with BoW(δ)[i] = 0 (Eq. 4), the absent terms a negative
// example may substitute (§4.3.1). It panics if bow is not sorted and unique or
// holds an index outside [0, v).
func Complement(bow []int, v int) []int {
	out := make([]int, 0, max(v-len(bow), 0))
	k := 0
	for i := 0; i < v; i++ {
		if k < len(bow) && bow[k] == i {
			k++
			continue
		}
		out = append(out, i)
	}
	if k != len(bow) {
		panic("features: Complement: bow not sorted, not unique or out of range")
	}
	return out
}

// BoWTo fills dst (length v) with the dense ±1 target of Eq. 4 used with a tanh
// output (API contract: absent = −1): dst[i] = +1 if i ∈ bow, else −1. It panics if an
// index of bow is outside dst.
func BoWTo(dst []float64, bow []int) {
	for i := range dst {
		dst[i] = -1
	}
	for _, t := range bow {
		dst[t] = 1
	}
}

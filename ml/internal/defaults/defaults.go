// Package defaults fills in the zero values of option structs: the ml packages
// treat a non-positive count, size or rate as "use the default".
package defaults

// Number is what Positive accepts.
type Number interface {
	~int | ~int64 | ~float64
}

// Positive sets *p to def unless *p is positive. NaN is left as it is, for the
// option's own check to reject.
func Positive[T Number](p *T, def T) {
	if *p <= 0 {
		*p = def
	}
}

package app

import (
	"fmt"
	"strings"

	"github.com/taglens/taglens/ml/ce"
)

// MaxPrimeK is the largest number of primed terms per list that taglens
// prime and the web app accept.
const MaxPrimeK = 1000

// DefaultPrimeK is the number of primed terms per list when none is given.
const DefaultPrimeK = 10

// Priming asks for the terms a tag set primes (paper Eq. 8 and 9).
type Priming struct {
	Variant ce.Variant // network: ce.VariantSiamese (when empty) or ce.VariantCE
	Tags    []string   // the tag set (the document, the context)
	K       int        // terms per list, 1..MaxPrimeK; DefaultPrimeK when zero
}

// Normalize sets the defaults of p, drops blank tags and trims the others,
// and checks the variant, then K (an *InputError).
func (p *Priming) Normalize() error {
	v, err := ce.ParseVariant(string(p.Variant))
	if err != nil {
		return &InputError{Field: "variant", Reason: err.Error()}
	}
	p.Variant = v
	if p.K == 0 {
		p.K = DefaultPrimeK
	}
	if p.K < 1 || p.K > MaxPrimeK {
		return &InputError{Field: "k", Reason: fmt.Sprintf("must be in 1..%d", MaxPrimeK)}
	}
	p.Tags = CleanTags(p.Tags)
	return nil
}

// Prime returns the terms the tag set of p primes with model m: its
// extended-priming list and one list per tag in the vocabulary; tags outside
// it are placed by the concept-based method (ce.Model.Prime). A tag set the
// model cannot place is an *UnplaceableError.
func Prime(m *ce.Model, p Priming) (*ce.PrimeResult, error) {
	if err := p.Normalize(); err != nil {
		return nil, err
	}
	res, err := m.Prime(p.Variant, p.Tags, p.K)
	if err != nil {
		return nil, Unplaceable(err) // no tag of the set in the vocabulary (a *ce.OOVError)
	}
	return res, nil
}

// CleanTags returns the tags of in trimmed, without the blank ones.
func CleanTags(in []string) []string {
	var out []string
	for _, t := range in {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

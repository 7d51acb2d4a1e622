package app

import (
	"errors"
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/ce"
)

func TestPrimingNormalize(t *testing.T) {
	p := Priming{Tags: []string{" rock", "", "  ", "guitar "}}
	if err := p.Normalize(); err != nil {
		t.Fatal(err)
	}
	if p.Variant != ce.VariantSiamese || p.K != DefaultPrimeK || !slices.Equal(p.Tags, []string{"rock", "guitar"}) {
		t.Errorf("normalized %+v", p)
	}
	for _, tt := range []struct {
		p     Priming
		field string
	}{
		{Priming{Variant: "lsa"}, "variant"},
		{Priming{Variant: "lsa", K: -1}, "variant"},
		{Priming{K: -1}, "k"},
		{Priming{K: MaxPrimeK + 1}, "k"},
	} {
		var ie *InputError
		if err := tt.p.Normalize(); !errors.As(err, &ie) || ie.Field != tt.field {
			t.Errorf("%+v: %v, want an InputError of %s", tt.p, err, tt.field)
		}
	}
}

func TestPrime(t *testing.T) {
	m, _, _ := demoModel(t)
	tags := m.Vocabulary().Terms()[:2]
	got, err := Prime(m, Priming{Tags: []string{" " + tags[0], "", tags[1]}, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Prime(ce.VariantSiamese, tags, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Extended, want.Extended) || len(got.Extended) != 3 {
		t.Errorf("extended %v, want %v", got.Extended, want.Extended)
	}
}

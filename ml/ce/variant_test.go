package ce

import (
	"strings"
	"testing"
)

func TestParseVariant(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Variant
		err  string // a substring of the error; "" for none
	}{
		{"ce", VariantCE, ""},
		{" siamese-ce ", VariantSiamese, ""},
		{"", DefaultVariant, ""},
		{"lsa", "", `unknown variant "lsa" (want siamese-ce or ce)`},
		{"CE", "", "want siamese-ce or ce"},
		{"ce-avg", "", "want siamese-ce or ce"}, // an OOV model is not a network
	} {
		got, err := ParseVariant(tt.in)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ParseVariant(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
	for _, v := range OOVVariants {
		if got, err := ParseOOVVariant(string(v)); got != v || err != nil || !v.OOV() {
			t.Errorf("ParseOOVVariant(%q) = %q, %v (OOV %v)", v, got, err, v.OOV())
		}
	}
	for _, s := range []string{"", "ce", "siamese-ce-mean"} {
		if _, err := ParseOOVVariant(s); err == nil || !strings.Contains(err.Error(), "want ce-feature, siamese-ce-feature, ce-avg or siamese-ce-avg") {
			t.Errorf("ParseOOVVariant(%q): %v, want the four OOV models named", s, err)
		}
	}
}

func TestVariantNetwork(t *testing.T) {
	for _, tt := range []struct{ v, net Variant }{
		{VariantCE, VariantCE}, {VariantSiamese, VariantSiamese},
		{VariantCEFeature, VariantCE}, {VariantSiameseFeature, VariantSiamese},
		{VariantCEAvg, VariantCE}, {VariantSiameseAvg, VariantSiamese},
	} {
		if got := tt.v.Network(); got != tt.net {
			t.Errorf("%s.Network() = %s, want %s", tt.v, got, tt.net)
		}
		if tt.v.OOV() == (tt.v == tt.net) {
			t.Errorf("%s.OOV() = %v", tt.v, tt.v.OOV())
		}
	}
	if VariantSiamese.WithOOV(OOVFeature) != VariantSiameseFeature || VariantCE.WithOOV(OOVAvg) != VariantCEAvg {
		t.Error("WithOOV does not name the OOV models")
	}
	if VariantLabel("siamese-ce") != "Siamese-CE" || VariantLabel("lsa") != "lsa" {
		t.Error("VariantLabel")
	}
}

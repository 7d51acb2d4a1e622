package ce

import (
	"fmt"
	"slices"
	"strings"
)

// Variant names a trained network of a model (VariantCE, VariantSiamese) or
// one of its four OOV models (OOVVariants, §4.4). It is the one type of a
// variant name: user input becomes one through ParseVariant or
// ParseOOVVariant, and every method that takes a network takes a Variant.
type Variant string

// The two trained networks.
const (
	VariantCE      Variant = "ce"         // the subnetwork after stage 1 (prediction learning)
	VariantSiamese Variant = "siamese-ce" // the subnetwork after stage 2 (distance learning)
)

// DefaultVariant is the network used when none is named.
const DefaultVariant = VariantSiamese

// The four OOV models of §4.4 (Model.OOVEvalModel), evaluated in the OOV
// setting (§6.2.4): feature-based or concept-based (centroid), on each network.
const (
	VariantCEFeature      Variant = "ce-feature"
	VariantSiameseFeature Variant = "siamese-ce-feature"
	VariantCEAvg          Variant = "ce-avg"
	VariantSiameseAvg     Variant = "siamese-ce-avg"
)

// Variants are the two networks in report order.
var Variants = []Variant{VariantCE, VariantSiamese}

// OOVVariants are the OOV models in report order.
var OOVVariants = []Variant{VariantCEFeature, VariantSiameseFeature, VariantCEAvg, VariantSiameseAvg}

// VariantNames returns the names of the variants, as reports name their
// models.
func VariantNames(vs []Variant) []string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = string(v)
	}
	return names
}

// ParseVariant returns the network s names: "ce" or "siamese-ce" (spaces
// around it ignored); empty is DefaultVariant. Any other name, an OOV
// model's included, is an error saying which names are accepted.
func ParseVariant(s string) (Variant, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultVariant, nil
	}
	return parseVariant(s, []Variant{VariantSiamese, VariantCE})
}

// ParseOOVVariant returns the OOV model s names, one of OOVVariants (spaces
// around it ignored), or an error saying which names are accepted.
func ParseOOVVariant(s string) (Variant, error) { return parseVariant(s, OOVVariants) }

// parseVariant returns the variant of among that s names.
func parseVariant(s string, among []Variant) (Variant, error) {
	v := Variant(strings.TrimSpace(s))
	if slices.Contains(among, v) {
		return v, nil
	}
	names := VariantNames(among)
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return "", fmt.Errorf("ce: unknown variant %q (want %s)", s, want)
}

// OOV reports whether v is one of the OOV models.
func (v Variant) OOV() bool { return slices.Contains(OOVVariants, v) }

// Network returns the network an OOV model places its terms with
// (VariantCE or VariantSiamese), and a network itself.
func (v Variant) Network() Variant {
	if n, ok := strings.CutSuffix(string(v), "-"+OOVFeature); ok {
		return Variant(n)
	}
	if n, ok := strings.CutSuffix(string(v), "-"+OOVAvg); ok {
		return Variant(n)
	}
	return v
}

// WithOOV returns the OOV model of network v with the OOV method (OOVFeature
// or OOVAvg): VariantSiamese.WithOOV(OOVFeature) is VariantSiameseFeature.
func (v Variant) WithOOV(method string) Variant { return v + "-" + Variant(method) }

// VariantLabel is a model name as pages and reports print it: "CE" and
// "Siamese-CE" for the two variants, any other name (a baseline's) as it is.
func VariantLabel(name string) string {
	switch Variant(name) {
	case VariantCE:
		return "CE"
	case VariantSiamese:
		return "Siamese-CE"
	}
	return name
}

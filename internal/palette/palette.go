// Package palette holds the series colours of every taglens chart: the web
// app's interactive ECharts figures (server) and the static figures of the
// results document (internal/report) draw from the one list here, and give a
// model the same colour in both.
//
// It imports nothing but the standard library, so any package may use it
// (ml/... and tsne have no need to).
package palette

import (
	"fmt"
	"image/color"
)

// Series is a colour-blind-friendly series palette: Okabe-Ito, then Tableau
// 10, then two of Tableau's classic 10, as "#RRGGBB".
var Series = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
	"#4E79A7", "#F28E2B", "#59A14F", "#E15759", "#76B7B2", "#EDC948", "#B07AA1", "#FF9DA7", "#9C755F", "#BAB0AC",
	"#17BECF", "#BCBD22"}

// models fixes the colour (an index into Series) of every model taglens
// evaluates, so that a model keeps its colour whichever others share a chart:
// CE and Siamese-CE and their OOV variants get the strongest warm colours,
// the random baseline grey, and no two models share a colour.
var models = map[string]int{
	"siamese-ce": 3, "ce": 1, "siamese-ce-avg": 11, "ce-avg": 9, "siamese-ce-feature": 7, "ce-feature": 12,
	"random": 17, "lsa": 0, "pca": 5, "infotheo": 2, "skipgram": 16, "lda": 4, "plsa": 14, "crbm": 15,
	"ppmi-svd": 8, "glove": 10, "ease": 13, "ease-score": 18, "rp3beta": 19, "itemknn": 6,
}

// Model returns the colour of the model called name; a model without a
// fixed colour gets the i-th colour of Series (i is its position in its chart).
func Model(name string, i int) string {
	if k, ok := models[name]; ok {
		return Series[k]
	}
	return Series[i%len(Series)]
}

// Known reports whether name has a fixed colour.
func Known(name string) bool {
	_, ok := models[name]
	return ok
}

// RGBA converts a "#RRGGBB" colour of this package to color.RGBA (opaque);
// it panics on any other form, which only a change to this file could cause.
func RGBA(hex string) color.RGBA {
	var r, g, b uint8
	if n, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil || n != 3 || len(hex) != 7 {
		panic(fmt.Sprintf("palette: colour %q is not #RRGGBB", hex))
	}
	return color.RGBA{R: r, G: g, B: b, A: 255}
}

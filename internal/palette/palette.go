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
	"math"
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

// Distance is the CIE76 colour difference ΔE*ab between two "#RRGGBB"
// colours of this package (sRGB, D65): about 2 is just noticeable, and
// series closer than about 30 read as the same hue on a chart.
func Distance(a, b string) float64 {
	la, lb := lab(RGBA(a)), lab(RGBA(b))
	return math.Sqrt((la[0]-lb[0])*(la[0]-lb[0]) + (la[1]-lb[1])*(la[1]-lb[1]) + (la[2]-lb[2])*(la[2]-lb[2]))
}

// lab converts an sRGB colour to CIE L*a*b* (D65 white).
func lab(c color.RGBA) [3]float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(c.R), lin(c.G), lin(c.B)
	x := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*b
	z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return t*24389/27/116 + 16.0/116
	}
	fx, fy, fz := f(x), f(y), f(z)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

package palette

import (
	"image/color"
	"testing"

	"github.com/taglens/taglens/ml/baselines"
)

// TestModels: every baseline and every variant of ours has its own colour.
func TestModels(t *testing.T) {
	names := append([]string{"ce", "siamese-ce", "ce-avg", "siamese-ce-avg", "ce-feature", "siamese-ce-feature"}, baselines.Names...)
	seen := map[string]string{}
	for _, n := range names {
		if !Known(n) {
			t.Errorf("%s has no fixed colour", n)
			continue
		}
		c := Model(n, 0)
		if other, ok := seen[c]; ok {
			t.Errorf("%s and %s share %s", n, other, c)
		}
		seen[c] = n
	}
	if got := Model("someone-else", len(Series)+2); got != Series[2] {
		t.Errorf("an unknown model got %s, want the series colour of its position, %s", got, Series[2])
	}
}

func TestRGBA(t *testing.T) {
	if got, want := RGBA("#D55E00"), (color.RGBA{0xD5, 0x5E, 0x00, 0xFF}); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, hex := range Series {
		RGBA(hex) // panics on a malformed entry
	}
}

// TestDistance: ΔE*ab of known pairs (reference values from the sRGB → Lab
// conversion), symmetric and zero for a colour with itself.
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"#000000", "#FFFFFF", 100}, {"#0072B2", "#4E79A7", 12.9}, {"#CC79A7", "#B07AA1", 11.9}, {"#E69F00", "#D55E00", 33.4},
	} {
		if d := Distance(c.a, c.b); d < c.want-0.3 || d > c.want+0.3 || Distance(c.b, c.a) != d || Distance(c.a, c.a) != 0 {
			t.Errorf("Distance(%s, %s) = %.2f, want %.1f", c.a, c.b, d, c.want)
		}
	}
}

package features

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitTermsNormalize checks TermOptions.Normalize: the scaled rows are the
// projection of t(τ)/‖t(τ)‖ (computed here by hand from TermMatrix), the PCA
// is fitted on those unit rows, and OOVTo normalizes the OOV row the same way.
func TestFitTermsNormalize(t *testing.T) {
	docs := plantedDocs(rand.New(rand.NewPCG(21, 22)), 150, 3, 7)
	const v = 21
	f, err := FitTerms(docs, v, &TermOptions{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Normalize {
		t.Fatal("Normalize not recorded")
	}
	_, _, tm := TermMatrix(docs, v)
	x := tm.Dense()
	for i := 0; i < v; i++ {
		row := x.RawRowView(i)
		var ss float64
		for _, r := range row {
			ss += r * r
		}
		for j := range row {
			row[j] /= math.Sqrt(ss)
		}
	}
	checkDecorrelatedScaled(t, f.Proj, x)
	checkRowsTransform(t, f, x)
	want := make([]float64, f.Dim())
	oovDocs := [][]int{{0, 1}, {1, 2}, {1}}
	ind, val, err := f.OOVRaw(oovDocs)
	if err != nil {
		t.Fatal(err)
	}
	dense := make([]float64, v)
	var ss float64
	for k, i := range ind {
		dense[i] = val[k]
		ss += val[k] * val[k]
	}
	for i := range dense {
		dense[i] /= math.Sqrt(ss)
	}
	f.Proj.TransformTo(want, dense)
	got := make([]float64, f.Dim())
	if err := f.OOVTo(got, oovDocs); err != nil {
		t.Fatal(err)
	}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-12 {
			t.Errorf("OOVTo[%d]: got %v, want %v", j, got[j], want[j])
		}
	}
	// The flag survives the codec; a version-1 encoding (no flag byte, no
	// smoothing α at the end) reads as Normalize = false.
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g TermFeatures
	if err := g.UnmarshalBinary(b); err != nil || !g.Normalize {
		t.Fatalf("round trip: err %v, Normalize %v", err, g.Normalize)
	}
	old := bytes.Clone(b[:24])
	binary.LittleEndian.PutUint32(old[4:8], 1)
	old = append(old, b[25:len(b)-8]...)
	if err := g.UnmarshalBinary(old); err != nil || g.Normalize {
		t.Fatalf("version 1: err %v, Normalize %v", err, g.Normalize)
	}
	bad := bytes.Clone(b)
	bad[24] = 7
	if err := g.UnmarshalBinary(bad); err == nil {
		t.Error("a normalize flag of 7 was accepted")
	}
}

// TestScaleCommon checks ScaleCommon: one range ±R for every component, with R
// the largest |score|, so scaled rows are the scores divided by R.
func TestScaleCommon(t *testing.T) {
	docs := plantedDocs(rand.New(rand.NewPCG(23, 24)), 150, 3, 7)
	const v = 21
	per, err := FitTerms(docs, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	com, err := FitTerms(docs, v, &TermOptions{PCA: PCAOptions{Scaling: ScaleCommon}})
	if err != nil {
		t.Fatal(err)
	}
	var r float64
	for k := range per.Proj.Lo {
		r = max(r, -per.Proj.Lo[k], per.Proj.Hi[k])
	}
	_, _, tm := TermMatrix(docs, v)
	z := make([]float64, com.Dim())
	for k := range com.Proj.Lo {
		if com.Proj.Lo[k] != -r || com.Proj.Hi[k] != r {
			t.Fatalf("component %d range [%v, %v], want ±%v", k, com.Proj.Lo[k], com.Proj.Hi[k], r)
		}
	}
	for i := 0; i < v; i++ {
		ind, val := tm.Row(i)
		com.Proj.SparseScoresTo(z, ind, val)
		for k := range z {
			if got := com.Row(i)[k]; math.Abs(got-z[k]/r) > 1e-12 || math.Abs(got) > 1+1e-12 {
				t.Fatalf("Row(%d)[%d] = %v, want score/R = %v", i, k, got, z[k]/r)
			}
		}
	}
	if s, err := ParseScaling(ScaleCommon.String()); err != nil || s != ScaleCommon {
		t.Errorf("ParseScaling(%q) = %v, %v", ScaleCommon.String(), s, err)
	}
	if _, err := ParseScaling("whiten"); err == nil {
		t.Error("ParseScaling accepted an unknown name")
	}
}

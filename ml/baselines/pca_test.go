package baselines

import "testing"

func TestPCAPlanted(t *testing.T) {
	const per = 5
	docs := globalPlanted(2, 200, per)
	for _, dim := range []int{0, 2, 4} {
		m, err := FitPCA(docs, 2*per, &GlobalOptions{Dim: dim})
		if err != nil {
			t.Fatal(err)
		}
		if dim > 0 && m.Dim != dim {
			t.Errorf("Dim: got %d, want %d", m.Dim, dim)
		}
		checkGroupsSeparated(t, m, per)
	}
}

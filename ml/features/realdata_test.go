package features

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/ml/shareddata"
)

// loadTSV reads a shared-data docs.tsv (id<TAB>tag<TAB>tag…) and encodes every
// other-than-every-third document (a 2:1 train share, enough for fitting tests)
// with a vocabulary of the training documents' tags.
func loadTSV(tb testing.TB, corpus string) (train [][]int, v int) {
	tb.Helper()
	path := shareddata.File(tb, corpus, "docs.tsv")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	index := make(map[string]int)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 0; sc.Scan(); n++ {
		if n%3 == 2 {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		var doc []int
		for _, tag := range fields[1:] {
			id, ok := index[tag]
			if !ok {
				id = len(index)
				index[tag] = id
			}
			doc = append(doc, id)
		}
		if len(doc) > 0 {
			train = append(train, doc)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return train, len(index)
}

// TestFitTermsLarge fits the open-vocabulary lastfm-hetrec corpus (≈9k training
// terms): Auto must take the randomized path and produce Dim features per term,
// all inside [-1, 1].
func TestFitTermsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: fits ~9k-term features")
	}
	train, v := loadTSV(t, "lastfm-hetrec")
	start := time.Now()
	f, err := FitTerms(train, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lastfm-hetrec: %d docs, %d terms, dim %d, explained %.3f, %v", len(train), v, f.Dim(), f.Proj.Explained(), time.Since(start))
	if !f.Proj.Randomized || f.Dim() != DefaultRandomizedDim {
		t.Errorf("randomized %v dim %d, want true %d", f.Proj.Randomized, f.Dim(), DefaultRandomizedDim)
	}
	for i, x := range f.Scaled {
		if x < -1-1e-9 || x > 1+1e-9 {
			t.Fatalf("Scaled[%d] = %v outside [-1, 1]", i, x)
		}
	}
}

func BenchmarkFitTerms(b *testing.B) {
	for _, bc := range []struct {
		corpus string
		method PCAMethod
	}{
		{"mtg-jamendo", Exact},
		{"mtg-jamendo", Randomized},
		{"corel5k", Exact},
		{"lastfm-hetrec", Randomized},
	} {
		name := bc.corpus + "/exact"
		if bc.method == Randomized {
			name = bc.corpus + "/randomized"
		}
		b.Run(name, func(b *testing.B) {
			train, v := loadTSV(b, bc.corpus)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f, err := FitTerms(train, v, &TermOptions{Method: bc.method})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(v), "terms")
				b.ReportMetric(float64(f.Dim()), "dim")
				b.ReportMetric(f.Proj.Explained(), "explained")
			}
		})
	}
}

package ce

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/shareddata"
)

// TestMTGJamendoAboveRandom trains on the real mtg-jamendo corpus with its split
// and checks that validation P@2 of CE and Siamese-CE is clearly above random's
// analytic expectation (issue 3). Slow: skipped under -short and without data.
func TestMTGJamendoAboveRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: trains on mtg-jamendo")
	}
	docsPath := shareddata.File(t, "mtg-jamendo", "docs.tsv")
	splitPath := shareddata.File(t, "mtg-jamendo", "split.tsv")
	c, err := corpus.ReadFile(docsPath, corpus.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	split := readTestSplit(t, splitPath, c)
	m, err := Train(context.Background(), c, split, Config{Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := m.Info()
	t.Logf("validation P@2: CE %.4f, Siamese-CE %.4f, random %.4f", in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
	// "Clearly above": at least five times the random expectation (≈ 0.03 here).
	if in.ValidP2CE < 5*in.ValidP2Random || in.ValidP2Siamese < 5*in.ValidP2Random {
		t.Fatalf("validation P@2 CE %v, Siamese-CE %v not clearly above random %v", in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random)
	}
}

// readTestSplit reads split.tsv (doc_id<TAB>subset) for c.
func readTestSplit(t *testing.T, path string, c *corpus.Corpus) corpus.Split {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	index := map[string]int{}
	for i, d := range c.Docs {
		index[d.ID] = i
	}
	var s corpus.Split
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, sub, _ := strings.Cut(sc.Text(), "\t")
		i, ok := index[id]
		if !ok {
			continue
		}
		switch corpus.Subset(sub) {
		case corpus.Train:
			s.Train = append(s.Train, i)
		case corpus.Valid:
			s.Valid = append(s.Valid, i)
		case corpus.Test:
			s.Test = append(s.Test, i)
		case corpus.OOV:
			s.OOV = append(s.OOV, i)
		}
	}
	return s
}

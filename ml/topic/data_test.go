package topic

import (
	"bufio"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/shareddata"
)

// loadShared reads a ../shared/data corpus (id<TAB>tag<TAB>…) and, when split
// is true, its split.tsv; it returns the training documents (all documents
// without a split) encoded against the training vocabulary, the encoded test
// documents (in-vocabulary terms only) and V. It skips tb when data is absent.
// (A local reader so that this package's tests depend on no other package
// under development.)
func loadShared(tb testing.TB, corpusName string, split bool) (train, test [][]int, v int) {
	tb.Helper()
	read := func(name string) [][]string {
		f, err := os.Open(shareddata.File(tb, corpusName, name))
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		var rows [][]string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			if line := sc.Text(); line != "" {
				rows = append(rows, strings.Split(line, "\t"))
			}
		}
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
		return rows
	}
	docs := read("docs.tsv")
	subset := map[string]string{}
	if split {
		for _, r := range read("split.tsv") {
			subset[r[0]] = r[1]
		}
	}
	var trainRaw, testRaw [][]string
	for _, r := range docs {
		switch s := subset[r[0]]; {
		case !split || s == "train":
			trainRaw = append(trainRaw, r[1:])
		case s == "test":
			testRaw = append(testRaw, r[1:])
		}
	}
	seen := map[string]bool{}
	var terms []string
	for _, d := range trainRaw {
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				terms = append(terms, t)
			}
		}
	}
	sort.Strings(terms)
	id := make(map[string]int, len(terms))
	for i, t := range terms {
		id[t] = i
	}
	enc := func(raw [][]string) [][]int {
		out := make([][]int, len(raw))
		for i, d := range raw {
			for _, t := range d {
				if j, ok := id[t]; ok {
					out[i] = append(out[i], j)
				}
			}
		}
		return out
	}
	return enc(trainRaw), enc(testRaw), len(terms)
}

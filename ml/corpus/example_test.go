package corpus_test

import (
	"fmt"
	"strings"

	"github.com/taglens/taglens/ml/corpus"
)

// A corpus in the TSV format: a document id, then its tags, tab-separated. The
// format is detected, and the vocabulary maps each tag to an index.
func ExampleParse() {
	in := "song1\trock\tguitar\tloud\nsong2\tjazz\tpiano\nsong3\trock\tpiano\n"
	c, err := corpus.Parse(strings.NewReader(in), corpus.ParseOptions{Name: "songs"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Name, c.Format, len(c.Docs), "documents")
	v := corpus.NewVocabulary(c.Docs)
	fmt.Println(v.Len(), "terms:", strings.Join(v.Terms(), " "))
	ids, oov := v.Encode(corpus.Document{ID: "new", Tags: []string{"rock", "piano", "violin"}})
	fmt.Println(ids, oov)
	// Output:
	// songs tsv 3 documents
	// 5 terms: guitar jazz loud piano rock
	// [4 3] [violin]
}

// Errors name the line and the reason.
func ExampleParse_error() {
	_, err := corpus.Parse(strings.NewReader("a\trock\na\tjazz\n"), corpus.ParseOptions{})
	fmt.Println(err)
	// Output:
	// line 2: duplicate document id "a" (first on line 1)
}

package server

import (
	"fmt"
	"strings"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/store"
)

// leftOut says which documents of a corpus's file were not kept: those
// without tags, those over the tag cap and those with a bidirectional
// formatting character in a tag; "" when none.
func leftOut(st store.CorpusStats) string {
	var parts []string
	switch {
	case st.Dropped == 1:
		parts = append(parts, "1 document without tags")
	case st.Dropped > 1:
		parts = append(parts, fmt.Sprintf("%d documents without tags", st.Dropped))
	}
	if st.Skipped > 0 {
		parts = append(parts, corpus.SkippedSummary(st.Skipped, st.TagCap, st.SkippedLines))
	}
	if st.BidiSkipped > 0 {
		parts = append(parts, corpus.BidiSummary(st.BidiSkipped, st.BidiLines))
	}
	return strings.Join(parts, "; ")
}

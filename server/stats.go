package server

import (
	"fmt"
	"strings"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/store"
)

// leftOut says which documents of a corpus's file were not kept: those
// without tags and those over the tag cap; "" when none.
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
	return strings.Join(parts, "; ")
}

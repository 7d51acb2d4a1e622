// Package projector writes concept embeddings in the two files the TensorFlow
// Embedding Projector loads: tensors.tsv (one vector per line, tab-separated)
// and metadata.tsv (a header, then one line per vector). `taglens export` writes
// them to a directory and the web app's explorer offers them as a zip.
package projector

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/taglens/taglens/ml/ce"
	"github.com/taglens/taglens/ml/corpus"
)

// Header is the first line of metadata.tsv.
const Header = "tag\tdoc_id\tin_doc_tags\tkind"

// Write writes one row per (document, in-vocabulary tag) — CE(τ|δ) of the
// variant — and one per OOV tag placed by the concept-based method (§4.4):
// vectors to tensors, and to metadata the tag, the document id, the document's
// tags and the kind (instance or oov). Documents without an in-vocabulary tag
// are skipped and counted. It stops with ctx.Err() when ctx is cancelled.
func Write(ctx context.Context, m *ce.Model, variant ce.Variant, docs []corpus.Document, tensors, metadata io.Writer) (rows, skipped int, err error) {
	tw, mw := bufio.NewWriter(tensors), bufio.NewWriter(metadata)
	fmt.Fprintln(mw, Header)
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace
	vec := func(v []float64) {
		for i, x := range v {
			if i > 0 {
				tw.WriteByte('\t')
			}
			tw.WriteString(strconv.FormatFloat(x, 'g', 7, 64))
		}
		tw.WriteByte('\n')
	}
	for di, d := range docs {
		if di%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return rows, skipped, err
			}
		}
		ids, oov, ceRows, oovRows, err := m.EmbedDocument(variant, d.Tags)
		if err != nil {
			skipped++
			continue
		}
		all := clean(strings.Join(d.Tags, ","))
		for i, id := range ids {
			vec(ceRows[i])
			fmt.Fprintf(mw, "%s\t%s\t%s\tinstance\n", clean(m.Vocabulary().Term(id)), clean(d.ID), all)
			rows++
		}
		for i, t := range oov {
			vec(oovRows[i])
			fmt.Fprintf(mw, "%s\t%s\t%s\toov\n", clean(t), clean(d.ID), all)
			rows++
		}
	}
	if err := tw.Flush(); err != nil {
		return rows, skipped, err
	}
	return rows, skipped, mw.Flush()
}

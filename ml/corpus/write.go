package corpus

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Write writes c to w in format f so that Parse with the same format reads it back
// with the same documents. What each format keeps:
//   - tsv, csv, jsonl: ids, tags and tag order;
//   - lines: tags and tag order (ids become line numbers);
//   - matrix, arff: ids and tag sets (tags in vocabulary order; arff is sparse,
//     with the id as a string attribute named "id").
//
// It returns an error wrapping ErrNotRepresentable when a document cannot be
// written without loss: a tag or id that is empty, untrimmed, not UTF-8 or holds a
// NUL, a document without tags, a repeated id, or a character the format reserves
// (tab or newline in tsv; ',' or newline in lines; ';' or '\r' in csv; '\r' in
// matrix). Nothing is written then.
func Write(w io.Writer, c *Corpus, f Format) error {
	if err := checkWritable(c, f); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	switch f {
	case FormatTSV:
		for _, d := range c.Docs {
			bw.WriteString(d.ID)
			for _, t := range d.Tags {
				bw.WriteByte('\t')
				bw.WriteString(t)
			}
			bw.WriteByte('\n')
		}
	case FormatCommaLines:
		for _, d := range c.Docs {
			bw.WriteString(strings.Join(d.Tags, ","))
			bw.WriteByte('\n')
		}
	case FormatJSONL:
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		type rec struct {
			ID   string   `json:"id"`
			Tags []string `json:"tags"`
		}
		for _, d := range c.Docs {
			if err = enc.Encode(rec{d.ID, d.Tags}); err != nil {
				break
			}
		}
	case FormatCSV:
		cw := csv.NewWriter(bw)
		cw.Write([]string{"id", "tags"})
		for _, d := range c.Docs {
			field := strings.Join(d.Tags, ";")
			if len(d.Tags) == 1 {
				field += ";" // so that a lone tag holding '|' or ',' is not split
			}
			cw.Write([]string{d.ID, field})
		}
		cw.Flush()
		err = cw.Error()
	case FormatLabelMatrix:
		v := NewVocabulary(c.Docs)
		cw := csv.NewWriter(bw)
		row := append([]string{"id"}, v.Terms()...)
		cw.Write(row)
		for _, d := range c.Docs {
			row[0] = d.ID
			for j := 1; j < len(row); j++ {
				row[j] = "0"
			}
			for _, t := range d.Tags {
				i, _ := v.ID(t)
				row[i+1] = "1"
			}
			cw.Write(row)
		}
		cw.Flush()
		err = cw.Error()
	case FormatARFF:
		writeARFF(bw, c)
	default:
		if _, perr := ParseFormat(string(f)); perr != nil || f == "" {
			return fmt.Errorf("corpus: write: unknown format %q", f)
		}
	}
	if err != nil {
		return fmt.Errorf("corpus: write: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("corpus: write: %w", err)
	}
	return nil
}

func writeARFF(bw *bufio.Writer, c *Corpus) {
	v := NewVocabulary(c.Docs)
	name := c.Name
	if name == "" || mekaLabels.MatchString(name) {
		name = "taglens"
	}
	fmt.Fprintf(bw, "%% written by taglens: one {0,1} attribute per tag\n@relation %s\n\n@attribute id string\n", arffQuote(name))
	for _, t := range v.Terms() {
		fmt.Fprintf(bw, "@attribute %s {0,1}\n", arffQuote(t))
	}
	bw.WriteString("\n@data\n")
	idx := make([]int, 0, 16)
	for _, d := range c.Docs {
		idx = idx[:0]
		for _, t := range d.Tags {
			i, _ := v.ID(t)
			idx = append(idx, i+1)
		}
		slices.Sort(idx)
		bw.WriteString("{0 ")
		bw.WriteString(arffQuote(d.ID))
		for _, i := range idx {
			bw.WriteByte(',')
			bw.WriteString(strconv.Itoa(i))
			bw.WriteString(" 1")
		}
		bw.WriteString("}\n")
	}
}

// arffQuote quotes s for ARFF with single quotes and backslash escapes.
func arffQuote(s string) string {
	var sb strings.Builder
	sb.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '\'':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}

func notRepresentable(f Format, format string, args ...any) error {
	return fmt.Errorf("corpus: write %s: %s: %w", f, fmt.Sprintf(format, args...), ErrNotRepresentable)
}

func checkWritable(c *Corpus, f Format) error {
	var reserved string
	switch f {
	case FormatTSV:
		reserved = "\t\n"
	case FormatCommaLines:
		reserved = ",\n"
	case FormatCSV:
		reserved = ";\r"
	case FormatLabelMatrix:
		reserved = "\r"
	}
	idReserved := reserved
	if f == FormatCSV {
		idReserved = "\r"
	}
	ids := make(map[string]struct{}, len(c.Docs))
	ok := func(s, res string) bool {
		return s != "" && trimString(s) == s && utf8.ValidString(s) &&
			strings.IndexByte(s, 0) < 0 && !strings.ContainsAny(s, res)
	}
	for _, d := range c.Docs {
		if f != FormatCommaLines {
			if !ok(d.ID, idReserved) {
				return notRepresentable(f, "document id %q", d.ID)
			}
			if _, dup := ids[d.ID]; dup {
				return notRepresentable(f, "duplicate document id %q", d.ID)
			}
			ids[d.ID] = struct{}{}
		}
		if len(d.Tags) == 0 {
			return notRepresentable(f, "document %q has no tags", d.ID)
		}
		for i, t := range d.Tags {
			if !ok(t, reserved) {
				return notRepresentable(f, "document %q: tag %q", d.ID, t)
			}
			if slices.Contains(d.Tags[:i], t) {
				return notRepresentable(f, "document %q: repeated tag %q", d.ID, t)
			}
		}
	}
	return nil
}

package corpus

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
)

// Detect guesses the format of a corpus from a prefix of it (Parse looks at the
// first 64 KiB). Rules, in order: a '%' comment or '@relation' first → arff; '{'
// first → jsonl; a tab in any of the first lines → tsv; a comma-separated header
// whose rows all have its width and 0/1 cells (besides an id column) → matrix; a
// header with a tags column (tags, tag, labels, label, terms, keywords) → csv;
// otherwise lines. A sample too small for matrixFlaw's shares is still refused
// when its header is a row of tag names over rows of numbers only, one of them
// ragged or a fraction (see numericMatrixFlaw). Input with a NUL byte is an error; so is an empty prefix; so
// is a sample that looks like a 0/1 label matrix but breaks its rules (see
// matrixFlaw): rather than read such a file as lines of tags "0" and "1", Detect
// names the offending line and leaves the choice to the caller.
func Detect(prefix []byte) (Format, error) {
	f, _, err := detect(prefix, false)
	return f, err
}

// Detection thresholds of a label matrix that breaks its rules: at least
// matrixMinCells cells (besides an id column) of which at least matrixShare
// are 0/1, and every tag column at least half 0/1.
const (
	matrixMinCells = 8
	matrixShare    = 0.9
)

// detect is Detect; complete says the prefix is the whole input, so its last line
// is complete. It also returns a short sentence saying why it chose the format.
func detect(prefix []byte, complete bool) (Format, string, error) {
	p := bytes.TrimPrefix(prefix, bom)
	if i := bytes.IndexByte(p, 0); i >= 0 {
		return "", "", &ParseError{Line: 1 + bytes.Count(p[:i], []byte{'\n'}), Offset: int64(i + len(prefix) - len(p)),
			Reason: "binary input (NUL byte at byte " + strconv.Itoa(i+len(prefix)-len(p)) + ")"}
	}
	if !complete {
		if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
			p = p[:i+1]
		}
	}
	// The first 100 non-blank lines and their physical line numbers.
	var lines [][]byte
	var lineNo []int
	for rest, n := p, 1; len(rest) > 0 && len(lines) < 100; n++ {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte{'\n'})
		if !isBlank(l) {
			lines = append(lines, bytes.TrimSuffix(l, []byte{'\r'}))
			lineNo = append(lineNo, n)
		}
	}
	if len(lines) == 0 {
		return "", "", lineErr(0, "empty corpus: no documents")
	}
	first := trimBytes(lines[0])
	if first[0] == '%' || first[0] == '@' {
		for i, l := range lines {
			l = bytes.ToLower(trimBytes(l))
			if bytes.HasPrefix(l, []byte("@relation")) || bytes.HasPrefix(l, []byte("@attribute")) {
				kw, _, _ := bytes.Cut(l, []byte(" "))
				return FormatARFF, fmt.Sprintf("arff: %s on line %d", kw, lineNo[i]), nil
			}
		}
	}
	if first[0] == '{' {
		return FormatJSONL, fmt.Sprintf("jsonl: line %d starts with '{'", lineNo[0]), nil
	}
	for i, l := range lines {
		if bytes.IndexByte(l, '\t') >= 0 {
			return FormatTSV, fmt.Sprintf("tsv: a tab in line %d", lineNo[i]), nil
		}
	}
	cr := csv.NewReader(bytes.NewReader(bytes.Join(lines, []byte{'\n'})))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	var recs [][]string
	var pos [][]int // physical line of each field
	for len(recs) < 50 {
		r, err := cr.Read()
		if err != nil {
			break
		}
		recs = append(recs, r)
		lp := make([]int, len(r))
		for j := range r {
			l, _ := cr.FieldPos(j)
			lp[j] = lineNo[min(max(l, 1), len(lineNo))-1]
		}
		pos = append(pos, lp)
	}
	if len(recs) == 0 {
		return FormatCommaLines, "lines: no other format fits the first line", nil
	}
	if looksLikeMatrix(recs) {
		return FormatLabelMatrix, fmt.Sprintf("matrix: a header of %d columns, then 0/1 cells in all %d rows read", len(recs[0]), len(recs)-1), nil
	}
	if err := matrixFlaw(recs, pos); err != nil {
		return "", "", err
	}
	if err := numericMatrixFlaw(recs, pos); err != nil {
		return "", "", err
	}
	for _, h := range recs[0] {
		if nameIn(h, tagColumnNames) && len(recs[0]) >= 2 {
			return FormatCSV, fmt.Sprintf("csv: the header on line %d has a %q column", pos[0][0], trimString(h)), nil
		}
	}
	return FormatCommaLines, fmt.Sprintf("lines: no tab, JSON, ARFF header, tags column or 0/1 matrix in the first %d lines", len(lines)), nil
}

func looksLikeMatrix(recs [][]string) bool {
	header := recs[0]
	if len(recs) < 2 || len(header) < 2 {
		return false
	}
	idCol := trimString(header[0]) == "" || nameIn(header[0], idColumnNames)
	if _, ok := parse01(recs[1][0]); !ok {
		idCol = true
	}
	for _, r := range recs[1:] {
		if len(r) != len(header) {
			return false
		}
		for j, c := range r {
			if j == 0 && idCol {
				continue
			}
			if _, ok := parse01(c); !ok {
				return false
			}
		}
	}
	return true
}

// matrixFlaw is called on a detection sample that is not a clean label matrix
// (looksLikeMatrix false). When the sample still looks like one — a header of at
// least 2 columns, at least matrixMinCells data cells outside an id column, at
// least matrixShare of them 0/1 and every tag column at least half 0/1 — it
// returns a *ParseError naming the first row of another width or the first cell
// that is not 0/1; else nil. pos[i][j] is the physical line of recs[i][j].
func matrixFlaw(recs [][]string, pos [][]int) error {
	header := recs[0]
	w := len(header)
	if len(recs) < 2 || w < 2 {
		return nil
	}
	rows := recs[1:]
	// The first column holds ids when its header says so or when most of its
	// cells are not 0/1.
	idCol := trimString(header[0]) == "" || nameIn(header[0], idColumnNames)
	if !idCol {
		n01 := 0
		for _, r := range rows {
			if _, ok := parse01(r[0]); ok {
				n01++
			}
		}
		idCol = 2*n01 < len(rows)
	}
	colCells := make([]int, w)
	col01 := make([]int, w)
	cells, ok01 := 0, 0
	for _, r := range rows {
		for j, c := range r {
			if j == 0 && idCol {
				continue
			}
			cells++
			_, ok := parse01(c)
			if ok {
				ok01++
			}
			if j < w {
				colCells[j]++
				if ok {
					col01[j]++
				}
			}
		}
	}
	if cells < matrixMinCells || float64(ok01) < matrixShare*float64(cells) {
		return nil
	}
	for j := range w {
		if !(j == 0 && idCol) && 2*col01[j] < colCells[j] {
			return nil // a column of text: a CSV with flag columns, say
		}
	}
	looks := fmt.Sprintf("looks like a 0/1 label matrix (a header of %d columns, %d of %d cells 0 or 1)", w, ok01, cells)
	for i, r := range rows {
		line := pos[i+1][0]
		if len(r) != w {
			return lineErr(line, "%s, but this row has %d cells; fix the row or choose the format explicitly", looks, len(r))
		}
		for j, c := range r {
			if j == 0 && idCol {
				continue
			}
			if _, ok := parse01(c); !ok {
				return lineErr(pos[i+1][j], "%s, but in column %q the cell %q is not 0 or 1; fix the cell or choose the format explicitly",
					looks, trimString(header[j]), c)
			}
		}
	}
	// Clean under the majority rule for the id column, not under the parser's
	// (the first data cell): the parser would take column 1 for tags.
	c := rows[0][0]
	return lineErr(pos[1][0], "%s, but the first cell %q of column %q is 0 or 1 while most of the column is not: "+
		"name the column id or choose the format explicitly", looks, c, trimString(header[0]))
}

// numericMatrixFlaw is called on a detection sample that matrixFlaw let pass. It
// catches the label matrices too small for matrixFlaw's shares (a few rows, a
// few columns): a header of at least 2 distinct tag names (not numbers, no tags
// column; the first may be an id column's name or empty) over data rows whose
// cells, outside an id column, are all numbers, half of them at least 0 or 1.
// No file of comma-separated tags looks like that. When such a sample has a
// row of another width or a cell that is a fraction (0.5: a score, not a
// label), it returns a *ParseError naming the first row of another width or
// cell that is not 0/1; else nil (a lone 2 in a small sample may be a count or
// an id: read as lines, as before).
func numericMatrixFlaw(recs [][]string, pos [][]int) error {
	header := recs[0]
	w := len(header)
	if len(recs) < 2 || w < 2 {
		return nil
	}
	rows := recs[1:]
	idCol := trimString(header[0]) == "" || nameIn(header[0], idColumnNames)
	if !idCol {
		n01 := 0
		for _, r := range rows {
			if _, ok := parse01(r[0]); ok {
				n01++
			}
		}
		idCol = 2*n01 < len(rows)
	}
	names := make(map[string]bool, w)
	for j, h := range header {
		h = trimString(h)
		if j == 0 && idCol {
			continue
		}
		if h == "" || names[h] || isNumber(h) || nameIn(h, tagColumnNames) {
			return nil
		}
		names[h] = true
	}
	if len(names) < 2 {
		return nil
	}
	cells, ok01, suspect := 0, 0, false
	for _, r := range rows {
		if len(r) != w {
			suspect = true
		}
		for j, c := range r {
			if j == 0 && idCol {
				continue
			}
			if !isNumber(c) {
				return nil
			}
			cells++
			if _, ok := parse01(c); ok {
				ok01++
			} else if !isInteger(c) {
				suspect = true
			}
		}
	}
	if !suspect || cells == 0 || 2*ok01 < cells {
		return nil
	}
	looks := fmt.Sprintf("looks like a 0/1 label matrix (a header of %d tag names over rows of numbers)", len(names))
	for i, r := range rows {
		if len(r) != w {
			return lineErr(pos[i+1][0], "%s, but row %d has %d cells, the header %d; fix the row or choose the format explicitly", looks, i+1, len(r), w)
		}
		for j, c := range r {
			if j == 0 && idCol {
				continue
			}
			if _, ok := parse01(c); !ok {
				return lineErr(pos[i+1][j], "%s, but the cell %s in column %d (%q) is not 0 or 1: a label matrix holds 0 or 1; fix the cell or choose the format explicitly",
					looks, trimString(c), j+1, trimString(header[j]))
			}
		}
	}
	return nil
}

// isNumber says s (trimmed) is a finite decimal number.
func isNumber(s string) bool {
	f, err := strconv.ParseFloat(trimString(s), 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// isInteger says s (trimmed) is a whole number written without a fraction.
func isInteger(s string) bool {
	_, err := strconv.ParseInt(trimString(s), 10, 64)
	return err == nil
}

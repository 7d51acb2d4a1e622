package corpus

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Column names recognised (case-insensitively) in CSV headers and ARFF attributes.
var (
	idColumnNames  = []string{"id", "doc_id", "docid", "doc", "document", "document_id", "item", "item_id", "track_id", "name"}
	tagColumnNames = []string{"tags", "tag", "labels", "label", "terms", "keywords"}
)

func nameIn(s string, names []string) bool {
	s = strings.ToLower(trimString(s))
	for _, n := range names {
		if s == n {
			return true
		}
	}
	return false
}

// eachDocLine calls doc with every non-blank line of br and its number, after
// starting a document of b on it; it stops at the end of br or the first error.
func eachDocLine(br *bufio.Reader, b *builder, doc func(line []byte, n int) error) error {
	l := &lineReader{br: br}
	for {
		line, err := l.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if isBlank(line) {
			continue
		}
		b.begin(l.line)
		if err := doc(line, l.line); err != nil {
			return err
		}
	}
}

func parseJSONL(br *bufio.Reader, b *builder) error {
	var rec struct {
		ID   json.RawMessage `json:"id"`
		Tags *[]string       `json:"tags"`
	}
	return eachDocLine(br, b, func(line []byte, n int) error {
		rec.ID, rec.Tags = nil, nil
		if err := json.Unmarshal(line, &rec); err != nil {
			return lineErr(n, "invalid JSON: %v", err)
		}
		if rec.Tags == nil {
			return lineErr(n, `no "tags" array`)
		}
		id, err := jsonID(rec.ID, n)
		if err != nil {
			return err
		}
		for _, t := range *rec.Tags {
			b.tagString(t)
		}
		return b.endOwned(id) // jsonID makes a new string
	})
}

// jsonID returns a JSON string or number id as a string; a missing or null id is
// the line number.
func jsonID(raw json.RawMessage, line int) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return strconv.Itoa(line), nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", lineErr(line, "invalid id: %v", err)
		}
		return s, nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return string(raw), nil
	}
	return "", lineErr(line, "id must be a string or a number, not %s", raw)
}

// csvError converts an encoding/csv error to a *ParseError; guard errors pass through.
func csvError(err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	var ce *csv.ParseError
	if errors.As(err, &ce) {
		if ce.StartLine > 0 && ce.StartLine < ce.Line {
			// An unclosed quote: the line that opened it is the one to fix.
			return lineErr(ce.StartLine, "%v (the record starting on this line is still open on line %d)", ce.Err, ce.Line)
		}
		return lineErr(ce.Line, "%v", ce.Err)
	}
	return err
}

func newCSVReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return cr
}

// readCSVHeader opens a CSV reader on br and reads its header record and the
// header's line; header is nil for empty input.
func readCSVHeader(br *bufio.Reader) (cr *csv.Reader, header []string, hline int, err error) {
	cr = newCSVReader(br)
	header, err = cr.Read()
	if err == io.EOF {
		return cr, nil, 0, nil
	}
	if err != nil {
		return cr, nil, 0, csvError(err)
	}
	hline, _ = cr.FieldPos(0)
	return cr, header, hline, nil
}

func parseCSV(br *bufio.Reader, b *builder) error {
	cr, header, hline, err := readCSVHeader(br)
	if err != nil || header == nil {
		return err
	}
	idCol, tagCol := -1, -1
	for i, h := range header {
		if tagCol < 0 && nameIn(h, tagColumnNames) {
			tagCol = i
		} else if idCol < 0 && nameIn(h, idColumnNames) {
			idCol = i
		}
	}
	if tagCol < 0 {
		return lineErr(hline, "CSV header has no tags column (one named %s)", strings.Join(tagColumnNames, ", "))
	}
	if idCol < 0 && len(header) == 2 {
		idCol = 1 - tagCol
	}
	need := max(idCol, tagCol) + 1
	return eachCSVRecord(cr, func(rec []string, line int) error {
		b.begin(line)
		if len(rec) < need {
			return lineErr(line, "record has %d fields, need at least %d", len(rec), need)
		}
		splitTags(rec[tagCol], b.opt.TagSep, b.tagString)
		id := strconv.Itoa(line)
		if idCol >= 0 {
			id = rec[idCol]
		}
		return b.end(id)
	})
}

// eachCSVRecord calls f with every remaining record of cr and the line it
// starts on, until the input ends (nil) or f or the reader fails.
func eachCSVRecord(cr *csv.Reader, f func(rec []string, line int) error) error {
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(err)
		}
		line, _ := cr.FieldPos(0)
		if err := f(rec, line); err != nil {
			return err
		}
	}
}

// splitTags calls add for each tag of a CSV tags field. sep "" picks the first of
// ";", "|", "," that occurs in the field; a field with none of them is one tag.
func splitTags(field, sep string, add func(string)) {
	if sep == "" {
		for _, s := range []string{";", "|", ","} {
			if strings.Contains(field, s) {
				sep = s
				break
			}
		}
	}
	if sep == "" {
		add(field)
		return
	}
	for field != "" {
		var t string
		t, field, _ = strings.Cut(field, sep)
		add(t)
	}
}

// parse01 reads a label cell: "1" (or "1.0", "true") present, "0" ("0.0", "false",
// "?" missing) absent.
func parse01(s string) (present, ok bool) {
	switch strings.ToLower(trimString(s)) {
	case "1", "1.0", "true":
		return true, true
	case "0", "0.0", "false", "?":
		return false, true
	}
	return false, false
}

func parseMatrix(br *bufio.Reader, b *builder) error {
	cr, h, hline, err := readCSVHeader(br)
	if err != nil || h == nil {
		return err
	}
	header := append([]string(nil), h...)
	// The first column holds ids when its header is empty or an id name, or when
	// its cell in the first data row is not 0/1.
	idCol := -1
	if len(header) > 0 && (trimString(header[0]) == "" || nameIn(header[0], idColumnNames)) {
		idCol = 0
	}
	var tags []string
	first := true
	row := 0
	return eachCSVRecord(cr, func(rec []string, line int) error {
		row++
		if first {
			first = false
			if idCol < 0 && len(rec) > 0 {
				if _, ok := parse01(rec[0]); !ok {
					idCol = 0
				}
			}
			var err error
			if tags, err = matrixTags(header, idCol, hline); err != nil {
				return err
			}
		}
		if len(rec) != len(header) {
			return lineErr(line, "row has %d cells, the header has %d", len(rec), len(header))
		}
		b.begin(line)
		for j, cell := range rec {
			if j == idCol {
				continue
			}
			present, ok := parse01(cell)
			if !ok {
				return lineErr(line, "column %q: cell %q is not 0 or 1", tags[j], cell)
			}
			if present {
				b.tagString(tags[j])
			}
		}
		id := strconv.Itoa(row)
		if idCol >= 0 {
			id = rec[idCol]
		}
		return b.end(id)
	})
}

// matrixTags returns the tag of each header column ("" for the id column),
// rejecting empty and repeated tag names.
func matrixTags(header []string, idCol, line int) ([]string, error) {
	tags := make([]string, len(header))
	seen := make(map[string]int, len(header))
	for j, h := range header {
		if j == idCol {
			continue
		}
		t := trimString(h)
		if t == "" {
			return nil, lineErr(line, "column %d has an empty tag name", j+1)
		}
		if strings.IndexByte(t, 0) >= 0 {
			return nil, lineErr(line, "column %d: tag name contains a NUL character", j+1)
		}
		if r, kind := badRune(t); kind != "" {
			return nil, lineErr(line, "column %d: tag %q holds the %s character U+%04X: tags may not hold control or bidirectional formatting characters", j+1, t, kind, r)
		}
		if k, dup := seen[t]; dup {
			return nil, lineErr(line, "tag %q names columns %d and %d", t, k+1, j+1)
		}
		seen[t] = j
		tags[j] = t
	}
	if len(seen) == 0 {
		return nil, lineErr(line, "header has no tag columns")
	}
	return tags, nil
}

func parseTSV(br *bufio.Reader, b *builder) error {
	return eachDocLine(br, b, func(line []byte, _ int) error {
		id, rest, _ := bytes.Cut(line, []byte{'\t'})
		tagsOf(b, rest, '\t')
		return b.endOwned(string(id))
	})
}

func parseCommaLines(br *bufio.Reader, b *builder) error {
	b.lineIDs = true
	return eachDocLine(br, b, func(line []byte, n int) error {
		tagsOf(b, line, ',')
		return b.endOwned(strconv.Itoa(n))
	})
}

// tagsOf adds to b the tags of s separated by sep.
func tagsOf(b *builder, s []byte, sep byte) {
	for len(s) > 0 {
		var t []byte
		t, s, _ = bytes.Cut(s, []byte{sep})
		b.tag(t)
	}
}

package corpus

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
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

func parseJSONL(br *bufio.Reader, b *builder) error {
	l := &lineReader{br: br}
	var rec struct {
		ID   json.RawMessage `json:"id"`
		Tags *[]string       `json:"tags"`
	}
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
		rec.ID, rec.Tags = nil, nil
		if err := json.Unmarshal(line, &rec); err != nil {
			return lineErr(l.line, "invalid JSON: %v", err)
		}
		if rec.Tags == nil {
			return lineErr(l.line, `no "tags" array`)
		}
		id, err := jsonID(rec.ID, l.line)
		if err != nil {
			return err
		}
		for _, t := range *rec.Tags {
			b.tagString(t)
		}
		if err := b.end(id); err != nil {
			return err
		}
	}
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

func parseCSV(br *bufio.Reader, b *builder) error {
	cr := newCSVReader(br)
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return csvError(err)
	}
	hline, _ := cr.FieldPos(0)
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
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(err)
		}
		line, _ := cr.FieldPos(0)
		b.begin(line)
		if len(rec) < need {
			return lineErr(line, "record has %d fields, need at least %d", len(rec), need)
		}
		splitTags(rec[tagCol], b.opt.TagSep, b.tagString)
		id := strconv.Itoa(line)
		if idCol >= 0 {
			id = rec[idCol]
		}
		if err := b.end(id); err != nil {
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
	cr := newCSVReader(br)
	h, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return csvError(err)
	}
	hline, _ := cr.FieldPos(0)
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
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(err)
		}
		line, _ := cr.FieldPos(0)
		row++
		if first {
			first = false
			if idCol < 0 && len(rec) > 0 {
				if _, ok := parse01(rec[0]); !ok {
					idCol = 0
				}
			}
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
		if err := b.end(id); err != nil {
			return err
		}
	}
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

// ARFF (Weka; the multi-label datasets of mulan and MEKA use it).

type arffAttr struct {
	name    string
	kind    string   // "numeric", "string", "date", "nominal"
	values  []string // nominal values
	label   bool
	isZero1 bool // nominal with values exactly {0,1}
}

var mekaLabels = regexp.MustCompile(`-C\s+(-?\d+)`)

func parseARFF(br *bufio.Reader, b *builder) error {
	l := &lineReader{br: br}
	var attrs []arffAttr
	relation := ""
	inData := false
	for !inData {
		raw, err := l.next()
		if err == io.EOF {
			return lineErr(0, "ARFF has no @data section")
		}
		if err != nil {
			return err
		}
		line := string(trimBytes(raw))
		if line == "" || line[0] == '%' {
			continue
		}
		kw, rest := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			kw, rest = line[:i], strings.TrimSpace(line[i+1:])
		}
		switch strings.ToLower(kw) {
		case "@relation":
			relation = rest
		case "@attribute":
			a, err := parseARFFAttr(rest, l.line)
			if err != nil {
				return err
			}
			attrs = append(attrs, a)
		case "@data":
			inData = true
		default:
			return lineErr(l.line, "unexpected %q in the ARFF header", kw)
		}
	}
	if len(attrs) == 0 {
		return lineErr(l.line, "ARFF has no attributes")
	}
	if err := chooseLabels(attrs, relation, b.opt.Labels, l.line); err != nil {
		return err
	}
	idAttr := -1
	for i, a := range attrs {
		if !a.label && (a.kind == "string" || a.kind == "nominal") && nameIn(a.name, idColumnNames) {
			idAttr = i
			break
		}
	}
	vals := make([]string, 0, len(attrs)+1)
	row := 0
	for {
		raw, err := l.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		line := trimBytes(raw)
		if len(line) == 0 || line[0] == '%' {
			continue
		}
		row++
		b.begin(l.line)
		id := strconv.Itoa(row)
		if line[0] == '{' {
			id, err = arffSparseRow(string(line), attrs, idAttr, id, b, l.line)
			if err != nil {
				return err
			}
		} else {
			vals, err = splitARFFValues(string(line), ',', vals[:0], l.line)
			if err != nil {
				return err
			}
			if len(vals) == len(attrs)+1 && strings.HasPrefix(vals[len(vals)-1], "{") {
				vals = vals[:len(attrs)] // instance weight
			}
			if len(vals) != len(attrs) {
				return lineErr(l.line, "row has %d values, the header declares %d attributes", len(vals), len(attrs))
			}
			for i, v := range vals {
				switch {
				case attrs[i].label:
					present, ok := parse01(v)
					if !ok {
						return lineErr(l.line, "label %q: value %q is not 0 or 1", attrs[i].name, v)
					}
					if present {
						b.tagString(attrs[i].name)
					}
				case i == idAttr:
					id = v
				}
			}
		}
		if err := b.end(id); err != nil {
			return err
		}
	}
}

// arffSparseRow reads "{index value, …}": omitted attributes take their zero value
// (the first declared value of a nominal attribute).
func arffSparseRow(line string, attrs []arffAttr, idAttr int, id string, b *builder, lineNo int) (string, error) {
	end := closingBrace(line)
	if end < 0 {
		return "", lineErr(lineNo, "sparse row has no closing '}'")
	}
	entries := splitOutsideQuotes(line[1:end], ',')
	given := make(map[int]string, len(entries))
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		is, v, ok := strings.Cut(e, " ")
		if !ok {
			is, v, ok = strings.Cut(e, "\t")
		}
		idx, err := strconv.Atoi(strings.TrimSpace(is))
		if !ok || err != nil || idx < 0 || idx >= len(attrs) {
			return "", lineErr(lineNo, "bad sparse entry %q (want \"index value\" with index < %d)", e, len(attrs))
		}
		if _, dup := given[idx]; dup {
			return "", lineErr(lineNo, "attribute index %d given twice", idx)
		}
		vs, err := splitARFFValues(strings.TrimSpace(v), ',', nil, lineNo)
		if err != nil || len(vs) != 1 {
			return "", lineErr(lineNo, "bad sparse entry %q", e)
		}
		given[idx] = vs[0]
	}
	for i, a := range attrs {
		v, ok := given[i]
		if !ok {
			v = "0"
			if a.kind == "nominal" && len(a.values) > 0 {
				v = a.values[0]
			}
			if i == idAttr {
				v = ""
			}
		}
		switch {
		case a.label:
			present, ok := parse01(v)
			if !ok {
				return "", lineErr(lineNo, "label %q: value %q is not 0 or 1", a.name, v)
			}
			if present {
				b.tagString(a.name)
			}
		case i == idAttr:
			id = v
		}
	}
	return id, nil
}

// closingBrace returns the index of the '}' closing the '{' at s[0], outside quotes.
func closingBrace(s string) int {
	var q byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
		case q != 0:
		case (c == '\'' || c == '"') && quoteStart(s, i):
			q = c
		case c == '}':
			return i
		}
	}
	return -1
}

// quoteStart reports whether a quote at s[i] opens a quoted value: it must begin a
// token (follow the start, white space, ',' or '{').
func quoteStart(s string, i int) bool {
	return i == 0 || strings.IndexByte(" \t,{", s[i-1]) >= 0
}

// splitOutsideQuotes splits s at sep where sep is not inside a quoted string.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	var q byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
		case q != 0:
		case (c == '\'' || c == '"') && quoteStart(s, i):
			q = c
		case c == sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// splitARFFValues splits s at sep outside quotes, trims and unquotes each value.
func splitARFFValues(s string, sep byte, dst []string, line int) ([]string, error) {
	var cur strings.Builder
	quoted := false
	flush := func() {
		v := cur.String()
		if !quoted {
			v = strings.TrimSpace(v)
		}
		dst = append(dst, v)
		cur.Reset()
		quoted = false
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == sep:
			flush()
			i++
		case (c == '\'' || c == '"') && strings.TrimSpace(cur.String()) == "":
			cur.Reset()
			v, n, ok := unquoteARFF(s[i:])
			if !ok {
				return nil, lineErr(line, "unterminated quote")
			}
			cur.WriteString(v)
			quoted = true
			i += n
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i < len(s) && s[i] != sep {
				return nil, lineErr(line, "unexpected %q after a quoted value", s[i])
			}
		default:
			cur.WriteByte(c)
			i++
		}
	}
	flush()
	return dst, nil
}

// unquoteARFF reads the quoted string at the start of s (quote ' or ") with
// backslash escapes; it returns the value and the number of bytes consumed.
func unquoteARFF(s string) (string, int, bool) {
	q := s[0]
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case '\\', '\'', '"', '%':
				sb.WriteByte(e)
			default:
				sb.WriteByte('\\')
				sb.WriteByte(e)
			}
		case c == q:
			return sb.String(), i + 1, true
		default:
			sb.WriteByte(c)
		}
	}
	return "", 0, false
}

func parseARFFAttr(s string, line int) (arffAttr, error) {
	var a arffAttr
	if s == "" {
		return a, lineErr(line, "@attribute without a name")
	}
	rest := ""
	if s[0] == '\'' || s[0] == '"' {
		v, n, ok := unquoteARFF(s)
		if !ok {
			return a, lineErr(line, "unterminated quote in attribute name")
		}
		a.name, rest = v, strings.TrimSpace(s[n:])
	} else {
		i := strings.IndexAny(s, " \t{")
		if i < 0 {
			return a, lineErr(line, "attribute %q has no type", s)
		}
		a.name, rest = s[:i], strings.TrimSpace(s[i:])
	}
	if rest == "" {
		return a, lineErr(line, "attribute %q has no type", a.name)
	}
	if rest[0] == '{' {
		end := closingBrace(rest)
		if end < 0 {
			return a, lineErr(line, "attribute %q: nominal values without a closing '}'", a.name)
		}
		vals, err := splitARFFValues(rest[1:end], ',', nil, line)
		if err != nil {
			return a, err
		}
		a.kind, a.values = "nominal", vals
		a.isZero1 = len(vals) == 2 && (vals[0] == "0" && vals[1] == "1" || vals[0] == "1" && vals[1] == "0")
		return a, nil
	}
	kind, _, _ := strings.Cut(rest, " ")
	switch k := strings.ToLower(kind); k {
	case "numeric", "real", "integer":
		a.kind = "numeric"
	case "string", "date":
		a.kind = k
	default:
		return a, lineErr(line, "attribute %q: unsupported type %q", a.name, kind)
	}
	return a, nil
}

// chooseLabels marks the label attributes: the names given, else MEKA's "-C n" in
// the relation name (n > 0: the first n attributes; n < 0: the last -n), else every
// nominal attribute with values exactly {0,1}.
func chooseLabels(attrs []arffAttr, relation string, names []string, line int) error {
	switch m := mekaLabels.FindStringSubmatch(relation); {
	case len(names) > 0:
		for _, n := range names {
			found := false
			for i := range attrs {
				if attrs[i].name == n {
					attrs[i].label, found = true, true
				}
			}
			if !found {
				return lineErr(0, "label attribute %q not found in the ARFF header", n)
			}
		}
	case m != nil:
		n, err := strconv.Atoi(m[1])
		if err != nil || n == 0 || abs(n) > len(attrs) {
			return lineErr(0, "relation option -C %s does not fit the %d attributes", m[1], len(attrs))
		}
		lo, hi := 0, n
		if n < 0 {
			lo, hi = len(attrs)+n, len(attrs)
		}
		for i := lo; i < hi; i++ {
			attrs[i].label = true
		}
	default:
		any := false
		for i := range attrs {
			if attrs[i].isZero1 {
				attrs[i].label, any = true, true
			}
		}
		if !any {
			return lineErr(line, "ARFF has no label attributes (nominal {0,1}); name them with ParseOptions.Labels")
		}
	}
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Detect guesses the format of a corpus from a prefix of it (Parse looks at the
// first 64 KiB). Rules, in order: a '%' comment or '@relation' first → arff; '{'
// first → jsonl; a tab in any of the first lines → tsv; a comma-separated header
// whose rows all have its width and 0/1 cells (besides an id column) → matrix; a
// header with a tags column (tags, tag, labels, label, terms, keywords) → csv;
// otherwise lines. Input with a NUL byte is an error; so is an empty prefix; so
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

package corpus

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// arffAttr is one attribute of an ARFF file (Weka; the multi-label datasets of
// mulan and MEKA use the format).
type arffAttr struct {
	name    string
	kind    string   // "numeric", "string", "date", "nominal"
	values  []string // nominal values
	label   bool
	isZero1 bool // nominal with values exactly {0,1}
}

var mekaLabels = regexp.MustCompile(`-C\s+(-?\d+)`)

// parseARFF reads an ARFF corpus: its header, then one document per data row,
// dense or sparse.
func parseARFF(br *bufio.Reader, b *builder) error {
	l := &lineReader{br: br}
	attrs, relation, err := readARFFHeader(l)
	if err != nil {
		return err
	}
	if len(attrs) == 0 {
		return lineErr(l.line, "ARFF has no attributes")
	}
	if err := chooseLabels(attrs, relation, b.opt.Labels, l.line); err != nil {
		return err
	}
	idAttr := arffIDAttr(attrs)
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
		} else {
			id, vals, err = arffDenseRow(string(line), attrs, idAttr, id, vals, b, l.line)
		}
		if err != nil {
			return err
		}
		if err := b.end(id); err != nil {
			return err
		}
	}
}

// readARFFHeader reads the header up to and including the @data line and
// returns the declared attributes and the relation name.
func readARFFHeader(l *lineReader) ([]arffAttr, string, error) {
	var attrs []arffAttr
	relation := ""
	for {
		raw, err := l.next()
		if err == io.EOF {
			return nil, "", lineErr(0, "ARFF has no @data section")
		}
		if err != nil {
			return nil, "", err
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
				return nil, "", err
			}
			attrs = append(attrs, a)
		case "@data":
			return attrs, relation, nil
		default:
			return nil, "", lineErr(l.line, "unexpected %q in the ARFF header", kw)
		}
	}
}

// arffIDAttr returns the index of the first string or nominal attribute that
// is not a label and has an id column name, or -1.
func arffIDAttr(attrs []arffAttr) int {
	for i, a := range attrs {
		if !a.label && (a.kind == "string" || a.kind == "nominal") && nameIn(a.name, idColumnNames) {
			return i
		}
	}
	return -1
}

// arffDenseRow reads a comma-separated data row: it tags the document with
// the labels whose value is 1 and returns the row's id (the id attribute's
// value, else id) and the values, read into vals.
func arffDenseRow(line string, attrs []arffAttr, idAttr int, id string, vals []string, b *builder, lineNo int) (string, []string, error) {
	vals, err := splitARFFValues(line, ',', vals[:0], lineNo)
	if err != nil {
		return id, vals, err
	}
	if len(vals) == len(attrs)+1 && strings.HasPrefix(vals[len(vals)-1], "{") {
		vals = vals[:len(attrs)] // instance weight
	}
	if len(vals) != len(attrs) {
		return id, vals, lineErr(lineNo, "row has %d values, the header declares %d attributes", len(vals), len(attrs))
	}
	for i, v := range vals {
		switch {
		case attrs[i].label:
			present, ok := parse01(v)
			if !ok {
				return id, vals, lineErr(lineNo, "label %q: value %q is not 0 or 1", attrs[i].name, v)
			}
			if present {
				b.tagString(attrs[i].name)
			}
		case i == idAttr:
			id = v
		}
	}
	return id, vals, nil
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
	return scanOutsideQuotes(s, 1, func(i int) bool { return s[i] == '}' })
}

// scanOutsideQuotes calls at(i) for each s[i], from i = from on, that is not
// inside a quoted value (where a backslash escapes the next byte) nor a quote
// opening one, until at returns true; it returns that i, or -1.
func scanOutsideQuotes(s string, from int, at func(i int) bool) int {
	var q byte
	for i := from; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
		case q != 0:
		case (c == '\'' || c == '"') && quoteStart(s, i):
			q = c
		case at(i):
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
	start := 0
	scanOutsideQuotes(s, 0, func(i int) bool {
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
		return false
	})
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

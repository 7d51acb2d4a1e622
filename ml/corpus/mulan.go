package corpus

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// ReadMulanLabels reads the label names of a mulan XML label file
// (<labels xmlns="http://mulan.sourceforge.net/labels"><label name="a"></label>…),
// including nested (hierarchical) labels, in document order. Pass them as
// ParseOptions.Labels: mulan datasets with binary features (bibtex, enron, medical, …)
// declare features and labels alike as {0,1}, so only this file tells them apart.
func ReadMulanLabels(r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	var names []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, _ := dec.InputPos()
			return nil, fmt.Errorf("corpus: mulan labels: %w", lineErr(line, "%v", err))
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "label" {
			name := ""
			for _, a := range se.Attr {
				if a.Name.Local == "name" {
					name = a.Value
				}
			}
			if name == "" {
				line, _ := dec.InputPos()
				return nil, fmt.Errorf("corpus: mulan labels: %w", lineErr(line, "<label> without a name"))
			}
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("corpus: mulan labels: %w", lineErr(0, "no <label> elements"))
	}
	return names, nil
}

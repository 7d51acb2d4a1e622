package corpus

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadMulanLabels(t *testing.T) {
	in := `<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="TAG_music"><label name="TAG_jazz"></label></label>
<label name="TAG_art"></label>
</labels>`
	got, err := ReadMulanLabels(strings.NewReader(in))
	if want := []string{"TAG_music", "TAG_jazz", "TAG_art"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, %v, want %q", got, err, want)
	}
	// Binary features and labels are both {0,1}: only the XML tells them apart.
	arff := "@relation bib\n@attribute w_the {0,1}\n@attribute w_graph {0,1}\n@attribute TAG_music {0,1}\n@attribute TAG_jazz {0,1}\n@attribute TAG_art {0,1}\n@data\n{0 1,2 1,3 1}\n{1 1,4 1}\n"
	c, err := Parse(strings.NewReader(arff), ParseOptions{Labels: got})
	if err != nil {
		t.Fatal(err)
	}
	if want := docs("1|TAG_music,TAG_jazz", "2|TAG_art"); !reflect.DeepEqual(c.Docs, want) {
		t.Errorf("got %q, want %q", c.Docs, want)
	}
	for _, bad := range []string{`<labels></labels>`, `<labels><label></label></labels>`, `<labels><label name="a">`} {
		if _, err := ReadMulanLabels(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: got no error", bad)
		}
	}
}

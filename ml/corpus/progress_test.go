package corpus

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/testkit"
)

// TestParseProgress: ParseOptions.Progress is called every ProgressEvery
// documents read, with growing counts, and once at the end with every
// document read (kept, dropped or skipped) and the input's bytes; for a gzip
// input, the bytes are those decompressed.
func TestParseProgress(t *testing.T) {
	var b strings.Builder
	n := 2*ProgressEvery + 17
	for i := range n {
		if i == 5 {
			fmt.Fprintf(&b, "d%d\n", i) // dropped: no tags
			continue
		}
		fmt.Fprintf(&b, "d%d\trock\tt%d\n", i, i%50)
	}
	text := b.String()
	for _, in := range []struct {
		name string
		data string
	}{{"plain", text}, {"gzip", string(testkit.Gzip(t, text))}} {
		t.Run(in.name, func(t *testing.T) {
			var got []Progress
			c, err := Parse(strings.NewReader(in.data), ParseOptions{Progress: func(p Progress) { got = append(got, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Docs) != n-1 || len(got) != 3 {
				t.Fatalf("%d documents, %d reports %v", len(c.Docs), len(got), got)
			}
			for i, p := range got[:2] {
				if p.Docs != (i+1)*ProgressEvery || p.Bytes <= 0 || p.Bytes > int64(len(text)) || i > 0 && p.Bytes < got[i-1].Bytes {
					t.Errorf("report %d: %+v", i, p)
				}
			}
			if last := got[2]; last.Docs != n || last.Bytes != int64(len(text)) {
				t.Errorf("last report %+v, want %d documents and %d bytes", last, n, len(text))
			}
		})
	}
}

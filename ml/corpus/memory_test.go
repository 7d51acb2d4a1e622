package corpus

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// genLines streams n lines written by line through a pipe, so that the input
// is never held whole.
func genLines(n int, line func(w *bufio.Writer, i int)) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 64<<10)
		for i := range n {
			line(w, i)
		}
		pw.CloseWithError(w.Flush())
	}()
	return pr
}

// memShapes are corpora of the shapes that stress each cost of the memory
// estimate: many one-tag documents, many tag uses, many distinct tags, many
// dropped documents.
var memShapes = []struct {
	name string
	n    int
	line func(w *bufio.Writer, i int)
}{
	{"one tag per document", 400_000, func(w *bufio.Writer, i int) { fmt.Fprintf(w, "d%d\tt%d\n", i, i%1000) }},
	{"200 tags per document", 5_000, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "%d", i)
		for j := range 200 {
			fmt.Fprintf(w, "\tt%d", (i+7*j)%1000)
		}
		w.WriteByte('\n')
	}},
	{"distinct tags", 40_000, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "doc%d", i)
		for j := range 10 {
			fmt.Fprintf(w, "\ttag%08d", 10*i+j)
		}
		w.WriteByte('\n')
	}},
	{"documents without tags", 400_000, func(w *bufio.Writer, i int) { fmt.Fprintf(w, "d%d\t\n", i) }},
}

// TestMemoryEstimate checks ParseOptions.MaxMemory's estimate against the heap
// a parse holds: the estimate is not below it by more than 5 % (so the budget
// bounds the memory) nor more than twice it (so the budget does not refuse
// corpora that would fit).
func TestMemoryEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 850,000 documents")
	}
	for _, sh := range memShapes {
		t.Run(sh.name, func(t *testing.T) {
			opt := ParseOptions{Format: FormatTSV}
			opt.defaults()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b := newBuilder(opt, FormatTSV)
			if err := parseTSV(bufio.NewReader(genLines(sh.n, sh.line)), b); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			t.Logf("%d documents, %d tag uses, %d tags: held %.1f MB, estimate %.1f MB (%.2f)",
				b.read, b.uses, len(b.intern), float64(held)/1e6, float64(b.mem)/1e6, float64(b.mem)/float64(held))
			if float64(b.mem) < 0.95*float64(held) || b.mem > 2*held {
				t.Errorf("estimate %d bytes, held %d", b.mem, held)
			}
			runtime.KeepAlive(b)
		})
	}
}

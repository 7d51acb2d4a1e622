package server

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/taglens/taglens/internal/app"
)

// The binary form of an instance map (docs/api.md, "Instance map"): one
// response, a small header and then the columns, each a little-endian typed
// array the browser reads without copying (new Float32Array(buffer, offset, n)):
//
//	bytes 0-3   "TLI1"
//	bytes 4-7   H, the header's length (uint32, little-endian)
//	bytes 8…    the header, JSON (UTF-8), padded with spaces so that 8+H is a
//	            multiple of 4
//	then        the columns in the header's order, n entries each: x, y
//	            (float32), term (uint32, index into the header's terms),
//	            doc (uint32, index into the model's training documents,
//	            GET …/instances/docs), topic (int16, the document's LDA
//	            topic, −1: none; last, so that every column before it stays
//	            4-byte aligned)
//
// 18 bytes an instance: 18 MB for 10^6 (JSON arrays of the same numbers
// would take 40-50 MB and a parse of several seconds).
const instanceMagic = "TLI1"

// instanceColumn names a column of the binary form and its type.
type instanceColumn struct {
	Name string `json:"name"`
	Type string `json:"type"` // float32, uint32, int16
}

// instanceColumns are the columns, in their order.
var instanceColumns = []instanceColumn{{"x", "float32"}, {"y", "float32"}, {"term", "uint32"}, {"doc", "uint32"}, {"topic", "int16"}}

// instanceHeader is the binary form's JSON header.
type instanceHeader struct {
	Format     string           `json:"format"` // "taglens-instances/1"
	N          int              `json:"n"`
	Variant    string           `json:"variant"`
	Perplexity float64          `json:"perplexity,omitempty"` // the whole-space map's t-SNE
	Iterations int              `json:"iterations,omitempty"`
	Seed       uint64           `json:"seed"`
	Stride     int              `json:"stride"`    // every stride-th training document (1: all)
	Documents  int              `json:"documents"` // the model's training documents
	Topics     int              `json:"topics"`    // LDA topics (the topic column's range)
	Terms      []string         `json:"terms"`     // the vocabulary: the term column's values index it
	TermDocs   []int            `json:"term_docs"` // training documents holding each term
	Columns    []instanceColumn `json:"columns"`
}

// encodeInstances writes an instance map in its binary form.
func encodeInstances(h instanceHeader, in *app.Instances) ([]byte, error) {
	n := len(in.X)
	if len(in.Y) != n || len(in.Term) != n || len(in.Doc) != n || len(in.Topic) != n {
		return nil, fmt.Errorf("instance map: columns of %d, %d, %d, %d and %d", n, len(in.Y), len(in.Term), len(in.Doc), len(in.Topic))
	}
	h.Format, h.N, h.Columns = "taglens-instances/1", n, instanceColumns
	js, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	for (8+len(js))%4 != 0 {
		js = append(js, ' ')
	}
	b := make([]byte, 0, 8+len(js)+18*n)
	b = append(b, instanceMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	b = append(b, js...)
	for _, v := range in.X {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	for _, v := range in.Y {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	for _, v := range in.Term {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range in.Doc {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range in.Topic {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	return b, nil
}

// decodeInstances reads what encodeInstances writes (for the tests and the
// benchmark's checks).
func decodeInstances(b []byte) (*instanceHeader, *app.Instances, error) {
	if len(b) < 8 || string(b[:4]) != instanceMagic {
		return nil, nil, fmt.Errorf("instance map: not %s data", instanceMagic)
	}
	hl := int(binary.LittleEndian.Uint32(b[4:8]))
	if 8+hl > len(b) {
		return nil, nil, fmt.Errorf("instance map: header of %d bytes in %d", hl, len(b))
	}
	var h instanceHeader
	if err := json.Unmarshal(b[8:8+hl], &h); err != nil {
		return nil, nil, fmt.Errorf("instance map header: %w", err)
	}
	n, p := h.N, b[8+hl:]
	if len(p) != 18*n {
		return nil, nil, fmt.Errorf("instance map: %d bytes of columns for %d instances", len(p), n)
	}
	in := &app.Instances{X: make([]float32, n), Y: make([]float32, n), Term: make([]uint32, n), Doc: make([]uint32, n), Topic: make([]int16, n)}
	u32 := func(k, i int) uint32 { return binary.LittleEndian.Uint32(p[4*(k*n+i):]) }
	for i := range n {
		in.X[i], in.Y[i] = math.Float32frombits(u32(0, i)), math.Float32frombits(u32(1, i))
		in.Term[i], in.Doc[i] = u32(2, i), u32(3, i)
		in.Topic[i] = int16(binary.LittleEndian.Uint16(p[16*n+2*i:]))
	}
	return &h, in, nil
}

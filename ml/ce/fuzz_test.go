package ce

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds mutated model payloads to the decoder (the file's SHA-256
// would reject nearly every random file before decoding, so the fuzzer aims past
// it). A payload must give an error or a model that embeds a term in a context;
// never a panic, and never an allocation sized by a corrupt length field alone.
// Run: go test ./ml/ce -run '^$' -fuzz FuzzDecode -fuzztime 10m.
func FuzzDecode(f *testing.F) {
	tc, m := trainSmall(f)
	payload, err := m.encode()
	if err != nil {
		f.Fatal(err)
	}
	legacy, err := m.encodeWith(func(e *encoder) error { encodeInfoBinary(e, m.Info()); return nil })
	if err != nil {
		f.Fatal(err)
	}
	f.Add(legacy, uint32(11))
	f.Add(payload, uint32(FormatVersion))
	f.Add(payload[:len(payload)/2], uint32(FormatVersion))
	f.Add(payload, uint32(1))
	doc := tc.c.Docs[0].Tags
	f.Fuzz(func(t *testing.T, b []byte, version uint32) {
		version = 1 + version%FormatVersion
		got, err := decode(b, version)
		if err != nil {
			return
		}
		if got.Vocabulary().Len() == 0 {
			t.Fatal("decoded a model without a vocabulary")
		}
		// A model that decodes must be usable: embedding may fail with an
		// error (e.g. none of the terms is in a mutated vocabulary), never panic.
		for _, v := range Variants {
			got.Embed(v, doc)
		}
	})
}

// FuzzRead runs whole files through Read: the frame (magic, version, length,
// SHA-256) must reject every damaged file with ErrCorrupt or a version error.
func FuzzRead(f *testing.F) {
	_, m := trainSmall(f)
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		f.Fatal(err)
	}
	file := buf.Bytes()
	f.Add(file)
	f.Add(file[:len(file)-1])
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := Read(bytes.NewReader(b)); err == nil && !bytes.Equal(b, file) {
			t.Fatal("accepted a file that differs from the one written")
		}
	})
}

package prefetch

import (
	"testing"
	"unsafe"
)

// TestBytes checks that the hint reads and writes nothing it should not: over
// lengths and offsets around cache lines, the memory is unchanged and nothing
// faults at either end of an allocation.
func TestBytes(t *testing.T) {
	buf := make([]byte, 1000)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for off := 0; off < 70; off++ {
		for n := 0; off+n <= len(buf); n += 1 + n/3 {
			if n == 0 {
				Bytes(unsafe.Pointer(&buf[0]), 0)
				continue
			}
			Bytes(unsafe.Pointer(&buf[off]), n)
		}
	}
	for i := range buf {
		if buf[i] != byte(i*7) {
			t.Fatalf("byte %d changed", i)
		}
	}
}

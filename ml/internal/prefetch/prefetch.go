// Package prefetch hints the processor to bring memory into its caches ahead
// of its use: loops whose next rows are known but scattered (a random order of
// pairs, a sparse matrix's columns) start their loads early. A hint reads and
// changes nothing, so no result depends on it.
package prefetch

import "unsafe"

// Bytes asks the processor to cache the n bytes from p (n ≥ 1). It does
// nothing without the assembly (other architectures, or the purego tag).
func Bytes(p unsafe.Pointer, n int) {
	if n > 0 {
		bytes(p, n)
	}
}

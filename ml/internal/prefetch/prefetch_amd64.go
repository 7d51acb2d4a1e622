//go:build amd64 && !purego

package prefetch

import "unsafe"

//go:noescape
func bytes(p unsafe.Pointer, n int)

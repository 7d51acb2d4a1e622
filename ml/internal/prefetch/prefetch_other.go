//go:build !amd64 || purego

package prefetch

import "unsafe"

func bytes(p unsafe.Pointer, n int) {}

//go:build !unix

package cputime

import "time"

// Process returns 0, false: this system's CPU time is not read.
func Process() (time.Duration, bool) { return 0, false }

//go:build !unix

package main

import "time"

// processCPU is unknown here.
func processCPU() (time.Duration, bool) { return 0, false }

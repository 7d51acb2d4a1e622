//go:build !unix

package ce

import "time"

// processCPU is unavailable here: the per-CPU-second metric is skipped.
func processCPU() time.Duration { return 0 }

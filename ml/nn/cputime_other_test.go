//go:build !unix

package nn

import "time"

func processCPU() time.Duration { return 0 }

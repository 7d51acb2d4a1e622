//go:build unix

package ce

import (
	"syscall"
	"time"
)

// processCPU returns the user + system CPU time of the process so far.
func processCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

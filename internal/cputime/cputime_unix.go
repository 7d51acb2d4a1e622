//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user + system CPU time of the process so far, and
// whether it is known.
func Process() (time.Duration, bool) {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}

package nn

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestTeamRunsEveryPart runs many regions back to back, some after a pause
// longer than helperLinger (the helper has exited and must be started again),
// with 1 to 4 parts, under GOMAXPROCS 1 and 2, and checks that every part ran
// exactly once per region and had finished when run returned.
func TestTeamRunsEveryPart(t *testing.T) {
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		var tm team
		for r := range 300 {
			n := 1 + r%4
			var done [4]atomic.Int32
			tm.run(n, func(i int) {
				if r%7 == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				done[i].Add(1)
			})
			for i := range 4 {
				want := int32(0)
				if i < n {
					want = 1
				}
				if got := done[i].Load(); got != want {
					runtime.GOMAXPROCS(old)
					t.Fatalf("GOMAXPROCS=%d region %d (%d parts): part %d ran %d times, want %d", procs, r, n, i, got, want)
				}
			}
			if r%50 == 49 {
				time.Sleep(3 * helperLinger)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestTeamHelpersExit checks that a team's helpers exit by themselves after
// helperLinger without a region, so that a dropped team leaves no goroutine.
func TestTeamHelpersExit(t *testing.T) {
	before := runtime.NumGoroutine()
	var tm team
	tm.run(3, func(int) {})
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 5 s after the last region, %d before it", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
	for _, h := range tm.helpers {
		if s := h.state.Load(); s != helperGone {
			t.Fatalf("helper state %d after it exited, want helperGone", s)
		}
	}
}

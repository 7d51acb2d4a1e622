package nn

import (
	"runtime"
	"sync/atomic"
	"time"
)

// A team runs the parts of a parallel region: part 0..n-2 on helper goroutines
// and the last part on the caller, then waits for all of them.
//
// A training step has five or six such regions of a few hundred microseconds
// each (packing, gathering, the parts' passes, the gradient sum, the SGD
// update). Starting a goroutine for each region means waking a parked thread,
// which costs tens of microseconds every time; on the 2-core target that was a
// quarter of a step. A team's helper instead lingers after its part: it polls
// for the next region for up to helperLinger (yielding the processor between
// polls, so that with GOMAXPROCS=1 or beside other work it takes nothing from
// runnable goroutines) and only then exits. Between steps and regions it is
// therefore still there; after the last region of a burst it is gone within
// helperLinger, so a team needs no Close.
//
// Which part computes what does not depend on the team: the results are the
// same bytes as with one goroutine per part or a plain loop over the parts.
// The zero team is ready to use; a team is not safe for concurrent use.
type team struct {
	helpers []*helper
}

// helperLinger is how long an idle helper waits for the next region before it
// exits.
const helperLinger = 200 * time.Microsecond

// States of a helper.
const (
	helperGone    int32 = iota // no goroutine: the next post starts one
	helperIdle                 // lingering, polling for a job
	helperPosted               // a job is posted, not yet taken
	helperRunning              // running a job
)

type helper struct {
	state atomic.Int32
	job   func() // written by the poster before the state says so, read by the helper after
}

// run calls f(i) for i in [0, n) concurrently, f(n-1) on the calling
// goroutine, and returns when every call has returned.
func (t *team) run(n int, f func(i int)) {
	if n <= 0 {
		return
	}
	for len(t.helpers) < n-1 {
		t.helpers = append(t.helpers, new(helper))
	}
	for i, h := range t.helpers[:n-1] {
		h.post(func() { f(i) })
	}
	f(n - 1)
	for _, h := range t.helpers[:n-1] {
		h.wait()
	}
}

// post hands job to the helper, starting its goroutine if it has exited. The
// previous job must be finished (wait).
func (h *helper) post(job func()) {
	h.job = job
	if h.state.CompareAndSwap(helperIdle, helperPosted) {
		return
	}
	// The helper has exited (helperGone: the only other state after wait).
	h.state.Store(helperRunning)
	go h.loop()
}

// loop runs posted jobs until no job comes for helperLinger.
func (h *helper) loop() {
	for {
		h.job()
		h.job = nil
		h.state.Store(helperIdle) // the poster's wait ends here
		if !h.next() {
			return
		}
	}
}

// next polls for the next job and reports whether one came (its state is then
// helperRunning) or the helper has gone.
func (h *helper) next() bool {
	start := time.Now()
	for spin := 1; ; spin++ {
		if h.state.CompareAndSwap(helperPosted, helperRunning) {
			return true
		}
		if spin%32 == 0 && time.Since(start) > helperLinger && h.state.CompareAndSwap(helperIdle, helperGone) {
			return false
		}
		runtime.Gosched()
	}
}

// wait returns when the helper's job has finished.
func (h *helper) wait() {
	for {
		if s := h.state.Load(); s == helperIdle || s == helperGone {
			return
		}
		runtime.Gosched()
	}
}

// Package jobs runs the web app's background work (trainings, maps,
// evaluations) as jobs: two lanes of slots with FIFO queues (lanes.go), the
// job states written to the store (server/store), progress and training-curve
// points fanned out to subscribers (the SSE streams of the handlers), and
// cancellation and shutdown. It knows nothing of HTTP.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/taglens/taglens/server/store"
)

// An Event is one job update sent to subscribers (and over SSE as JSON).
type Event struct {
	Job *store.JobRow `json:"job"`
	// Point, when set, is a new training-curve point.
	Point *store.TrainPoint `json:"point,omitempty"`
	// ETA is the estimated remaining time in seconds (0 when unknown).
	ETA float64 `json:"eta,omitempty"`
}

// A Func does the work of a job. It reports progress through rep and must
// return promptly once ctx is cancelled.
// A Func is the work of a job. It is always called, also when the job was
// cancelled while still queued (ctx is then already done): it must return
// promptly on a done ctx, after recording the outcome on what it owns.
type Func func(ctx context.Context, rep *Reporter) error

// Runner runs background jobs in two lanes, each with its own slots (one per
// CPU core by default): trainings in one, and in the other the interactive
// work a person waits for at the screen (maps, evaluations, any other kind),
// so that a map starts at once however many trainings run. Within a lane at
// most its slots run at a time and the rest wait in FIFO order, each queued
// job's message saying why it waits and its place in the queue. State
// changes are written to the store and fanned out to subscribers.
type Runner struct {
	store *store.Store
	log   *slog.Logger
	root  context.Context
	stop  context.CancelFunc
	lanes map[string]*lane
	wg    sync.WaitGroup

	// MaxQueued bounds the jobs of one kind waiting for a slot (0: no bound);
	// Submit refuses one more with a *QueueFullError.
	MaxQueued int
	// Keep is how many finished jobs of a kind the store keeps (Store.PruneJobs,
	// run as a job ends); 0 keeps all.
	Keep int

	mu      sync.Mutex
	running map[string]*runningJob
	closed  bool
}

type runningJob struct {
	row  *store.JobRow
	lane *lane
	// start is closed when the job is given a slot of its lane (granted set,
	// under Runner.mu).
	start   chan struct{}
	granted bool
	cancel  context.CancelCauseFunc
	subs    map[chan Event]struct{}
	done    chan struct{}
	started time.Time
	eta     float64
	// estimate is the job's own estimate of its remaining time (Reporter.Estimate),
	// made at estAt; zero: extrapolate the fraction done.
	estimate time.Duration
	estAt    time.Time
}

// ErrCancelled is the cause of a job cancelled by a user.
var ErrCancelled = errors.New("cancelled by user")

// ErrShutdown is the cause of a job stopped by server shutdown.
var ErrShutdown = errors.New("server shutting down")

// New returns a job runner whose jobs run under parent, with the given
// number of concurrent slots (≥1) in each lane: slots trainings and, besides
// them, slots maps or evaluations at a time.
func New(parent context.Context, st *store.Store, slots int, log *slog.Logger) *Runner {
	if slots < 1 {
		slots = 1
	}
	root, stop := context.WithCancel(parent)
	return &Runner{store: st, log: log, root: root, stop: stop, running: map[string]*runningJob{},
		lanes: map[string]*lane{
			laneTraining:    {name: laneTraining, slots: slots},
			laneInteractive: {name: laneInteractive, slots: slots},
		}}
}

// Submit stores a new queued job and starts it in the background.
func (m *Runner) Submit(kind, target string, params any, fn Func) (*store.JobRow, error) {
	return m.SubmitWith(kind, target, params, fn, nil)
}

// SubmitWith is Submit where record, when not nil, writes what the job's owner
// keeps of it (a model's state and job id, an evaluation's job id) in the
// transaction that stores the job. The job starts only once both are
// committed, so nothing the job writes can be overwritten by its submitter,
// and when record fails, or the queue of the job's kind is full
// (*QueueFullError), nothing is stored.
func (m *Runner) SubmitWith(kind, target string, params any, fn Func, record func(tx *store.Tx, job *store.JobRow) error) (*store.JobRow, error) {
	pj, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("jobs: params: %w", err)
	}
	row := &store.JobRow{Kind: kind, TargetID: target, Params: pj}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrShutdown
	}
	if m.MaxQueued > 0 {
		if n := m.queuedLocked(kind); n >= m.MaxQueued {
			return nil, &QueueFullError{Kind: kind, Queued: n, Limit: m.MaxQueued}
		}
	}
	var with func(*store.Tx) error
	if record != nil {
		with = func(tx *store.Tx) error { return record(tx, row) }
	}
	if err := m.store.InsertJobWith(m.root, row, with); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	ctx, cancel := context.WithCancelCause(m.root)
	rj := &runningJob{row: row, cancel: cancel, subs: map[chan Event]struct{}{}, done: make(chan struct{}),
		lane: m.lanes[laneOf(kind)], start: make(chan struct{})}
	m.enqueueLocked(rj)
	m.running[row.ID] = rj
	m.wg.Add(1)
	go m.run(ctx, rj, fn)
	cp := *row
	return &cp, nil
}

// queuedLocked counts the jobs of kind waiting for a slot (m.mu held).
func (m *Runner) queuedLocked(kind string) int {
	n := 0
	for _, rj := range m.running {
		if rj.row.Kind == kind && rj.row.State == store.JobQueued {
			n++
		}
	}
	return n
}

// A QueueFullError refuses a job whose kind already has Limit jobs waiting
// for a slot.
type QueueFullError struct {
	Kind          string
	Queued, Limit int
}

func (e *QueueFullError) Error() string {
	return fmt.Sprintf("too many queued jobs: %d %s jobs are waiting, the limit is %d queued jobs of a kind (taglens serve --max-queued); try again when some have finished",
		e.Queued, e.Kind, e.Limit)
}

func (m *Runner) run(ctx context.Context, rj *runningJob, fn Func) {
	defer m.wg.Done()
	defer close(rj.done)
	if m.acquire(ctx, rj) {
		defer m.release(rj)
	}
	// Cancelled while queued, fn still runs, with the dead context, so that it
	// records the outcome on what it owns (a training job marks its model
	// cancelled); every Func returns at once on a cancelled context.
	if ctx.Err() == nil {
		m.update(rj, func(j *store.JobRow) {
			j.State = store.JobRunning
			j.StartedAt = time.Now()
			j.Stage, j.Message = "", "started"
		}, nil)
	}
	rj.started = time.Now()
	rep := &Reporter{m: m, rj: rj}
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("internal error: %v", p)
				m.log.Error("job panicked", "job", rj.row.ID, "kind", rj.row.Kind, "panic", p)
			}
		}()
		err = fn(ctx, rep)
	}()
	if ctx.Err() != nil {
		// Whatever the job returned, the cause says who stopped it.
		err = context.Cause(ctx)
	}
	m.finish(rj, err)
}

// finish records the final state and closes every subscriber channel.
func (m *Runner) finish(rj *runningJob, err error) {
	state, msg := store.JobDone, ""
	switch {
	case err == nil:
	case errors.Is(err, ErrCancelled):
		state, msg = store.JobCancelled, "cancelled"
	case errors.Is(err, ErrShutdown) || errors.Is(err, context.Canceled):
		state, msg = store.JobInterrupted, "interrupted by server shutdown; restart it from its page"
	default:
		state, msg = store.JobFailed, err.Error()
	}
	if err != nil {
		m.log.Info("job ended", "job", rj.row.ID, "kind", rj.row.Kind, "state", state, "err", err)
	} else {
		m.log.Info("job done", "job", rj.row.ID, "kind", rj.row.Kind)
	}
	m.update(rj, func(j *store.JobRow) {
		j.State = state
		if state == store.JobDone {
			j.Progress = 1
			if msg == "" && j.Message == "" {
				j.Message = "done"
			}
		} else {
			j.Message = msg
		}
		j.FinishedAt = time.Now()
	}, nil)
	if m.Keep > 0 {
		if n, err := m.store.PruneJobs(context.WithoutCancel(m.root), rj.row.Kind, m.Keep); err != nil {
			m.log.Warn("pruning the job history", "kind", rj.row.Kind, "err", err)
		} else if n > 0 {
			m.log.Debug("pruned the job history", "kind", rj.row.Kind, "deleted", n)
		}
	}
	m.mu.Lock()
	for ch := range rj.subs {
		close(ch) // the manager owns subscriber channels
	}
	rj.subs = nil
	delete(m.running, rj.row.ID)
	m.mu.Unlock()
}

// update applies f to the job row, persists it and broadcasts the result.
func (m *Runner) update(rj *runningJob, f func(*store.JobRow), pt *store.TrainPoint) {
	m.updateIf(rj, func(j *store.JobRow) bool { f(j); return true }, pt, true)
}

// updateIf is update where f reports whether it changed the row: nothing
// is persisted or broadcast when it did not; with persist false the change
// is only broadcast and kept in memory. (Only the job's own goroutine
// persists its row, so rows reach the store in order: a queued job's place
// in the queue, changed by other jobs' goroutines, is not stored; the store
// is read for finished jobs only.)
func (m *Runner) updateIf(rj *runningJob, f func(*store.JobRow) bool, pt *store.TrainPoint, persist bool) {
	m.mu.Lock()
	if !f(rj.row) {
		m.mu.Unlock()
		return
	}
	switch {
	case rj.row.State == store.JobRunning && rj.estimate > 0:
		rj.eta = max(rj.estimate-time.Since(rj.estAt), 0).Seconds()
	case rj.row.State == store.JobRunning && rj.row.Progress > 0.01 && !rj.started.IsZero():
		el := time.Since(rj.started).Seconds()
		rj.eta = el * (1 - rj.row.Progress) / rj.row.Progress
	}
	cp := *rj.row
	ev := Event{Job: &cp, Point: pt, ETA: rj.eta}
	for ch := range rj.subs {
		select {
		case ch <- ev:
		default: // a slow subscriber misses this update rather than blocking the job
		}
	}
	m.mu.Unlock()
	if !persist {
		return
	}
	// Persist outside the lock; a closed store at shutdown is only logged.
	if err := m.store.UpdateJob(context.WithoutCancel(m.root), &cp); err != nil {
		m.log.Warn("job update not stored", "job", cp.ID, "err", err)
	}
}

// Get returns the live state of a running job, or the stored one.
func (m *Runner) Get(ctx context.Context, id string) (*store.JobRow, float64, error) {
	m.mu.Lock()
	if rj, ok := m.running[id]; ok {
		cp := *rj.row
		eta := rj.eta
		m.mu.Unlock()
		return &cp, eta, nil
	}
	m.mu.Unlock()
	j, err := m.store.Job(ctx, id)
	return j, 0, err
}

// A Live is a copy of a queued or running job's row with its ETA.
type Live struct {
	Row *store.JobRow
	ETA float64
}

// Active returns the jobs still queued or running, newest first, from memory
// (no store access).
func (m *Runner) Active() []Live {
	m.mu.Lock()
	out := make([]Live, 0, len(m.running))
	for _, rj := range m.running {
		cp := *rj.row
		out = append(out, Live{Row: &cp, ETA: rj.eta})
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b Live) int {
		if c := b.Row.CreatedAt.Compare(a.Row.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Row.ID, b.Row.ID)
	})
	return out
}

// LiveStates returns the states of the jobs queued or running, by id, from
// memory.
func (m *Runner) LiveStates() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.running))
	for id, rj := range m.running {
		out[id] = rj.row.State
	}
	return out
}

// Subscribe returns a channel of the job's updates, starting with its current
// state, and a function to unsubscribe. The channel is closed when the job ends
// (or at once, after the current state, if it has already ended).
func (m *Runner) Subscribe(ctx context.Context, id string) (<-chan Event, func(), error) {
	ch := make(chan Event, 16)
	m.mu.Lock()
	if rj, ok := m.running[id]; ok {
		cp := *rj.row
		ch <- Event{Job: &cp, ETA: rj.eta}
		rj.subs[ch] = struct{}{}
		m.mu.Unlock()
		unsub := func() {
			m.mu.Lock()
			if _, ok := rj.subs[ch]; ok {
				delete(rj.subs, ch)
				close(ch)
			}
			m.mu.Unlock()
		}
		return ch, unsub, nil
	}
	m.mu.Unlock()
	j, err := m.store.Job(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	ch <- Event{Job: j}
	close(ch)
	return ch, func() {}, nil
}

// Cancel cancels a queued or running job. It reports ErrNotFound for unknown ids
// and false when the job had already finished.
func (m *Runner) Cancel(ctx context.Context, id string) (bool, error) {
	m.mu.Lock()
	rj, ok := m.running[id]
	m.mu.Unlock()
	if !ok {
		if _, err := m.store.Job(ctx, id); err != nil {
			return false, err
		}
		return false, nil
	}
	rj.cancel(ErrCancelled)
	<-rj.done
	return true, nil
}

// Wait blocks until the job has finished (or ctx is done).
func (m *Runner) Wait(ctx context.Context, id string) (*store.JobRow, error) {
	m.mu.Lock()
	rj, ok := m.running[id]
	m.mu.Unlock()
	if ok {
		select {
		case <-rj.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return m.store.Job(ctx, id)
}

// Shutdown cancels every job (they end as interrupted) and waits for them,
// at most until ctx is done.
func (m *Runner) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	for _, rj := range m.running {
		rj.cancel(ErrShutdown)
	}
	m.mu.Unlock()
	m.stop()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A Reporter is how a Func reports progress.
type Reporter struct {
	m  *Runner
	rj *runningJob
}

// ID is the job's id.
func (r *Reporter) ID() string { return r.rj.row.ID }

// Estimate gives the job's own estimate of its remaining time, used for the
// ETA from the next update on instead of extrapolating the fraction done
// (training knows its epochs and their cost); zero goes back to extrapolating.
func (r *Reporter) Estimate(d time.Duration) {
	r.m.mu.Lock()
	r.rj.estimate, r.rj.estAt = d, time.Now()
	r.m.mu.Unlock()
}

// Progress sets the fraction done (0..1), the stage and a message.
func (r *Reporter) Progress(frac float64, stage, msg string) {
	r.m.update(r.rj, func(j *store.JobRow) {
		if frac < 0 {
			frac = 0
		}
		if frac > 1 {
			frac = 1
		}
		j.Progress, j.Stage, j.Message = frac, stage, msg
	}, nil)
}

// Point sends a training-curve point to subscribers along with the progress.
func (r *Reporter) Point(frac float64, stage, msg string, pt store.TrainPoint) {
	r.m.update(r.rj, func(j *store.JobRow) {
		j.Progress, j.Stage, j.Message = min(max(frac, 0), 1), stage, msg
	}, &pt)
}

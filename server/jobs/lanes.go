package jobs

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/taglens/taglens/server/store"
)

// Lanes of the job runner (laneOf).
const (
	// LaneTraining runs the trainings ("train" jobs).
	laneTraining = "training"
	// LaneInteractive runs everything else: maps, whole-space maps and
	// evaluations, which never wait behind a training.
	laneInteractive = "interactive"
)

// laneOf is the lane of a job kind.
func laneOf(kind string) string {
	if kind == "train" {
		return laneTraining
	}
	return laneInteractive
}

// A lane is a set of slots and the FIFO queue of the jobs waiting for one
// (all under Runner.mu).
type lane struct {
	name  string
	slots int
	busy  []*runningJob // the jobs holding a slot
	queue []*runningJob
}

// enqueueLocked gives a new job a free slot of its lane, or puts it at the
// end of the lane's queue with a message saying its place and why it waits
// (m.mu held). Jobs are queued as they are submitted, so they start in that
// order.
func (m *Runner) enqueueLocked(rj *runningJob) {
	l := rj.lane
	if len(l.busy) < l.slots && len(l.queue) == 0 {
		l.busy = append(l.busy, rj)
		rj.granted = true
		close(rj.start)
		return
	}
	l.queue = append(l.queue, rj)
	rj.row.Stage, rj.row.Message = "queued", l.queueMessage(len(l.queue)-1)
}

// acquire waits until the job holds a slot of its lane (enqueueLocked) or
// ctx is done; it reports whether the job holds a slot (to be given back by
// release). While the job waits, the messages of the lane's queued jobs are
// kept current as the queue moves.
func (m *Runner) acquire(ctx context.Context, rj *runningJob) bool {
	l := rj.lane
	m.mu.Lock()
	granted := rj.granted
	m.mu.Unlock()
	if granted {
		return true
	}
	m.requeue(l) // the others' new queue length
	select {
	case <-rj.start:
	case <-ctx.Done():
	}
	m.mu.Lock()
	granted = rj.granted
	if !granted {
		l.queue = slices.DeleteFunc(l.queue, func(q *runningJob) bool { return q == rj })
	}
	m.mu.Unlock()
	if !granted {
		m.requeue(l)
	}
	return granted
}

// release gives the job's slot to the first job waiting in its lane.
func (m *Runner) release(rj *runningJob) {
	l := rj.lane
	m.mu.Lock()
	l.busy = slices.DeleteFunc(l.busy, func(q *runningJob) bool { return q == rj })
	if len(l.queue) > 0 && len(l.busy) < l.slots {
		next := l.queue[0]
		l.queue = l.queue[1:]
		l.busy = append(l.busy, next)
		next.granted = true
		close(next.start)
	}
	m.mu.Unlock()
	m.requeue(l)
}

// requeue updates the message of every job queued in lane l to its place
// in the queue (a job that has left the queue meanwhile is left alone).
func (m *Runner) requeue(l *lane) {
	m.mu.Lock()
	queued := slices.Clone(l.queue)
	m.mu.Unlock()
	for _, rj := range queued {
		m.updateIf(rj, func(j *store.JobRow) bool {
			i := slices.Index(l.queue, rj)
			if i < 0 || j.State != store.JobQueued {
				return false
			}
			msg := l.queueMessage(i)
			if j.Stage == "queued" && j.Message == msg {
				return false
			}
			j.Stage, j.Message = "queued", msg
			return true
		}, nil, false)
	}
}

// queueMessage says why the job at place i of the lane's queue waits (m.mu
// held): its place, the lane's slots and the kinds of the jobs holding them.
func (l *lane) queueMessage(i int) string {
	kinds := map[string]int{}
	var order []string
	for _, b := range l.busy {
		k := b.row.Kind
		if kinds[k] == 0 {
			order = append(order, k)
		}
		kinds[k]++
	}
	running := make([]string, len(order))
	for j, k := range order {
		running[j] = fmt.Sprintf("%d %s", kinds[k], kindName(k, kinds[k]))
	}
	what := "maps and evaluations"
	if l.name == laneTraining {
		what = "trainings"
	}
	msg := fmt.Sprintf("queued: position %d of %d, waiting for one of the %d slots for %s", i+1, len(l.queue), l.slots, what)
	if l.slots == 1 {
		msg = fmt.Sprintf("queued: position %d of %d, waiting for the one slot for %s", i+1, len(l.queue), what)
	}
	if len(running) > 0 {
		msg += " (running: " + strings.Join(running, ", ") + ")"
	}
	if l.name == laneTraining {
		msg += "; maps and evaluations do not wait for trainings"
	}
	return msg
}

// kindName names n jobs of a kind in a queued job's message.
func kindName(kind string, n int) string {
	name := map[string]string{"train": "training", "map": "map", "space-map": "whole-space map", "evaluation": "evaluation"}[kind]
	if name == "" {
		name = kind + " job"
	}
	if n != 1 {
		name += "s"
	}
	return name
}

package server

import (
	"context"
	"crypto/rand"
	"sync"
	"time"
)

// Form ids (views.FormIDField): the training and comparison forms carry a
// random id, and the server remembers for formTTL what each id's submission
// answered, so that the same form submitted twice — a double click, a
// reload that posts again, a retry after a lost answer — starts its
// trainings or its evaluation once and both submissions are sent to the
// same page. (The other forms that start work are idempotent by what they
// ask for: an upload by its content (Store.InsertUpload), an explorer form
// by its map's key (a running map job is joined, a computed map read).)

const (
	// formTTL is how long a submitted form's answer is remembered.
	formTTL = 30 * time.Minute
	// formMax bounds the remembered forms (the oldest go first).
	formMax = 10_000
)

// formOnce remembers the answers of submitted forms by their id.
type formOnce struct {
	mu    sync.Mutex
	m     map[string]*formEntry
	order []string // ids in submission order, for pruning
}

type formEntry struct {
	done chan struct{} // closed when the first submission has its answer
	url  string        // where that submission was sent
	err  error
	at   time.Time
}

// newFormID returns a random form id: 128 bits, 26 characters of base32
// (crypto/rand.Text).
func newFormID() string { return rand.Text() }

// validFormID reports whether id has the form newFormID makes; anything else
// is not remembered (the submission runs as one without an id).
func validFormID(id string) bool {
	if len(id) != 26 {
		return false
	}
	for _, r := range id {
		if !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}

// do runs work, which answers with the URL to send the client to, once per
// form id: a second submission of the same id waits for the first and gets
// its answer. A submission that failed is forgotten, so that the form can be
// corrected and sent again. An empty or malformed id runs work every time.
func (f *formOnce) do(ctx context.Context, id string, work func() (string, error)) (string, error) {
	if !validFormID(id) {
		return work()
	}
	now := time.Now()
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*formEntry{}
	}
	f.pruneLocked(now)
	if e, ok := f.m[id]; ok {
		f.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return e.url, e.err
	}
	e := &formEntry{done: make(chan struct{}), at: now}
	f.m[id] = e
	f.order = append(f.order, id)
	f.mu.Unlock()

	e.url, e.err = work()
	if e.err != nil {
		f.mu.Lock()
		delete(f.m, id)
		f.mu.Unlock()
	}
	close(e.done)
	return e.url, e.err
}

// pruneLocked forgets the forms older than formTTL, and the oldest beyond
// formMax.
func (f *formOnce) pruneLocked(now time.Time) {
	i := 0
	for ; i < len(f.order); i++ {
		e, ok := f.m[f.order[i]]
		if ok && now.Sub(e.at) < formTTL && len(f.order)-i <= formMax {
			break
		}
		if ok {
			delete(f.m, f.order[i])
		}
	}
	f.order = f.order[i:]
}

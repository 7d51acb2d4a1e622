package store

import "fmt"

// LockFile is the data folder's lock file: Open holds an exclusive lock
// on it while the store is open, and writes its process id into it.
const LockFile = "taglens.lock"

// A DataLockedError refuses to open a data folder another process holds
// (one server per data folder).
type DataLockedError struct {
	Dir string
	PID int // the holder's process id as its lock file says; 0 when unknown
}

func (e *DataLockedError) Error() string {
	who := "another taglens process"
	if e.PID > 0 {
		who = fmt.Sprintf("another taglens process (pid %d)", e.PID)
	}
	return fmt.Sprintf("the data folder %s is in use by %s: only one taglens server may use a data folder; stop that one or choose another --data folder", e.Dir, who)
}

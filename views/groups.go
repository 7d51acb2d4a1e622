package views

// Group is a seed group: the models of one training started with several
// seeds, with each member's state and, while it has one, its job's live
// progress.
type Group struct {
	// ID is "" for a list of models the compare page was given without a
	// stored group.
	ID, Name, CorpusID, CorpusName, Created string
	Params                                  []KV
	Members                                 []GroupMember
}

// GroupMember is a model of a seed group.
type GroupMember struct {
	Model Model
	Seed  uint64
	// Job is the model's training job (nil when the job history no longer
	// holds it); its widget follows the job live.
	Job *Job
}

// Ready counts the group's ready members.
func (g Group) Ready() int {
	n := 0
	for _, m := range g.Members {
		if m.Model.State == "ready" {
			n++
		}
	}
	return n
}

// Training counts the group's members still training (queued or running).
func (g Group) Training() int {
	n := 0
	for _, m := range g.Members {
		if m.Model.State == "training" {
			n++
		}
	}
	return n
}

// Comparable reports whether the group can be compared now: none of its
// members trains any more and at least two are ready.
func (g Group) Comparable() bool { return g.Training() == 0 && g.Ready() >= 2 }

// CompareURL is the compare page with the group's ready members chosen as
// one model with a trial per seed.
func (g Group) CompareURL() string {
	if g.ID == "" {
		return ""
	}
	return "/compare?seed_trials=1&group=" + g.ID
}

// GroupPage is one seed group.
type GroupPage struct {
	Group Group
}

package engine

import "github.com/a2amock/a2amock/wire"

// Read-only views of the store.

// state returns the task's state, how many status changes it went through
// and whether its player runs, without copying the task.
func (a *Agent) state(id string) (st wire.TaskState, moves int64, playing, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[id]
	if !ok {
		return "", 0, false, false
	}
	return e.task.Status.State, e.moves, e.playing, true
}

// TaskState returns the state of task id, or "".
func (a *Agent) TaskState(id string) wire.TaskState {
	st, _, _, _ := a.state(id)
	return st
}

// TaskDialect returns the dialect task id was created in, or "".
func (a *Agent) TaskDialect(id string) wire.Dialect {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.store.Tasks[id]; ok {
		return e.dialect
	}
	return ""
}

// Snapshot returns a copy of the task, or nil.
func (a *Agent) Snapshot(id string) *wire.Task {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[id]
	if !ok {
		return nil
	}
	return e.task.Clone()
}

// HoldsStreams reports whether the task's timeline asked to keep its
// streams open after the end.
func (a *Agent) HoldsStreams(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[id]
	return ok && e.holdOpen
}

// TaskSnapshot returns a copy of the task with at most historyLength
// messages of history (nil: all), or TaskNotFoundError.
func (a *Agent) TaskSnapshot(id string, historyLength *int) (*wire.Task, *wire.Error) {
	t := a.Snapshot(id)
	if t == nil {
		return nil, wire.ErrTaskNotFound(id)
	}
	return t.TrimHistory(historyLength), nil
}

// Stats counts the stored tasks per state and the open streams (the
// subscribers that are not waiting sends).
func (a *Agent) Stats() (states map[wire.TaskState]int, streams int) {
	states = map[wire.TaskState]int{}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.store.Tasks {
		states[e.task.Status.State]++
		for _, sub := range e.subs.Items() {
			if !sub.lossy {
				streams++
			}
		}
	}
	return states, streams
}

// Package roster holds a server's agents by name: the ones configured at
// start, which never change afterwards and are read without a lock, and
// the ones created at run time, added and removed under a lock, bounded in
// number, with generated names when a client gives none.
//
// It keeps names and values; what an agent is, and what creating or
// removing one involves, is the server's.
package roster

import (
	"errors"
	"slices"
	"strconv"
	"sync"
)

// Errors of Add and Remove.
var (
	ErrExists  = errors.New("an agent of that name exists")
	ErrNoSuch  = errors.New("no agent of that name")
	ErrStatic  = errors.New("the agent was configured at start")
	ErrTooMany = errors.New("too many run-time agents")
)

// Roster is the agents of one server. The zero value is empty; Configure
// sets the configured agents before any other call.
type Roster[A comparable] struct {
	static      []A
	staticNames map[string]A

	mu     sync.RWMutex
	byName map[string]A
	order  []A
	made   int
}

// Configure sets the agents configured at start, in order, by name.
func (r *Roster[A]) Configure(names []string, agents []A) {
	r.static = agents
	r.staticNames = make(map[string]A, len(agents))
	for i, a := range agents {
		r.staticNames[names[i]] = a
	}
}

// Root is the first configured agent.
func (r *Roster[A]) Root() A { return r.static[0] }

// Lookup finds a configured or run-time agent by name.
func (r *Roster[A]) Lookup(name string) (A, bool) {
	if a, ok := r.staticNames[name]; ok {
		return a, true
	}
	r.mu.RLock()
	a, ok := r.byName[name]
	r.mu.RUnlock()
	return a, ok
}

// All lists the configured agents, then the run-time ones.
func (r *Roster[A]) All() []A {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]A, 0, len(r.static)+len(r.order))
	return append(append(out, r.static...), r.order...)
}

// Add makes a run-time agent named name with build, which is given the
// number of run-time agents made so far (this one included), unless the
// name is taken (ErrExists) or limit run-time agents exist (ErrTooMany).
// build runs under the roster's lock.
func (r *Roster[A]) Add(name string, limit int, build func(made int) (A, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.staticNames[name]; dup {
		return ErrExists
	}
	if _, dup := r.byName[name]; dup {
		return ErrExists
	}
	if len(r.order) >= limit {
		return ErrTooMany
	}
	r.made++
	a, err := build(r.made)
	if err != nil {
		return err
	}
	if r.byName == nil {
		r.byName = map[string]A{}
	}
	r.byName[name] = a
	r.order = append(r.order, a)
	return nil
}

// Remove removes the run-time agent named name and returns it (ErrStatic
// for a configured one, ErrNoSuch when there is none); then runs, still
// under the lock, so that no Add of the same name comes between.
func (r *Roster[A]) Remove(name string, then func(A)) (A, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.byName[name]
	if !ok {
		var none A
		if _, static := r.staticNames[name]; static {
			return none, ErrStatic
		}
		return none, ErrNoSuch
	}
	delete(r.byName, name)
	r.order = slices.DeleteFunc(r.order, func(x A) bool { return x == a })
	if then != nil {
		then(a)
	}
	return a, nil
}

// FreshName returns a generated name ("agent-N") no agent has.
func (r *Roster[A]) FreshName() string {
	r.mu.RLock()
	n := r.made
	r.mu.RUnlock()
	for {
		n++
		name := "agent-" + strconv.Itoa(n)
		if _, taken := r.Lookup(name); !taken {
			return name
		}
	}
}

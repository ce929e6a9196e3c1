package server

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/a2amock/a2amock/behaviors"
)

// behaviorSet is an agent's behaviors and, for each, how many requests it
// acted on and how many it skipped since it was set.
type behaviorSet struct {
	list  []behaviors.Behavior
	text  []string
	names []string
	stats []behaviorStat
}

type behaviorStat struct {
	acted, skipped atomic.Int64
	mu             sync.Mutex
	byKey          map[string]int64
	reasons        map[string]int64
	lastSkip       string
}

// maxSkipReasons bounds the distinct skip reasons a behavior keeps; the
// rest are counted under otherSkipReasons.
const (
	maxSkipReasons   = 16
	otherSkipReasons = "(other reasons)"
)

func newBehaviorSet(bs []behaviors.Behavior) *behaviorSet {
	set := &behaviorSet{list: append([]behaviors.Behavior(nil), bs...), stats: make([]behaviorStat, len(bs))}
	reg := defaultRegistry()
	for _, b := range bs {
		text, name := specText(reg, b), ""
		if sc, ok := b.(*behaviors.Scoped); ok {
			name = sc.Name
		}
		if name == "" {
			name = text
		}
		set.text = append(set.text, text)
		set.names = append(set.names, name)
	}
	return set
}

// behaviorReport is what the behaviors of one request did.
type behaviorReport struct {
	// owners says which behavior registered each hook.
	owners  hookOwners
	acted   []string
	names   []string // registered names of acted, for the metrics
	skipped []SkippedBehavior
}

// apply applies every behavior in scope and reports which acted and which
// were skipped, with why. Unscoped behaviors (given as values) always act.
func (set *behaviorSet) apply(x *behaviors.Exchange) behaviorReport {
	var rep behaviorReport
	for i, b := range set.list {
		st := &set.stats[i]
		if sc, ok := b.(*behaviors.Scoped); ok {
			if key, detail := sc.Scope.Miss(x); key != "" {
				st.skipped.Add(1)
				st.mu.Lock()
				if st.byKey == nil {
					st.byKey, st.reasons = map[string]int64{}, map[string]int64{}
				}
				st.byKey[key]++
				if _, seen := st.reasons[detail]; seen || len(st.reasons) < maxSkipReasons {
					st.reasons[detail]++
				} else {
					st.reasons[otherSkipReasons]++
				}
				st.lastSkip = detail
				st.mu.Unlock()
				rep.skipped = append(rep.skipped, SkippedBehavior{Behavior: set.text[i], Key: key, Detail: detail})
				continue
			}
			before := countHooks(x.Hooks())
			behaviors.ApplyScoped(x, set.text[i], sc)
			rep.owners.note(set.text[i], before, x.Hooks())
		} else {
			before := countHooks(x.Hooks())
			behaviors.ApplyAs(x, set.text[i], b)
			rep.owners.note(set.text[i], before, x.Hooks())
		}
		st.acted.Add(1)
		rep.acted = append(rep.acted, set.text[i])
		rep.names = append(rep.names, set.names[i])
	}
	return rep
}

// behaviorStatJSON is one behavior's line in GET /_a2amock/behaviors.
type behaviorStatJSON struct {
	Behavior  string           `json:"behavior"`
	Acted     int64            `json:"acted"`
	Skipped   int64            `json:"skipped"`
	SkippedBy map[string]int64 `json:"skippedBy"`
	// SkipReasons counts the skips by what the request had against what
	// the scope wants (at most 16 distinct reasons, the rest together):
	// "every message went to skill intake" in one look.
	SkipReasons map[string]int64 `json:"skipReasons"`
	LastSkip    string           `json:"lastSkip,omitempty"`
}

// behaviorStats reports, per behavior of the agent, how many requests it
// acted on and how many it skipped, by scope key.
func (a *agent) behaviorStats() []behaviorStatJSON {
	set := a.bhv.Load()
	out := []behaviorStatJSON{}
	if set == nil {
		return out
	}
	for i := range set.list {
		st := &set.stats[i]
		line := behaviorStatJSON{Behavior: set.text[i], Acted: st.acted.Load(), Skipped: st.skipped.Load(),
			SkippedBy: map[string]int64{}, SkipReasons: map[string]int64{}}
		st.mu.Lock()
		keys := make([]string, 0, len(st.byKey))
		for k := range st.byKey {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			line.SkippedBy[k] = st.byKey[k]
		}
		for r, n := range st.reasons {
			line.SkipReasons[r] = n
		}
		line.LastSkip = st.lastSkip
		st.mu.Unlock()
		out = append(out, line)
	}
	return out
}

// noteBehaviors writes what the behaviors did into the request's journal
// entry (journaled before the behaviors ran) and counts it.
func (s *Server) noteBehaviors(a *agent, seq int64, rep behaviorReport) {
	if len(rep.acted) > 0 || len(rep.skipped) > 0 {
		s.journal.Amend(seq, func(e *Entry) {
			e.Behaviors, e.Skipped = rep.acted, rep.skipped
		})
	}
	s.countBehaviors(a, rep)
}

// countBehaviors counts the behaviors that acted and skipped in the
// metrics.
func (s *Server) countBehaviors(a *agent, rep behaviorReport) {
	if len(rep.acted) == 0 && len(rep.skipped) == 0 {
		return
	}
	s.metrics.Behaviors(a.name, rep.names, rep.skipped)
}

package acted

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/journal"
)

// Set is an agent's behaviors and, for each, how many requests it acted on
// and how many it skipped since it was set. Apply and Stats are safe for
// concurrent use; the list itself never changes (a new list is a new Set).
type Set struct {
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

// NewSet is the set of bs, each named by its spec text in reg (see
// SpecText).
func NewSet(reg *behaviors.Registry, bs []behaviors.Behavior) *Set {
	set := &Set{list: append([]behaviors.Behavior(nil), bs...), stats: make([]behaviorStat, len(bs))}
	for _, b := range bs {
		text, name := SpecText(reg, b), ""
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

// Len is the number of behaviors in the set (0 for a nil set).
func (set *Set) Len() int {
	if set == nil {
		return 0
	}
	return len(set.list)
}

// List returns a copy of the set's behaviors (nil for a nil set).
func (set *Set) List() []behaviors.Behavior {
	if set == nil {
		return nil
	}
	return append([]behaviors.Behavior(nil), set.list...)
}

// Texts returns the set's behaviors as spec texts (nil for a nil set).
func (set *Set) Texts() []string {
	if set == nil {
		return nil
	}
	return append([]string(nil), set.text...)
}

// Report is what the behaviors of one request did.
type Report struct {
	// Owners says which behavior registered each hook.
	Owners Owners
	// Acted lists the spec texts of the behaviors in scope, Names their
	// registered names (for the metrics), Skipped those out of scope.
	Acted   []string
	Names   []string
	Skipped []journal.SkippedBehavior
}

// Apply applies every behavior in scope and reports which acted and which
// were skipped, with why. Unscoped behaviors (given as values) always act.
func (set *Set) Apply(x *behaviors.Exchange) Report {
	var rep Report
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
				rep.Skipped = append(rep.Skipped, journal.SkippedBehavior{Behavior: set.text[i], Key: key, Detail: detail})
				continue
			}
			before := countHooks(x.Hooks())
			behaviors.ApplyScoped(x, set.text[i], sc)
			rep.Owners.note(set.text[i], before, x.Hooks())
		} else {
			before := countHooks(x.Hooks())
			behaviors.ApplyAs(x, set.text[i], b)
			rep.Owners.note(set.text[i], before, x.Hooks())
		}
		st.acted.Add(1)
		rep.Acted = append(rep.Acted, set.text[i])
		rep.Names = append(rep.Names, set.names[i])
	}
	return rep
}

// Stat is one behavior's line in GET /_a2amock/behaviors.
type Stat struct {
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

// Stats reports, per behavior of the set, how many requests it acted on
// and how many it skipped, by scope key (empty, not nil, for a nil set).
func (set *Set) Stats() []Stat {
	out := []Stat{}
	if set == nil {
		return out
	}
	for i := range set.list {
		st := &set.stats[i]
		line := Stat{Behavior: set.text[i], Acted: st.acted.Load(), Skipped: st.skipped.Load(),
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

// SpecText renders a behavior back as the spec it stands for: the parsed
// text when it has one, else its registered name in reg.
func SpecText(reg *behaviors.Registry, b behaviors.Behavior) string {
	if st, ok := b.(fmt.Stringer); ok {
		return st.String()
	}
	t := reflect.TypeOf(b)
	for _, sp := range reg.Specs() {
		if reflect.TypeOf(sp.New()) == t {
			return sp.Name
		}
	}
	return fmt.Sprintf("%T", b)
}

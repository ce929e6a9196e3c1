package reconcile

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Source is the channel an observation came from.
type Source string

// The observation channels.
const (
	SourceSendResponse Source = "send"
	SourceStream       Source = "stream"
	SourcePoll         Source = "poll"
	SourcePush         Source = "push"
	SourceCancel       Source = "cancel"
)

// CorrelationMetadataKey is the task metadata key ObservationFromTask reads
// a gateway's correlation id from.
const CorrelationMetadataKey = "correlationId"

// Observation is one state a client saw.
type Observation struct {
	TaskID    string
	ContextID string
	// CorrelationID is a gateway's correlation id (from metadata or a
	// header), used as the key by a ledger configured with ByCorrelationID.
	CorrelationID string
	State         wire.TaskState
	Source        Source
	// At is when it was seen; zero means "now" on the ledger's clock.
	At time.Time
	// Final is the v0.x final flag of a stream event.
	Final bool
}

// ObservationFromTask returns the observation of a task snapshot; the
// correlation id is read from the task's CorrelationMetadataKey metadata.
func ObservationFromTask(src Source, t *wire.Task) Observation {
	o := Observation{TaskID: t.ID, ContextID: t.ContextID, State: t.Status.State, Source: src}
	if c, ok := t.Metadata[CorrelationMetadataKey].(string); ok {
		o.CorrelationID = c
	}
	return o
}

// ObservationFromEvent returns the observation an event carries, and false
// for events that carry no state (messages and artifact updates).
func ObservationFromEvent(src Source, ev wire.Event) (Observation, bool) {
	switch {
	case ev.Task != nil:
		return ObservationFromTask(src, ev.Task), true
	case ev.Status != nil:
		o := Observation{TaskID: ev.Status.TaskID, ContextID: ev.Status.ContextID,
			State: ev.Status.Status.State, Source: src, Final: ev.Status.Final}
		if c, ok := ev.Status.Metadata[CorrelationMetadataKey].(string); ok {
			o.CorrelationID = c
		}
		return o, true
	}
	return Observation{}, false
}

// Outcome is a ledger task's status as far as the client is concerned.
type Outcome string

// The outcomes. OutcomeDiverged is terminal and distinct from OutcomeFailed:
// the agent broke its contract rather than reporting an error.
const (
	OutcomePending   Outcome = "pending"
	OutcomeCompleted Outcome = "completed"
	OutcomeFailed    Outcome = "failed"
	OutcomeCanceled  Outcome = "canceled"
	OutcomeRejected  Outcome = "rejected"
	OutcomeDiverged  Outcome = "diverged"
)

// Terminal reports whether nothing more is expected of the task.
func (o Outcome) Terminal() bool { return o != OutcomePending && o != "" }

func outcomeOf(s wire.TaskState) Outcome {
	switch s {
	case wire.StateCompleted:
		return OutcomeCompleted
	case wire.StateFailed:
		return OutcomeFailed
	case wire.StateCanceled:
		return OutcomeCanceled
	case wire.StateRejected:
		return OutcomeRejected
	}
	return OutcomePending
}

// Transition is a change of state with where and when it was seen.
type Transition struct {
	State  wire.TaskState
	Source Source
	At     time.Time
}

// ObservedTask is what a ledger knows of one task. Values handed out by the
// ledger are snapshots: changing them does not change the ledger.
type ObservedTask struct {
	// Key is the ledger key: the task id, or the correlation id.
	Key string
	// TaskIDs lists every task id seen under Key, first first; more than
	// one only behind an id-rewriting gateway.
	TaskIDs   []string
	ContextID string
	// States is the sequence of distinct consecutive states.
	States []wire.TaskState
	// Transitions is States with source and time.
	Transitions []Transition
	// Raw is every observation, repeated states included.
	Raw       []Observation
	FirstSeen time.Time
	LastSeen  time.Time
	Outcome   Outcome
	// Divergence is set when Outcome is OutcomeDiverged.
	Divergence *DivergenceError
}

// TaskID returns the latest task id seen under the key.
func (t *ObservedTask) TaskID() string {
	if len(t.TaskIDs) == 0 {
		return t.Key
	}
	return t.TaskIDs[len(t.TaskIDs)-1]
}

// Last returns the latest observed state.
func (t *ObservedTask) Last() wire.TaskState {
	if len(t.States) == 0 {
		return wire.StateUnspecified
	}
	return t.States[len(t.States)-1]
}

// Saw reports whether s was ever observed.
func (t *ObservedTask) Saw(s wire.TaskState) bool { return slices.Contains(t.States, s) }

// HasID reports whether id is one of the task ids seen under the key.
func (t *ObservedTask) HasID(id string) bool { return slices.Contains(t.TaskIDs, id) }

// BeyondSubmitted reports whether a state other than submitted was
// observed: before that the card is only a hint.
func (t *ObservedTask) BeyondSubmitted() bool {
	for _, s := range t.States {
		if s != wire.StateSubmitted {
			return true
		}
	}
	return false
}

// LastSource returns the source of the latest observation.
func (t *ObservedTask) LastSource() Source {
	if len(t.Raw) == 0 {
		return ""
	}
	return t.Raw[len(t.Raw)-1].Source
}

// ActiveSince is when the agent last took over the task: the first
// transition after the latest interrupted state, or the first observation.
// Bounded waits are measured from it, so time spent waiting for the client's
// input does not count against the agent.
func (t *ObservedTask) ActiveSince() time.Time {
	since := t.FirstSeen
	for i, tr := range t.Transitions {
		if tr.State.Interrupted() && i+1 < len(t.Transitions) {
			since = t.Transitions[i+1].At
		}
	}
	return since
}

func (t *ObservedTask) clone() *ObservedTask {
	c := *t
	c.TaskIDs = slices.Clone(t.TaskIDs)
	c.States = slices.Clone(t.States)
	c.Transitions = slices.Clone(t.Transitions)
	c.Raw = slices.Clone(t.Raw)
	if t.Divergence != nil {
		d := *t.Divergence
		c.Divergence = &d
	}
	return &c
}

// LedgerConfig configures a Ledger.
type LedgerConfig struct {
	// Clock stamps observations that carry no time; nil is the wall clock.
	Clock timeline.Clock
	// Key returns the key an observation is filed under. Nil keys by task
	// id. Behind a gateway that rewrites task ids use ByCorrelationID (or
	// a function reading a header the caller put in the observation). When
	// Key returns "", the observation is filed under its task id, or under
	// the key that task id was last seen with.
	Key func(Observation) string
	// Declared is the card's view: with StateTransitionHistory, an
	// input-required before any working is a divergence; with PushOnly,
	// missing intermediate states never are.
	Declared Declared
}

// ByCorrelationID keys observations by their CorrelationID.
func ByCorrelationID(o Observation) string { return o.CorrelationID }

// Ledger records the states a client observes. It is safe for concurrent
// use.
type Ledger struct {
	cfg   LedgerConfig
	mu    sync.Mutex
	tasks map[string]*ObservedTask
	order []string
	alias map[string]string // task id → key
}

// NewLedger returns an empty ledger.
func NewLedger(cfg LedgerConfig) *Ledger {
	if cfg.Clock == nil {
		cfg.Clock = timeline.RealClock{}
	}
	return &Ledger{cfg: cfg, tasks: map[string]*ObservedTask{}, alias: map[string]string{}}
}

// ErrNoKey is returned by Observe for an observation with neither a key nor
// a task id.
var ErrNoKey = errors.New("reconcile: observation has no task id and no correlation key")

// KeyOf returns the key o is (or would be) filed under.
func (l *Ledger) KeyOf(o Observation) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keyOf(o)
}

func (l *Ledger) keyOf(o Observation) string {
	if l.cfg.Key != nil {
		if k := l.cfg.Key(o); k != "" {
			return k
		}
	}
	if k, ok := l.alias[o.TaskID]; ok {
		return k
	}
	return o.TaskID
}

// Observe records o. It returns a *DivergenceError, and marks the task
// diverged, when o itself breaks the lifecycle: a transition after a
// terminal state, a context id that changed, or (when history is declared
// and the channel is not lossy) input-required with no working before it.
// It returns another error, recording nothing, when o is unusable.
func (l *Ledger) Observe(o Observation) error {
	if o.State != wire.StateUnspecified && !o.State.Valid() {
		return fmt.Errorf("reconcile: observation of task %q has unknown state %q", o.TaskID, o.State)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	key := l.keyOf(o)
	if key == "" {
		return ErrNoKey
	}
	if o.At.IsZero() {
		o.At = l.cfg.Clock.Now()
	}
	t, ok := l.tasks[key]
	if !ok {
		t = &ObservedTask{Key: key, FirstSeen: o.At, Outcome: OutcomePending}
		l.tasks[key] = t
		l.order = append(l.order, key)
	}
	if o.TaskID != "" {
		if !slices.Contains(t.TaskIDs, o.TaskID) {
			t.TaskIDs = append(t.TaskIDs, o.TaskID)
		}
		l.alias[o.TaskID] = key
	}
	t.Raw = append(t.Raw, o)
	if o.At.After(t.LastSeen) {
		t.LastSeen = o.At
	}
	div := l.violation(t, o)
	if o.ContextID != "" && t.ContextID == "" {
		t.ContextID = o.ContextID
	}
	if o.State != wire.StateUnspecified && t.Last() != o.State {
		t.States = append(t.States, o.State)
		t.Transitions = append(t.Transitions, Transition{State: o.State, Source: o.Source, At: o.At})
		if t.Outcome == OutcomePending {
			t.Outcome = outcomeOf(o.State)
		}
	}
	if div != nil {
		markDiverged(t, div)
		return div
	}
	return nil
}

// violation checks o against what was seen before it.
func (l *Ledger) violation(t *ObservedTask, o Observation) *DivergenceError {
	id := o.TaskID
	if id == "" {
		id = t.Key
	}
	if o.ContextID != "" && t.ContextID != "" && o.ContextID != t.ContextID {
		return &DivergenceError{TaskID: id, Kind: KindContextIDChanged,
			Declared: fmt.Sprintf("task in context %q", t.ContextID),
			Observed: fmt.Sprintf("context %q from %s", o.ContextID, o.Source),
			Detail:   "a task never changes context"}
	}
	last := t.Last()
	if o.State == wire.StateUnspecified || o.State == last {
		return nil
	}
	if last.Terminal() {
		return &DivergenceError{TaskID: id, Kind: KindTransitionAfterTerminal,
			Declared: fmt.Sprintf("terminal state %q is final", last),
			Observed: fmt.Sprintf("%q from %s after %q", o.State, o.Source, last),
			Detail:   "a terminal task is immutable"}
	}
	lossy := l.cfg.Declared.PushOnly || o.Source == SourcePush
	if o.State == wire.StateInputRequired && l.cfg.Declared.StateTransitionHistory && !lossy && !t.Saw(wire.StateWorking) {
		return &DivergenceError{TaskID: id, Kind: KindInputRequiredWithoutWorking,
			Declared: l.cfg.Declared.HistoryDeclaration() + ", lifecycle submitted->working->input-required",
			Observed: fmt.Sprintf("input-required from %s after %v", o.Source, t.States),
			Detail:   "state machine ordering violated"}
	}
	return nil
}

func markDiverged(t *ObservedTask, d *DivergenceError) {
	if t.Outcome == OutcomeDiverged {
		return
	}
	t.Outcome = OutcomeDiverged
	c := *d
	t.Divergence = &c
}

// MarkDiverged gives the task under key the terminal outcome
// OutcomeDiverged. The first divergence of a task is kept. It reports
// whether the key is known.
func (l *Ledger) MarkDiverged(key string, d *DivergenceError) bool {
	if d == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tasks[key]
	if !ok {
		if k, aliased := l.alias[key]; aliased {
			t, ok = l.tasks[k]
		}
	}
	if ok {
		markDiverged(t, d)
	}
	return ok
}

// Task returns a snapshot of the task under key (a correlation id or any
// task id seen under it).
func (l *Ledger) Task(key string) (*ObservedTask, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tasks[key]
	if !ok {
		if k, aliased := l.alias[key]; aliased {
			t, ok = l.tasks[k]
		}
	}
	if !ok {
		return nil, false
	}
	return t.clone(), true
}

// Tasks returns snapshots of every task, in the order first seen.
func (l *Ledger) Tasks() []*ObservedTask {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*ObservedTask, 0, len(l.order))
	for _, k := range l.order {
		out = append(out, l.tasks[k].clone())
	}
	return out
}

// Unreconciled returns the tasks that are neither terminal nor diverged:
// the orphans a client would leave behind if it stopped now.
func (l *Ledger) Unreconciled() []*ObservedTask {
	var out []*ObservedTask
	for _, t := range l.Tasks() {
		if !t.Outcome.Terminal() {
			out = append(out, t)
		}
	}
	return out
}

package reconcile

import (
	"fmt"
	"slices"
	"time"

	"github.com/a2amock/a2amock/wire"
)

// DefaultWorkingDeadline bounds the wait for a task that is not terminal
// when nothing else is configured.
const DefaultWorkingDeadline = 30 * time.Second

// Verdict is the result of phase 2: whether the expectation stands, and if
// not, how the client downgrades it.
type Verdict string

// The verdicts.
const (
	// VerdictHintOnly: no state beyond submitted was observed yet, so the
	// card is still only a hint and nothing can be concluded.
	VerdictHintOnly Verdict = "hint-only"
	// VerdictConsistent: the observed transitions fit the expectation.
	VerdictConsistent Verdict = "consistent"
	// VerdictStopWaitingForInput: the card suggested input-required, the
	// agent moved on without it; stop waiting for it.
	VerdictStopWaitingForInput Verdict = "stop-waiting-for-input"
	// VerdictOneShotSend: the agent does not park tasks for input (it
	// failed instead, or answered a continuation with a new task without
	// having promised history); re-issue as one send with all inputs.
	VerdictOneShotSend Verdict = "one-shot-send"
	// VerdictDropHistory: a history was declared but the agent skipped
	// working on its way to a terminal state; stop trusting transitions and
	// rely on polling with a hard deadline.
	VerdictDropHistory Verdict = "drop-history"
	// VerdictAbort accompanies a *DivergenceError.
	VerdictAbort Verdict = "abort"
)

// Downgrade reports whether v changes the client's expectations.
func (v Verdict) Downgrade() bool {
	return v == VerdictStopWaitingForInput || v == VerdictOneShotSend || v == VerdictDropHistory
}

// Expectation is phase 1: the lifecycle a client may expect from a declared
// view and a skill. Check (phase 2) narrows it further as observations come.
// It is not safe for concurrent use.
type Expectation struct {
	SkillID string
	// Skill is the declared skill; SkillDeclared is false when the card
	// does not list SkillID.
	Skill         DeclaredSkill
	SkillDeclared bool
	Declared      Declared
	// History: transitions can be trusted to be complete (declared, not
	// lossy, not downgraded).
	History bool
	// Lossy: the update channel may drop intermediate states (push-only).
	Lossy bool
	// ExpectWorking: working must be seen before an interrupted or
	// terminal state.
	ExpectWorking bool
	// ExpectInputRequired: the client may wait for input-required (the
	// skill hints at it and history is declared).
	ExpectInputRequired bool
	// WorkingDeadline bounds how long the agent may keep a task
	// non-terminal after it last took it over.
	WorkingDeadline time.Duration
	// SubmittedDeadline bounds how long a task may stay submitted: the
	// skill's declared duration when history is declared, else
	// WorkingDeadline.
	SubmittedDeadline time.Duration
	// Downgrades lists the downgrades applied so far, in order.
	Downgrades []Verdict
}

// Expect is phase 1: it narrows the expected transitions from the declared
// view for skillID ("" for no particular skill).
func Expect(d Declared, skillID string) Expectation {
	e := Expectation{SkillID: skillID, Declared: d, WorkingDeadline: DefaultWorkingDeadline}
	e.Skill, e.SkillDeclared = d.Skill(skillID)
	e.Lossy = d.PushOnly
	e.History = d.StateTransitionHistory && !e.Lossy
	e.ExpectWorking = e.History
	e.ExpectInputRequired = e.History && e.Skill.NeedsInput
	if e.History && e.Skill.EstimatedDuration > 0 {
		e.SubmittedDeadline = e.Skill.EstimatedDuration
	}
	return e
}

// Expected returns the lifecycle the expectation currently anticipates, for
// messages and documentation.
func (e *Expectation) Expected() []wire.TaskState {
	out := []wire.TaskState{wire.StateSubmitted}
	if e.ExpectWorking {
		out = append(out, wire.StateWorking)
	}
	if e.ExpectInputRequired {
		out = append(out, wire.StateInputRequired)
		if e.ExpectWorking {
			out = append(out, wire.StateWorking)
		}
	}
	return append(out, wire.StateCompleted)
}

func (e *Expectation) submittedDeadline() time.Duration {
	if e.SubmittedDeadline > 0 {
		return e.SubmittedDeadline
	}
	return e.workingDeadline()
}

func (e *Expectation) workingDeadline() time.Duration {
	if e.WorkingDeadline > 0 {
		return e.WorkingDeadline
	}
	return DefaultWorkingDeadline
}

// Deadline returns when the task's current state becomes a violation, and
// false when no deadline applies (terminal or waiting for the client).
func (e *Expectation) Deadline(task *ObservedTask) (time.Time, bool) {
	last := task.Last()
	if last.Terminal() || last.Interrupted() || task.Outcome.Terminal() {
		return time.Time{}, false
	}
	if last == wire.StateSubmitted || last == wire.StateUnspecified {
		return task.ActiveSince().Add(e.submittedDeadline()), true
	}
	return task.ActiveSince().Add(e.workingDeadline()), true
}

func (e *Expectation) downgrade(v Verdict) Verdict {
	if !slices.Contains(e.Downgrades, v) {
		e.Downgrades = append(e.Downgrades, v)
	}
	switch v {
	case VerdictStopWaitingForInput, VerdictOneShotSend:
		e.ExpectInputRequired = false
	case VerdictDropHistory:
		e.History, e.ExpectWorking = false, false
	}
	return v
}

// Check is phase 2: it validates the expectation against the observed
// task and returns a verdict, downgrading the expectation in place, or
// VerdictAbort with a *DivergenceError.
//
// The conditions of validity of the rule are applied here: a task already
// diverged in the ledger aborts; a state held past its deadline aborts only
// once a GetTask probe (the last observation being a poll) confirms it,
// whatever the card declared, which is the hard deadline of polling mode;
// before any state beyond submitted the card is only a hint; and ordering is
// checked only when history is declared and the channel is not lossy.
func (e *Expectation) Check(task *ObservedTask) (Verdict, error) {
	if task == nil {
		return VerdictHintOnly, nil
	}
	if task.Outcome == OutcomeDiverged && task.Divergence != nil {
		return VerdictAbort, task.Divergence
	}
	if err := e.stuck(task); err != nil {
		return VerdictAbort, err
	}
	if !task.BeyondSubmitted() {
		return VerdictHintOnly, nil
	}
	last := task.Last()
	sawWorking := task.Saw(wire.StateWorking)
	sawInput := task.Saw(wire.StateInputRequired)
	if e.History && !e.Lossy && sawInput && !sawWorking {
		return VerdictAbort, &DivergenceError{TaskID: task.TaskID(), Kind: KindInputRequiredWithoutWorking,
			Declared: e.Declared.HistoryDeclaration() + ", lifecycle submitted->working->input-required",
			Observed: fmt.Sprintf("states %v", task.States),
			Detail:   "state machine ordering violated"}
	}
	if !last.Terminal() {
		return VerdictConsistent, nil
	}
	switch {
	case e.ExpectInputRequired && !sawInput && (last == wire.StateFailed || last == wire.StateRejected):
		if !sawWorking && e.ExpectWorking {
			e.downgrade(VerdictDropHistory)
		}
		return e.downgrade(VerdictOneShotSend), nil
	case e.ExpectInputRequired && !sawInput:
		if !sawWorking && e.ExpectWorking {
			e.downgrade(VerdictDropHistory)
		}
		return e.downgrade(VerdictStopWaitingForInput), nil
	case e.ExpectWorking && !sawWorking:
		return e.downgrade(VerdictDropHistory), nil
	}
	return VerdictConsistent, nil
}

// stuck raises KindStuckSubmitted or KindStuckWorking when a probe saw the
// task still in a waiting state at or past its deadline.
func (e *Expectation) stuck(task *ObservedTask) error {
	deadline, ok := e.Deadline(task)
	if !ok || task.LastSource() != SourcePoll || task.LastSeen.Before(deadline) {
		return nil
	}
	held := task.LastSeen.Sub(task.ActiveSince())
	last := task.Last()
	if last == wire.StateSubmitted || last == wire.StateUnspecified {
		declared := fmt.Sprintf("no declared duration; hard deadline %s", e.submittedDeadline())
		if e.History && e.Skill.EstimatedDuration > 0 {
			declared = fmt.Sprintf("%s and skill %q estimatedDuration %s", e.Declared.HistoryDeclaration(), e.SkillID, e.Skill.EstimatedDuration)
		}
		return &DivergenceError{TaskID: task.TaskID(), Kind: KindStuckSubmitted, Declared: declared,
			Observed: fmt.Sprintf("still submitted after %s, confirmed by GetTask", held),
			Detail:   "no working transition after the submitted ack"}
	}
	declared := fmt.Sprintf("%s (input-required reachable), bounded wait %s", e.Declared.HistoryDeclaration(), e.workingDeadline())
	if !e.History {
		declared = fmt.Sprintf("%s, polling with hard deadline %s", e.Declared.HistoryDeclaration(), e.workingDeadline())
	}
	return &DivergenceError{TaskID: task.TaskID(), Kind: KindStuckWorking, Declared: declared,
		Observed: fmt.Sprintf("stuck in %q for %s, confirmed by GetTask", last, held),
		Detail:   "no terminal or input-required state before the deadline"}
}

// ContinuationCheck validates the answer to a continuation of task (a
// message with its task id) that came back with newTaskID. The same id (or
// any id a gateway mapped to the same key) is consistent. A new id is a
// divergence when history was declared and working was observed, as the
// agent promised a continuous task; otherwise it is legal, and the verdict
// is VerdictOneShotSend: the agent treats follow-ups as new requests.
func (e *Expectation) ContinuationCheck(task *ObservedTask, newTaskID string) (Verdict, error) {
	if task == nil || newTaskID == "" || task.HasID(newTaskID) {
		return VerdictConsistent, nil
	}
	if e.Declared.StateTransitionHistory && task.Saw(wire.StateWorking) {
		return VerdictAbort, &DivergenceError{TaskID: task.TaskID(), Kind: KindNewTaskIDOnContinuation,
			Declared: e.Declared.HistoryDeclaration() + " (continuous task id)",
			Observed: fmt.Sprintf("new task id %q on continuation", newTaskID),
			Detail:   "server spawned a fresh task instead of continuing the original"}
	}
	return e.downgrade(VerdictOneShotSend), nil
}

// CheckStreamEnd validates the state a task was in when its stream closed
// (after a probe, when the client made one): a stream may end only at a
// terminal or interrupted state.
func (e *Expectation) CheckStreamEnd(task *ObservedTask) error {
	if task == nil {
		return nil
	}
	last := task.Last()
	if last.Terminal() || last.Interrupted() || task.Outcome.Terminal() {
		return nil
	}
	return &DivergenceError{TaskID: task.TaskID(), Kind: KindStreamEndedWithoutTerminal,
		Declared: "streaming=true (stream runs to a terminal or interrupted state)",
		Observed: fmt.Sprintf("stream closed in %q", last),
		Detail:   "the task would be left without updates"}
}

// CapabilityNotHonoured returns the divergence of a declared capability the
// agent refused.
func CapabilityNotHonoured(taskID, capability, observed string) *DivergenceError {
	return &DivergenceError{TaskID: taskID, Kind: KindCapabilityNotHonoured,
		Declared: capability + "=true", Observed: observed,
		Detail: "the card advertised a capability the agent does not serve"}
}

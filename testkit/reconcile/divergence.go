package reconcile

import (
	"errors"
	"fmt"
)

// Kind classifies how an agent's observed lifecycle contradicted its card.
type Kind string

// The kinds of divergence.
const (
	// KindNewTaskIDOnContinuation: a continuation of a task (same taskId)
	// was answered with a different task.
	KindNewTaskIDOnContinuation Kind = "new-task-id-on-continuation"
	// KindStuckWorking: the task stayed non-terminal (working, or any state
	// but submitted) past the bounded wait, confirmed by a GetTask probe.
	KindStuckWorking Kind = "stuck-working"
	// KindStuckSubmitted: the task stayed submitted past the skill's declared
	// duration (or the hard deadline), confirmed by a GetTask probe.
	KindStuckSubmitted Kind = "stuck-submitted"
	// KindInputRequiredWithoutWorking: input-required was observed before
	// any working although the card promised a transition history.
	KindInputRequiredWithoutWorking Kind = "input-required-without-working"
	// KindTransitionAfterTerminal: a state was observed after a terminal one.
	KindTransitionAfterTerminal Kind = "transition-after-terminal"
	// KindStreamEndedWithoutTerminal: a stream closed while the task was
	// neither terminal nor interrupted, and a probe did not find it finished.
	KindStreamEndedWithoutTerminal Kind = "stream-ended-without-terminal"
	// KindContextIDChanged: the same task was reported under two context ids.
	KindContextIDChanged Kind = "context-id-changed"
	// KindCapabilityNotHonoured: a capability the card declares was refused.
	KindCapabilityNotHonoured Kind = "capability-not-honoured"
)

// DivergenceError reports that an agent's observed behaviour contradicts
// what its card declared. It is the "agent broke its contract" outcome, as
// opposed to a task that failed or a transport error; find it with errors.As.
type DivergenceError struct {
	// TaskID is the task (or the ledger key, behind a gateway) concerned.
	TaskID string
	// Declared is what the card promised, in words.
	Declared string
	// Observed is what the client saw instead.
	Observed string
	// Detail explains the consequence.
	Detail string
	// Kind classifies the divergence.
	Kind Kind
}

// Error says what the card declared, what was observed and for which task.
func (e *DivergenceError) Error() string {
	s := fmt.Sprintf("divergence %s on task %q: card declared %s but observed %s", e.Kind, e.TaskID, e.Declared, e.Observed)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// IsKind reports whether err wraps a *DivergenceError of kind k.
func IsKind(err error, k Kind) bool {
	var d *DivergenceError
	return errors.As(err, &d) && d.Kind == k
}

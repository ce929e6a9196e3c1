// Package timeline is the one representation of what an agent does to a task:
// an ordered list of steps played against a clock. The honest agent plans a
// timeline, misbehaviors transform one, scenario files write one by hand and a
// recording is one with observed timings; the server's player runs them.
package timeline

import (
	"context"
	"time"

	"github.com/a2amock/a2amock/wire"
)

// StepKind says what a step does.
type StepKind string

// The step kinds.
const (
	// StepState moves the task to State (with an optional status message)
	// and emits a status update.
	StepState StepKind = "state"
	// StepArtifact adds Artifact (or a chunk of it) and emits an artifact
	// update.
	StepArtifact StepKind = "artifact"
	// StepEndStream closes every open stream of the task at once, with no
	// further event: what a crashed or careless agent does.
	StepEndStream StepKind = "end-stream"
	// StepHoldStream keeps open streams open after the task ended, sending
	// keep-alive comments until the client goes away.
	StepHoldStream StepKind = "hold-stream"
	// StepStop stops playing: the task stays in its current state for ever.
	StepStop StepKind = "stop"
)

// Step is one entry of a timeline.
type Step struct {
	Kind StepKind `json:"kind" yaml:"kind"`
	// After is the delay before the step, measured from the previous one.
	After time.Duration `json:"after,omitempty" yaml:"after,omitempty"`

	State wire.TaskState `json:"state,omitempty" yaml:"state,omitempty"`
	// Message is the text of the status message that goes with State.
	Message string `json:"message,omitempty" yaml:"message,omitempty"`

	Artifact  *wire.Artifact `json:"artifact,omitempty" yaml:"artifact,omitempty"`
	Append    bool           `json:"append,omitempty" yaml:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty" yaml:"lastChunk,omitempty"`

	// TaskID, when set, is written into the emitted event instead of the
	// task's own id; the store is not touched (an event for another task).
	TaskID string `json:"taskId,omitempty" yaml:"taskId,omitempty"`
	// ContextID, when set, is written into the emitted event instead of the
	// task's own context id.
	ContextID string `json:"contextId,omitempty" yaml:"contextId,omitempty"`
	// EventOnly emits the event without changing the stored task, so a poll
	// and a stream disagree.
	EventOnly bool `json:"eventOnly,omitempty" yaml:"eventOnly,omitempty"`
	// Final overrides the v0.x `final` flag of a status update; nil lets the
	// codec decide (final on terminal and interrupted states).
	Final *bool `json:"final,omitempty" yaml:"final,omitempty"`
}

// Timeline is an ordered list of steps.
type Timeline []Step

// Clone returns a copy of tl that can be edited without touching tl.
func (tl Timeline) Clone() Timeline { return append(Timeline(nil), tl...) }

// States lists the states tl moves through, in order.
func (tl Timeline) States() []wire.TaskState {
	var out []wire.TaskState
	for _, s := range tl {
		if s.Kind == StepState {
			out = append(out, s.State)
		}
	}
	return out
}

// DecisionKind is what the agent does with an incoming message.
type DecisionKind string

// The decision kinds.
const (
	// DecideNew creates a new task.
	DecideNew DecisionKind = "new"
	// DecideContinue continues the existing task TaskID.
	DecideContinue DecisionKind = "continue"
	// DecideReject answers with Err and creates nothing.
	DecideReject DecisionKind = "reject"
	// DecideMessage answers with a plain message and no task.
	DecideMessage DecisionKind = "message"
	// DecideCancel cancels the task TaskID (the decision of a cancel request).
	DecideCancel DecisionKind = "cancel"
	// DecideIgnore acknowledges a request without acting on it.
	DecideIgnore DecisionKind = "ignore"
	// DecideDuplicate answers a message the agent already took (the same
	// messageId) with the task it went to, TaskID, acting on nothing again.
	DecideDuplicate DecisionKind = "duplicate"
)

// Decision is the agent's choice for one incoming message.
type Decision struct {
	Kind DecisionKind
	// TaskID is the task to continue (DecideContinue), or the id the new task
	// must take (DecideNew; empty mints one from the seed).
	TaskID string
	// ContextID is the context of the task; empty mints one.
	ContextID string
	// Err is the error of DecideReject.
	Err *wire.Error
	// Reason says in words why the decision was taken; it goes to the journal.
	Reason string
}

// Clock is the one source of time for players, deadlines and timestamps.
//
// Code that waits on a Clock uses NewTimer (or Sleep) and stops the timer
// when it stops waiting, e.g. when another case of its select won: a fake
// clock then counts only live waits, so a test can await them (see
// FakeClock.BlockUntil) and never jumps to a deadline nobody waits for.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed. Its timer
	// cannot be released: use it only where the wait always completes.
	After(d time.Duration) <-chan time.Time
	// NewTimer returns a channel that receives once d has passed and a stop
	// function that releases the timer and reports whether it was still
	// pending. A non-positive d fires at once.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// TimerClock is the former name of Clock, from when releasable timers were
// optional.
//
// Deprecated: use Clock.
type TimerClock = Clock

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// NewTimer returns a time.Timer's channel and its Stop.
func (RealClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// Sleep waits d on c unless ctx ends first, and reports whether d passed.
// Its timer is released on either outcome. A non-positive d reports whether
// ctx is still live.
func Sleep(ctx context.Context, c Clock, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	ch, stop := c.NewTimer(d)
	defer stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

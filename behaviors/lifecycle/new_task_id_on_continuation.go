package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var newTaskIDOnContinuationSpec = core.Spec{
	Name: "new-task-id-on-continuation",
	Doc: `Reproduces the field failure where an agent answers a follow-up message
that carries an existing taskId with a brand-new task, while the original task
stays working for ever: a task the agent starts stops at working (so a skill
that needs input never reaches input-required), and every message naming a
task the agent holds, whatever that task's state, becomes a new task. With the
scope key unless-metadata=tenant it reproduces the field root cause (only
messages without metadata.tenant are treated as new). Tests that a client
treats a new task id in the answer to a continuation as a divergence, not a
continuation, and bounds its wait for input-required.`,
	New: func() core.Behavior { return &NewTaskIDOnContinuation{KeepContext: true, Hold: true} },
}

// NewTaskIDOnContinuation turns every message naming an existing task into
// a new task and keeps the tasks it starts in working, as the agent of the
// field note did (it ignored the taskId whatever the task's state). It
// tests that a client detects a fresh task id answered to a continuation (a
// divergence) instead of polling the original task for ever.
type NewTaskIDOnContinuation struct {
	// KeepContext keeps the original task's contextId on the new task: the
	// subtler variant, where only the task id betrays the divergence.
	KeepContext bool `param:"keep-context" doc:"give the new task the original task's contextId (false mints a new context)"`
	// Hold keeps every task started by a message without a taskId in
	// working, whatever its skill; false holds only tasks of skills that
	// need input.
	Hold bool `param:"hold" doc:"keep every task a new message starts in working (false: only those of skills that need input, which never reach input-required)"`
}

// Apply implements Behavior.
func (b *NewTaskIDOnContinuation) Apply(x *core.Exchange) {
	if x.Op != wire.OpSend && x.Op != wire.OpStream {
		return
	}
	declined := x.Declined()
	// diverted is a message naming a task, answered with a new one; fresh
	// a message that names no task.
	diverted, fresh := false, false
	x.OnDecide(func(d *timeline.Decision, existing *wire.Task) {
		var named string
		if x.Request != nil && x.Request.Message != nil {
			named = x.Request.Message.TaskID
		}
		switch {
		case d.Kind == timeline.DecideDuplicate:
			declined("the message repeats messageId of a message the agent took: answered as a retry (see duplicate-on-retry)")
		case named == "" || (existing == nil || existing.ID != named) && d.Kind == timeline.DecideNew:
			// No task named, or a new one under the client's id (v0.1).
			fresh = d.Kind == timeline.DecideNew
			if fresh && !b.Hold && (x.Skill == nil || !x.Skill.NeedsInput) {
				declined("a new message of skill " + skillID(x) + ", which needs no input, and hold=false: played honestly")
			}
		case existing == nil || existing.ID != named:
			declined("the message names task " + named + ", which the agent does not hold: nothing to answer with a new task")
		case d.Kind == timeline.DecideContinue || d.Kind == timeline.DecideReject:
			d.Reason = "new-task-id-on-continuation: message for " + string(existing.Status.State) + " task " + named + " treated as a new request"
			d.Kind, d.TaskID, d.Err = timeline.DecideNew, "", nil
			d.ContextID = existing.ContextID
			if !b.KeepContext {
				d.ContextID = ""
			}
			diverted = true
		default:
			declined("the decision for task " + named + " is " + string(d.Kind) + ", not a continuation")
		}
	})
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		needsInput := x.Skill != nil && x.Skill.NeedsInput
		if !diverted && !fresh || !needsInput && !(fresh && b.Hold) {
			return tl
		}
		if cut, ok := cutAfterState(tl, wire.StateWorking); ok {
			return cut
		}
		return tl
	})
}

func skillID(x *core.Exchange) string {
	if x.Skill == nil {
		return "(none)"
	}
	return x.Skill.ID
}

package behaviors

import (
	"github.com/a2amock/a2amock/a2a"
	"github.com/a2amock/a2amock/timeline"
)

var newTaskIDOnContinuationSpec = Spec{
	Name: "new-task-id-on-continuation",
	Doc: `Reproduces the field failure where an agent answers a follow-up message
that carries an existing taskId with a brand-new task, while the original task
stays working for ever: a new task of a skill that needs input stops at
working and never reaches input-required, and every continuation becomes a new
task. With the scope key unless-metadata=tenant it reproduces the field root
cause (only messages without metadata.tenant are treated as new). Tests that a
client treats a new task id in the answer to a continuation as a divergence,
not a continuation, and bounds its wait for input-required.`,
	New: func() Behavior { return &NewTaskIDOnContinuation{KeepContext: true} },
}

// NewTaskIDOnContinuation turns continuations into new tasks and keeps new
// tasks of input-needing skills in working, as the agent of the field note
// did. It tests that a client detects a fresh task id answered to a
// continuation (a divergence) instead of polling the original task for ever.
type NewTaskIDOnContinuation struct {
	// KeepContext keeps the original task's contextId on the new task: the
	// subtler variant, where only the task id betrays the divergence.
	KeepContext bool `param:"keep-context" doc:"give the new task the original task's contextId (false mints a new context)"`
}

// Apply implements Behavior.
func (b *NewTaskIDOnContinuation) Apply(x *Exchange) {
	isNew := false
	x.OnDecide(func(d *timeline.Decision, _ *a2a.Task) {
		if d.Kind == timeline.DecideContinue {
			d.Reason = "new-task-id-on-continuation: continuation of " + d.TaskID + " treated as a new request"
			d.Kind, d.TaskID = timeline.DecideNew, ""
			if !b.KeepContext {
				d.ContextID = ""
			}
		}
		isNew = d.Kind == timeline.DecideNew
	})
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		if !isNew || x.Skill == nil || !x.Skill.NeedsInput {
			return tl
		}
		if cut, ok := cutAfterState(tl, a2a.StateWorking); ok {
			return cut
		}
		return tl
	})
}

package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var mintTaskForUnknownIDSpec = core.Spec{
	Name: "mint-task-for-unknown-id",
	Doc: `Reproduces agents that, given a message naming a task they do not know,
create a task instead of answering TaskNotFoundError (-32001): under the
client's id (keep-id=true) or under a fresh one. Tests that a client that
continues a task it believes exists notices the agent has lost it (no history,
submitted again) rather than taking the answer as a continuation.`,
	New: func() core.Behavior { return &MintTaskForUnknownID{KeepID: true} },
}

// MintTaskForUnknownID turns TaskNotFoundError on send into a new task. It
// tests that clients validate the history of a continued task.
type MintTaskForUnknownID struct {
	// KeepID creates the task under the id the client named.
	KeepID bool `param:"keep-id" doc:"create the task under the id the client named (false mints a fresh id)"`
}

// Apply implements Behavior.
func (b *MintTaskForUnknownID) Apply(x *core.Exchange) {
	if x.Request == nil || x.Request.Message == nil || x.Request.Message.TaskID == "" {
		return
	}
	m := x.Request.Message
	x.OnDecide(func(d *timeline.Decision, existing *wire.Task) {
		if d.Kind != timeline.DecideReject || existing != nil || d.Err == nil || d.Err.Code != wire.CodeTaskNotFound {
			return
		}
		id := ""
		if b.KeepID {
			id = m.TaskID
		}
		*d = timeline.Decision{Kind: timeline.DecideNew, TaskID: id, ContextID: m.ContextID,
			Reason: "mint-task-for-unknown-id: unknown task " + m.TaskID + " created instead of TaskNotFoundError"}
	})
}

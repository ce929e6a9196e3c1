package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var duplicateOnRetrySpec = core.Spec{
	Name: "duplicate-on-retry",
	Doc: `Reproduces agents that do not treat messageId as an idempotency key:
a message the agent has already taken, resent with the same messageId (a
client retrying after a timeout or a dropped connection), creates a second
task and runs it again. The honest mock answers such a retry with the task
the first sending created, as it stands (a unary send waits for it to
settle, a stream re-attaches to it): the spec leans to idempotency. Only
new-task messages (no taskId) are duplicated; a resent continuation is
still answered honestly. SendMessage and SendStreamingMessage, every
dialect, both bindings. Tests that a client which retries knows the agent
may not deduplicate: it reuses the messageId (testkit.
AssertRetryReusedMessageID), and reconciles the tasks a retry may have
created instead of assuming one. Evidence: A2A#928, #1893 and #1987
(messageId as idempotency key).`,
	New: func() core.Behavior { return &DuplicateOnRetry{} },
}

// DuplicateOnRetry makes a resent message create a new task.
type DuplicateOnRetry struct{}

// Apply implements Behavior.
func (b *DuplicateOnRetry) Apply(x *core.Exchange) {
	if (x.Op != wire.OpSend && x.Op != wire.OpStream) || x.Request == nil || x.Request.Message == nil || x.Request.Message.TaskID != "" {
		return
	}
	ctxID := x.Request.Message.ContextID
	x.OnDecide(func(d *timeline.Decision, _ *wire.Task) {
		if d.Kind != timeline.DecideDuplicate {
			return
		}
		*d = timeline.Decision{Kind: timeline.DecideNew, ContextID: ctxID,
			Reason: "duplicate-on-retry: a resent message (" + d.Reason + ") starts a new task"}
	})
}

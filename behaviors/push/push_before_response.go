package push

import "github.com/a2amock/a2amock/behaviors/core"

var pushBeforeResponseSpec = core.Spec{
	Name: "push-before-response",
	Doc: `Reproduces agents whose webhook fires before the send reply is written,
so the first notification names a task id the client has not yet learned.
The unary send reply is held until the task's first notification was
delivered. Tests that a receiver does not reject (or drop) a notification for
a task it does not know yet, but parks it until the reply arrives.`,
	New: func() core.Behavior { return &PushBeforeResponse{} },
}

// PushBeforeResponse holds the send reply until the first push went out.
type PushBeforeResponse struct{}

// Apply implements Behavior.
func (b *PushBeforeResponse) Apply(x *core.Exchange) { x.PushBeforeReply() }

package push

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

var pushBadTokenSpec = core.Spec{
	Name: "push-bad-token",
	Doc: `Reproduces senders that present the wrong notification token (a rotated
config, another task's token, or a forged call): every notification carries
'token' instead of the configured one. Tests that the receiver checks the
token against the one it registered and refuses the notification rather than
updating the task.`,
	New: func() core.Behavior { return &PushBadToken{Token: "not-the-configured-token"} },
}

// PushBadToken sends the wrong notification token.
type PushBadToken struct {
	Token string `param:"token" doc:"the token sent instead of the configured one"`
}

// Apply implements Behavior.
func (b *PushBadToken) Apply(x *core.Exchange) {
	tok := b.Token
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) { deliver(ev, core.PushOptions{Token: &tok}) })
}

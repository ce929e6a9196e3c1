package card

import (
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

var cardOverclaimsSpec = core.Spec{
	Name: "card-overclaims",
	Doc: `Reproduces agents whose card declares capabilities the server does not
have: the served card says streaming, pushNotifications and/or
stateTransitionHistory (the 'capabilities' list), while the calls are
refused — streaming calls (SendStreamingMessage, SubscribeToTask) with
UnsupportedOperationError, push-config calls with
PushNotificationNotSupportedError, or both with -32601 Method not found
when refuse-with=method-not-found — and a task's history comes back empty
although stateTransitionHistory is declared. The refusal is an error
answer, not an event stream. Tests that a client treats the card as a
claim, falls back from streaming to SendMessage and polling when the claim
fails, and reports the mismatch instead of retrying.`,
	New: func() core.Behavior {
		return &CardOverclaims{Capabilities: []string{"streaming", "pushNotifications", "stateTransitionHistory"}, RefuseWith: "unsupported"}
	},
}

// CardOverclaims declares capabilities on the card that the calls refuse.
type CardOverclaims struct {
	Capabilities []string `param:"capabilities" doc:"capabilities to claim: streaming, pushNotifications, stateTransitionHistory"`
	RefuseWith   string   `param:"refuse-with" doc:"unsupported (UnsupportedOperationError, PushNotificationNotSupportedError) or method-not-found (-32601)"`
}

// Validate implements Validator.
func (b *CardOverclaims) Validate() error {
	for _, c := range b.Capabilities {
		switch c {
		case "streaming", "pushNotifications", "stateTransitionHistory":
		default:
			return fmt.Errorf("capability %q is not streaming, pushNotifications or stateTransitionHistory", c)
		}
	}
	if b.RefuseWith != "unsupported" && b.RefuseWith != "method-not-found" {
		return fmt.Errorf("refuse-with must be unsupported or method-not-found, not %q", b.RefuseWith)
	}
	return nil
}

// Apply implements Behavior.
func (b *CardOverclaims) Apply(x *core.Exchange) {
	has := func(c string) bool { return slices.Contains(b.Capabilities, c) }
	refuse := func(code int, what string) {
		method := ""
		if x.Request != nil {
			method = x.Request.Method
		}
		if b.RefuseWith == "method-not-found" {
			x.RejectWith(wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", method).With("method", method))
			return
		}
		x.RejectWith(wire.Errorf(code, "%s is not supported", what))
	}
	switch x.Op {
	case core.OpCard:
		x.OnCard(func(c *cards.Card) {
			c.Capabilities.Streaming = c.Capabilities.Streaming || has("streaming")
			c.Capabilities.PushNotifications = c.Capabilities.PushNotifications || has("pushNotifications")
			c.Capabilities.StateTransitionHistory = c.Capabilities.StateTransitionHistory || has("stateTransitionHistory")
		})
	case wire.OpStream, wire.OpSubscribe:
		if has("streaming") {
			refuse(wire.CodeUnsupportedOperation, "streaming")
		}
	case wire.OpSetPushConfig, wire.OpGetPushConfig, wire.OpListPushConfigs, wire.OpDeletePush:
		if has("pushNotifications") {
			refuse(wire.CodePushNotSupported, "push notifications")
		}
	case wire.OpGetTask, wire.OpSend:
		if has("stateTransitionHistory") {
			x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
				if res != nil && res.Task != nil {
					t := res.Task.Clone()
					t.History = nil
					r := *res
					r.Task = t
					return &r, err
				}
				return res, err
			})
		}
	}
}

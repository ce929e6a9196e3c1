// Package gate holds the capability gates of v1.0 (§4): the operations an
// agent refuses because its card does not declare them, as a pure function
// of the card's capabilities. The engine applies it to every dialect.
package gate

import (
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

// Op refuses op when caps does not declare it; extended says whether an
// extended agent card is configured (declaring one is not enough).
func Op(caps cards.Capabilities, extended bool, op wire.Op) *wire.Error {
	switch op {
	case wire.OpStream, wire.OpSubscribe:
		if !caps.Streaming {
			return wire.Errorf(wire.CodeUnsupportedOperation, "streaming is not supported: the agent card does not declare capabilities.streaming")
		}
	case wire.OpSetPushConfig, wire.OpGetPushConfig, wire.OpListPushConfigs, wire.OpDeletePush:
		if !caps.PushNotifications {
			return wire.Errorf(wire.CodePushNotSupported, "push notifications are not supported: the agent card does not declare capabilities.pushNotifications")
		}
	case wire.OpExtendedCard:
		if !caps.ExtendedAgentCard {
			return wire.Errorf(wire.CodeUnsupportedOperation, "the agent card does not declare an extended agent card")
		}
		if !extended {
			return wire.Errorf(wire.CodeExtendedCardNotConfigured, "no extended agent card is configured")
		}
	}
	return nil
}

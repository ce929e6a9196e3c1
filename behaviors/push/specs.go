// Package push holds the protocol behaviors of push notifications:
// deliveries dropped, duplicated, reordered, delayed, sent before the
// reply, once, with a bad token or after the terminal state, and the
// authentication header's dialect (OnPush, PushBeforeReply).
package push

import "github.com/a2amock/a2amock/behaviors/core"

// Specs returns the specs of the package's behaviors, for a registry.
func Specs() []core.Spec {
	return []core.Spec{
		pushAuthDialectSpec,
		pushBadTokenSpec,
		pushBeforeResponseSpec,
		pushDelaySpec,
		pushDropSpec,
		pushDuplicateSpec,
		pushOnceSpec,
		pushReorderSpec,
		pushReplayAfterTerminalSpec,
	}
}

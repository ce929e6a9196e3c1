package card

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/cards"
)

var cardUnderclaimsSpec = core.Spec{
	Name: "card-underclaims",
	Doc: `Reproduces agents whose card says less than the server does: the served
card drops the capabilities in 'claims' (streaming, pushNotifications,
extendedAgentCard: declared false) while the server keeps serving them,
and/or (protocol-version) gives its interfaces the protocolVersion
'version' instead of the one they speak. The agent's own card must declare
the capabilities for the server to serve them; only the served copy lies.
Card fetches of every dialect (the v0.3 card's top-level protocolVersion
and its interfaces too). Tests that a client decides from the card and
reports or works around a too-modest card (streaming refused up front
although the agent streams, a v1.0 agent skipped as 0.3) rather than
failing in a confusing way. Evidence: adk-python#6672 (a card without
streaming:true although the server streams), a2a-samples#599 (a wrong
protocolVersion on the card).`,
	New: func() core.Behavior { return &CardUnderclaims{Claims: []string{"streaming"}, Version: "0.3.0"} },
}

// CardUnderclaims hides capabilities from the served card.
type CardUnderclaims struct {
	Claims  []string `param:"claims" doc:"what the card denies: streaming, pushNotifications, extendedAgentCard, protocol-version"`
	Version string   `param:"version" doc:"the protocolVersion protocol-version puts on the interfaces"`
}

// Validate implements Validator.
func (b *CardUnderclaims) Validate() error {
	for _, c := range b.Claims {
		if !slices.Contains([]string{"streaming", "pushNotifications", "extendedAgentCard", "protocol-version"}, c) {
			return fmt.Errorf("claim %q is not streaming, pushNotifications, extendedAgentCard or protocol-version", c)
		}
	}
	if b.Version == "" {
		return fmt.Errorf("version must not be empty")
	}
	return nil
}

// Apply implements Behavior.
func (b *CardUnderclaims) Apply(x *core.Exchange) {
	if x.Op != core.OpCard {
		return
	}
	has := func(c string) bool { return slices.Contains(b.Claims, c) }
	x.OnCard(func(c *cards.Card) {
		if has("streaming") {
			c.Capabilities.Streaming = false
		}
		if has("pushNotifications") {
			c.Capabilities.PushNotifications = false
		}
		if has("extendedAgentCard") {
			c.Capabilities.ExtendedAgentCard = false
		}
	})
	if has("protocol-version") {
		x.OnCardJSON(func(raw []byte) []byte { return setProtocolVersion(raw, b.Version) })
	}
}

// setProtocolVersion sets every protocolVersion of a rendered card: the
// top-level one (v0.x) and those of its interfaces.
func setProtocolVersion(raw []byte, v string) []byte {
	var card map[string]any
	if json.Unmarshal(raw, &card) != nil {
		return raw
	}
	if _, ok := card["protocolVersion"]; ok {
		card["protocolVersion"] = v
	}
	for _, key := range []string{"supportedInterfaces", "additionalInterfaces"} {
		list, _ := card[key].([]any)
		for _, it := range list {
			if m, ok := it.(map[string]any); ok {
				m["protocolVersion"] = v
			}
		}
	}
	out, err := json.Marshal(card)
	if err != nil {
		return raw
	}
	return out
}

package card

import "github.com/a2amock/a2amock/behaviors/core"

var legacyCardPathOnlySpec = core.Spec{
	Name: "legacy-card-path-only",
	Doc: `Reproduces agents deployed before v0.3 renamed the well-known card path:
the card is only at /.well-known/agent.json, and
/.well-known/agent-card.json answers 404. Tests that a client falls back to
the legacy path when the current one is not found, and that it does not
mistake the 404 for an unreachable agent.`,
	New: func() core.Behavior { return &LegacyCardPathOnly{} },
}

// LegacyCardPathOnly hides the card at its current well-known path.
type LegacyCardPathOnly struct{}

// Apply implements Behavior.
func (b *LegacyCardPathOnly) Apply(x *core.Exchange) {
	if x.Op == core.OpCard {
		x.HideCardAt("/.well-known/agent-card.json")
	}
}

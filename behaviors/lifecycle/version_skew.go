package lifecycle

import (
	"fmt"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

var versionSkewSpec = core.Spec{
	Name: "version-skew",
	Doc: `Reproduces agents whose card and server disagree on the protocol
version, as during a half-finished upgrade or rollback. With serve=0.3 the
card says 1.0 but the server answers only the v0.3 method names (message/send,
...): every v1.0 call (SendMessage, the HTTP+JSON routes, ...) gets -32601
Method not found. With serve=1.0 the card says 0.3 and every v0.x call gets
-32601 while the v1.0 names work. Tests that a client picks the method set
from the card, and that on Method not found it reports the version mismatch
(or falls back to the other method set) instead of a generic failure.`,
	New: func() core.Behavior { return &VersionSkew{Serve: "0.3"} },
}

// VersionSkew makes the card claim one protocol version while the server
// answers only the other's method names.
type VersionSkew struct {
	Serve string `param:"serve" doc:"the method set actually served: 0.3 (card says 1.0) or 1.0 (card says 0.3)"`
}

// Validate implements Validator.
func (b *VersionSkew) Validate() error {
	if b.Serve != "0.3" && b.Serve != "1.0" {
		return fmt.Errorf("serve must be 0.3 or 1.0, not %q", b.Serve)
	}
	return nil
}

// Apply implements Behavior.
func (b *VersionSkew) Apply(x *core.Exchange) {
	served, claimed := wire.V03, wire.V10
	if b.Serve == "1.0" {
		served, claimed = wire.V10, wire.V03
	}
	if x.Op == core.OpCard {
		x.OnCard(func(c *cards.Card) { c.Dialect = claimed })
		return
	}
	if x.Request == nil || x.Dialect == "" {
		return
	}
	if wire.Describe(x.Dialect).Major == wire.Describe(served).Major {
		return
	}
	m := x.Request.Method
	x.RejectWith(wire.Errorf(wire.CodeMethodNotFound, "Method not found: %s", m).With("method", m))
}

// Package transport holds the transport behaviors: status codes, resets,
// truncation, broken bodies, media types, error body shapes and delays on
// the wire. Each acts through core.Transport, which every binding
// implements in its own terms; each doc says which bindings give it a
// meaning. A transport behavior faults a card fetch only when its scope
// names op=agent-card.
package transport

import "github.com/a2amock/a2amock/behaviors/core"

// Specs returns the specs of the package's behaviors, for a registry.
func Specs() []core.Spec {
	return []core.Spec{
		connectionResetSpec,
		contentTypeSpec,
		emptyResponseSpec,
		errorDataShapeSpec,
		httpErrorSpec,
		latencySpec,
		malformedJSONSpec,
		restErrorDialectSpec,
		sendResultEnvelopeSpec,
		truncatedBodySpec,
		unknownFieldsSpec,
	}
}

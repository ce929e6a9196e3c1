// Package stream holds the behaviors of streaming answers: events
// dropped, duplicated, reordered, held back or never finished, resubscribe
// gaps, artifact chunk faults and the framing of Server-Sent Events. The
// event faults are protocol behaviors (OnStreamEvent, OnStreamEnd) and
// work on every binding; the SSE framing faults (sse-framing,
// stream-eof-mid-frame, stream-error-as-json, idle-gap's comments) write
// raw frames through core.RawStream and are the HTTP bindings' (each doc
// says which bindings it works on).
package stream

import "github.com/a2amock/a2amock/behaviors/core"

// Specs returns the specs of the package's behaviors, for a registry.
func Specs() []core.Spec {
	return []core.Spec{
		artifactChunkFaultsSpec,
		bufferedBurstSpec,
		idleGapSpec,
		resubscribeGapSpec,
		slowStreamSpec,
		sseFramingSpec,
		streamDropEventsSpec,
		streamDuplicateEventsSpec,
		streamEOFMidFrameSpec,
		streamErrorAsJSONSpec,
		streamHangSpec,
		streamNoFinalSpec,
		streamReorderEventsSpec,
		subscribeMethodSpec,
	}
}

package stream

import (
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
)

var artifactChunkFaultsSpec = core.Spec{
	Name: "artifact-chunk-faults",
	Doc: `Reproduces agents that get artifact chunking wrong. With
fault=unknown-append the first chunk of each artifact says append:true, so
the client is told to append to an artifact id it has never been sent; with
fault=no-last-chunk no chunk ever says lastChunk:true, so the artifact is
never declared complete. Both by default. Applies to every artifact update
of the task (streams, the stored task and its push notifications alike).
Tests that a client neither crashes nor silently discards content when asked
to append to an unknown artifact (it should start the artifact), and that it
finalizes artifacts when the task ends even without a lastChunk marker.`,
	New: func() core.Behavior { return &ArtifactChunkFaults{Faults: []string{"unknown-append", "no-last-chunk"}} },
}

// ArtifactChunkFaults breaks the append/lastChunk markers of artifact
// updates.
type ArtifactChunkFaults struct {
	Faults []string `param:"fault" doc:"which faults: unknown-append, no-last-chunk"`
}

// Validate implements Validator.
func (b *ArtifactChunkFaults) Validate() error {
	if len(b.Faults) == 0 {
		return fmt.Errorf("fault needs unknown-append, no-last-chunk or both")
	}
	for _, f := range b.Faults {
		if f != "unknown-append" && f != "no-last-chunk" {
			return fmt.Errorf("fault %q is not unknown-append or no-last-chunk", f)
		}
	}
	return nil
}

// Apply implements Behavior.
func (b *ArtifactChunkFaults) Apply(x *core.Exchange) {
	appendFirst := slices.Contains(b.Faults, "unknown-append")
	noLast := slices.Contains(b.Faults, "no-last-chunk")
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		out := tl.Clone()
		seen := map[string]bool{}
		for i := range out {
			st := &out[i]
			if st.Kind != timeline.StepArtifact || st.Artifact == nil {
				continue
			}
			if appendFirst && !seen[st.Artifact.ArtifactID] {
				st.Append = true
			}
			seen[st.Artifact.ArtifactID] = true
			if noLast {
				st.LastChunk = false
			}
		}
		return out
	})
}

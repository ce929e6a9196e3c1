package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var failInsteadOfInputRequiredSpec = core.Spec{
	Name: "fail-instead-of-input-required",
	Doc: `Reproduces agents whose skill advertises that it asks for missing input
but whose handler fails the task instead of parking it in input-required.
Tests that a client derives its lifecycle from observed states, not from the
card's skill description: it must not wait for input-required once the task
is failed, and should report the divergence distinctly from a plain failure.`,
	New: func() core.Behavior { return &FailInsteadOfInputRequired{Message: "Required input is missing."} },
}

// FailInsteadOfInputRequired replaces input-required with failed. It tests
// that a client waiting for input-required handles a terminal failure.
type FailInsteadOfInputRequired struct {
	// Message is the status message of the failed state.
	Message string `param:"message" doc:"status message of the failed state"`
}

// Apply implements Behavior.
func (b *FailInsteadOfInputRequired) Apply(x *core.Exchange) {
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		for i, st := range tl {
			if st.Kind == timeline.StepState && st.State == wire.StateInputRequired && st.TaskID == "" {
				out := tl[:i:i].Clone()
				return append(out, timeline.Step{Kind: timeline.StepState, State: wire.StateFailed, Message: b.Message, After: st.After, ContextID: st.ContextID})
			}
		}
		return tl
	})
}

package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var inputRequiredWithoutWorkingSpec = core.Spec{
	Name: "input-required-without-working",
	Doc: `Reproduces an ordering violation: the task asks for input without ever
having announced working (submitted → input-required). With insert=true a
task that needs no input is also parked in input-required right after
submitted and then goes on working without any input arriving. Tests that a
client validates the observed order submitted → working → input-required and
flags input-required without a prior working instead of trusting the card.`,
	New: func() core.Behavior { return &InputRequiredWithoutWorking{Prompt: "Please provide more input."} },
}

// InputRequiredWithoutWorking drops the working state that precedes
// input-required, or inserts an unprompted input-required. It tests the
// client's ordering check of the lifecycle.
type InputRequiredWithoutWorking struct {
	// Insert also adds input-required after submitted to timelines that
	// never ask for input.
	Insert bool `param:"insert" doc:"also put input-required right after submitted in timelines that would never ask for input (the task then works on without any)"`
	// Prompt is the status message of an inserted input-required state.
	Prompt string `param:"prompt" doc:"status message of an inserted input-required state"`
}

// Apply implements Behavior.
func (b *InputRequiredWithoutWorking) Apply(x *core.Exchange) {
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		ir := -1
		for i, st := range tl {
			if st.Kind == timeline.StepState && st.State == wire.StateInputRequired && st.TaskID == "" {
				ir = i
				break
			}
		}
		if ir >= 0 {
			out := tl[:0:0]
			for i, st := range tl {
				if i < ir && st.Kind == timeline.StepState && st.State == wire.StateWorking {
					continue
				}
				out = append(out, st)
			}
			return out
		}
		if !b.Insert {
			return tl
		}
		at := 0
		if cut, ok := cutAfterState(tl, wire.StateSubmitted); ok {
			at = len(cut)
		}
		out := tl[:at:at].Clone()
		out = append(out, timeline.Step{Kind: timeline.StepState, State: wire.StateInputRequired, Message: b.Prompt})
		return append(out, tl[at:]...)
	})
}

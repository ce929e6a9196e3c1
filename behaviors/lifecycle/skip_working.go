package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var skipWorkingSpec = core.Spec{
	Name: "skip-working",
	Doc: `Reproduces agents that go from submitted straight to input-required or a
terminal state, never announcing working. Tests that a client does not
require working before input-required or completion, and that a client which
reconciles on observed states downgrades its expectations instead of waiting.`,
	New: func() core.Behavior { return &SkipWorking{} },
}

// SkipWorking removes every working step from the task's timeline.
type SkipWorking struct{}

// Apply implements Behavior.
func (b *SkipWorking) Apply(x *core.Exchange) {
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		out := tl[:0:0]
		for _, st := range tl {
			if st.Kind == timeline.StepState && st.State == wire.StateWorking {
				continue
			}
			out = append(out, st)
		}
		return out
	})
}

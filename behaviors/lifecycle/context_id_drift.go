package lifecycle

import (
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var contextIDDriftSpec = core.Spec{
	Name: "context-id-drift",
	Doc: `Reproduces agents that lose the conversation: the status and artifact
updates of a task (where=events) and/or the task or message a unary call
answers (where=result) carry a contextId other than the task's. Tests that a
client correlates by taskId and contextId together and detects a context that
changes under a task, instead of silently filing the task under a new
conversation.`,
	New: func() core.Behavior { return &ContextIDDrift{Where: []string{"events", "result"}} },
}

// ContextIDDrift answers with a drifted contextId. It tests that clients
// notice a task changing context.
type ContextIDDrift struct {
	// Where lists the places the drifted contextId appears.
	Where []string `param:"where" doc:"where the drifted contextId appears: events (status and artifact updates), result (the task or message a unary call answers)"`
}

// Validate implements Validator.
func (b *ContextIDDrift) Validate() error {
	for _, w := range b.Where {
		if w != "events" && w != "result" {
			return fmt.Errorf("where: %q is not events or result", w)
		}
	}
	if len(b.Where) == 0 {
		return fmt.Errorf("where must name events, result or both")
	}
	return nil
}

// Apply implements Behavior.
func (b *ContextIDDrift) Apply(x *core.Exchange) {
	drift := randomTaskID(x.Rand)
	if slices.Contains(b.Where, "events") {
		x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
			out := tl.Clone()
			for i := range out {
				if out[i].Kind == timeline.StepState || out[i].Kind == timeline.StepArtifact {
					out[i].ContextID = drift
				}
			}
			return out
		})
	}
	if slices.Contains(b.Where, "result") {
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			if res == nil {
				return res, err
			}
			out := *res
			if res.Task != nil {
				t := res.Task.Clone()
				t.ContextID = drift
				out.Task = t
			}
			if res.Message != nil {
				m := *res.Message
				m.ContextID = drift
				out.Message = &m
			}
			return &out, err
		})
	}
}

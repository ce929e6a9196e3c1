package lifecycle

import (
	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var neverTerminalSpec = core.Spec{
	Name: "never-terminal",
	Doc: `Reproduces agents whose tasks reach working and stay there: no artifact,
no input-required, no terminal state, and GetTask keeps saying working because
the agent never garbage-collects abandoned tasks. Tests that a client bounds
every wait with a deadline and treats a task still working past it as a
protocol violation instead of polling for ever. With block=true a blocking
SendMessage (message/send, tasks/send) is never answered either — the agent
holds the request until the client gives up — which tests that the client
puts a timeout on the send itself.`,
	New: func() core.Behavior { return &NeverTerminal{} },
}

// NeverTerminal stops the task's timeline at working. It reproduces the
// orphaned working tasks of the field note and tests that clients put a
// deadline on polling and streaming.
type NeverTerminal struct {
	Block bool `param:"block" doc:"hold a blocking send's reply until the client leaves (default: answer with the working task)"`
}

// Apply implements Behavior.
func (b *NeverTerminal) Apply(x *core.Exchange) {
	if b.Block && x.Op == wire.OpSend && x.Request != nil && !x.Request.Config.ReturnImmediately && x.HTTP != nil {
		ctx := x.Context()
		x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
			// The request's context also ends when the server closes.
			<-ctx.Done()
			return res, err
		})
	}
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		if cut, ok := cutAfterState(tl, wire.StateWorking); ok {
			return cut
		}
		// A timeline without working (a script, or a continuation that
		// would finish at once) still must not end: announce working where
		// it would have ended or asked for input.
		out := tl[:0:0]
		for _, st := range tl {
			if st.Kind == timeline.StepState && (st.State.Terminal() || st.State.Interrupted()) {
				return append(out, timeline.Step{Kind: timeline.StepState, State: wire.StateWorking, After: st.After})
			}
			out = append(out, st)
		}
		return out
	})
}

// cutAfterState returns the steps of tl up to and including the first state
// step of state s, and whether there is one.
func cutAfterState(tl timeline.Timeline, s wire.TaskState) (timeline.Timeline, bool) {
	for i, st := range tl {
		if st.Kind == timeline.StepState && st.State == s && st.TaskID == "" {
			return tl[: i+1 : i+1].Clone(), true
		}
	}
	return tl, false
}

// firstTerminal returns the index of the first terminal state step of the
// task itself, or -1.
func firstTerminal(tl timeline.Timeline) int {
	for i, st := range tl {
		if st.Kind == timeline.StepState && st.State.Terminal() && st.TaskID == "" {
			return i
		}
	}
	return -1
}

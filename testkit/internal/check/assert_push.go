package check

import (
	"fmt"
	"slices"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// AssertFellBackToPolling asserts, from the server's journal and the states
// a webhook received for the task (pushed), that a client whose terminal
// push never came fell back to GetTask: the agent reached a terminal state
// for the task, no terminal state was pushed, and the journal holds a
// GetTask for the task after that terminal state, answered with a terminal
// task.
func AssertFellBackToPolling(t assert.TestingT, journal []server.Entry, pushed []wire.TaskState, taskID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	const rule = "the agent ends the task; a client whose terminal push does not come polls GetTask until it sees the terminal state"
	byID, _ := stories(journal)
	s := byID[taskID]
	if s == nil {
		return assert.Fail(t, failure(fmt.Sprintf("task %q: not in the journal", taskID), "nothing about this task",
			rule, "no entry names the task", ""), msgAndArgs...)
	}
	var terminal *server.Entry
	for i, e := range journal {
		if e.Kind == server.EntryEvent && e.TaskID == taskID && e.State.Terminal() {
			terminal = &journal[i]
			break
		}
	}
	if terminal == nil {
		return assert.Fail(t, failure(s.subject("never reached a terminal state, so nothing was left to poll for"), s.did(),
			rule, "task states "+stateList(s.states), ""), msgAndArgs...)
	}
	for _, p := range pushed {
		if p.Terminal() {
			return assert.Fail(t, failure(s.subject("its terminal push was delivered, so nothing forced a fallback"), s.did(),
				rule, fmt.Sprintf("the webhook received %s; pushed states %s", p, stateList(pushed)), ""), msgAndArgs...)
		}
	}
	polled := map[int64]bool{}
	for _, e := range journal {
		if e.Seq > terminal.Seq && e.Kind == server.EntryRequest && e.Op == wire.OpGetTask && e.TaskID == taskID {
			polled[e.Request] = true
		}
	}
	for _, e := range journal {
		if e.Kind == server.EntryResponse && polled[e.Request] && e.State.Terminal() {
			return true
		}
	}
	observed := fmt.Sprintf("no GetTask for the task after its terminal state %s (journal #%d): the client waited for a push that never came; pushed states %s",
		terminal.State, terminal.Seq, stateList(pushed))
	if len(polled) > 0 {
		observed = fmt.Sprintf("%d GetTask for the task after its terminal state %s (journal #%d), none answered with a terminal task",
			len(polled), terminal.State, terminal.Seq)
	}
	return assert.Fail(t, failure(s.subject("the client did not fall back to polling"), s.did(), rule, observed, ""), msgAndArgs...)
}

// PushedStates returns the states the agent pushed for the task that a
// webhook accepted (answered 2xx), in the order the journal recorded the
// deliveries: what a webhook of the client's own received, as far as the
// mock can tell.
func PushedStates(journal []server.Entry, taskID string) []wire.TaskState {
	var out []wire.TaskState
	for _, e := range journal {
		if e.Kind == server.EntryPush && e.TaskID == taskID && e.State != "" && e.HTTP >= 200 && e.HTTP < 300 {
			out = append(out, e.State)
		}
	}
	return out
}

// AssertReceivedStates asserts that the distinct consecutive states a
// webhook received for the task (received, in arrival order, repeats
// included) are exactly expected.
func AssertReceivedStates(t assert.TestingT, received []wire.TaskState, taskID string, expected ...wire.TaskState) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	distinct := slices.Compact(slices.Clone(received))
	if slices.Equal(distinct, expected) {
		return true
	}
	observed := "pushed states " + stateList(distinct)
	if len(distinct) != len(received) {
		observed += " (as received, repeats included: " + stateList(received) + ")"
	}
	return assert.Fail(t, failure(fmt.Sprintf("task %q: pushed states differ", taskID),
		fmt.Sprintf("received %d push(es) with a state for the task at its webhook", len(received)),
		"pushed states "+stateList(expected), observed, diffSeq(expected, distinct)))
}

package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// serveDefaults is the server `a2amock serve --behavior spec` runs: one
// agent with a generated card, seed 0, 20ms between states.
func serveDefaults(t *testing.T, spec string) *harness {
	t.Helper()
	b, err := behaviors.Parse(spec)
	require.NoError(t, err)
	return start(t, server.Config{Agents: []server.AgentConfig{{Name: "agent", Card: cards.Generate("agent", 0),
		Behaviors: []behaviors.Behavior{b}}}})
}

// new-task-id-on-continuation shows on the default agent: its plain-text
// messages go to a skill that needs no input and finished in ~40 ms, so a
// continuation met a terminal task (-32004) and nothing showed the
// misbehavior. The original now stays working, and a message naming any
// task the agent holds, finished or not, becomes a new task.
func TestNewTaskIDOnContinuationDefaultAgent(t *testing.T) {
	t.Parallel()
	v10 := dialectCases[0]
	h := serveDefaults(t, "new-task-id-on-continuation")
	cl := newClient(t, h, v10)
	first := cl.mustSend(sendOpts{text: "book a room"})
	assert.Equal(t, wire.StateWorking, first.State, "the original stays working")
	next := cl.mustSend(sendOpts{text: "room 4", taskID: first.ID})
	assert.NotEqual(t, first.ID, next.ID, "the continuation becomes a new task")
	assert.Equal(t, first.ContextID, next.ContextID)
	assert.Equal(t, wire.StateCompleted, next.State)
	got, e := cl.get(first.ID, nil)
	require.Nil(t, e)
	assert.Equal(t, wire.StateWorking, got.State)

	// A message naming a finished task becomes a new task too.
	again := cl.mustSend(sendOpts{text: "and room 5", taskID: next.ID})
	assert.NotEqual(t, next.ID, again.ID)

	// In scope but not acting, with why: a message naming an unknown task.
	_, e = cl.send(sendOpts{text: "x", taskID: "no-such-task"})
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeTaskNotFound, e.Code)
	entries, _ := h.journalQuery("?kind=decision")
	var notActed []behaviors.NotActed
	for _, en := range entries {
		notActed = append(notActed, en.NotActed...)
	}
	require.Len(t, notActed, 1, "only the message for an unknown task left the behavior idle: %+v", entries)
	assert.Equal(t, "new-task-id-on-continuation", notActed[0].Behavior)
	assert.Contains(t, notActed[0].Reason, "no-such-task, which the agent does not hold")

	// hold=false: the original completes, and its continuation still gets
	// a new task instead of "a terminal task accepts no more messages".
	h = serveDefaults(t, "new-task-id-on-continuation:hold=false")
	cl = newClient(t, h, v10)
	done := cl.mustSend(sendOpts{text: "book a room"})
	require.Equal(t, wire.StateCompleted, done.State)
	after, e := cl.send(sendOpts{text: "room 4", taskID: done.ID})
	require.Nil(t, e, "a message naming a completed task becomes a new task")
	assert.NotEqual(t, done.ID, after.ID)
	entries, _ = h.journalQuery("?kind=decision")
	require.NotEmpty(t, entries)
	require.Len(t, entries[0].NotActed, 1)
	assert.Contains(t, entries[0].NotActed[0].Reason, "needs no input, and hold=false")
}

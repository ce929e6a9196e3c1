package server_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// A v0.1 agent serves the v0.3 methods as v0.3: message/send and
// message/stream were taken by the v0.1 decoder and refused with -32602
// "id is required". Its tasks are then read in v0.3 shape with the methods
// v0.1 shares (tasks/get, tasks/cancel), while tasks/send keeps v0.1.
func TestV01AgentServesV03Methods(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 11, StepDelay: 2 * time.Millisecond,
		Agents: []server.AgentConfig{{Name: "agent", Card: testCard(wire.V01, true)}}})
	v03 := newClient(t, h, dialectCase{name: "v0.3 on v0.1", d: wire.V03, card: wire.V01})
	v01 := newClient(t, h, dialectCase{name: "v0.1", d: wire.V01, card: wire.V01})

	tk, e := v03.send(sendOpts{text: "hi"})
	require.Nil(t, e, "message/send on a v0.1 agent")
	assert.Equal(t, wire.StateCompleted, tk.State)
	got, e := v03.get(tk.ID, nil)
	require.Nil(t, e)
	assert.Equal(t, "task", got.Kind, "the v0.3 task reads back in v0.3")
	assert.Equal(t, tk.ContextID, got.ContextID)

	asked := v03.mustSend(sendOpts{skill: "ask"})
	require.Equal(t, wire.StateInputRequired, asked.State)
	canceled, e := v03.cancel(asked.ID)
	require.Nil(t, e)
	assert.Equal(t, wire.StateCanceled, canceled.State)

	evs, e := v03.stream(sendOpts{})
	require.Nil(t, e, "message/stream on a v0.1 agent")
	assert.Equal(t, []string{"task", "status", "artifact", "status"}, kinds(evs))

	// The v0.1 methods keep their v0.1 shape, and so do their tasks.
	old := v01.mustSend(sendOpts{text: "hi"})
	assert.Equal(t, wire.StateCompleted, old.State)
	back, e := v01.get(old.ID, nil)
	require.Nil(t, e)
	assert.Empty(t, back.Kind, "v0.1 tasks have no kind")
	assert.Equal(t, old.ContextID, back.ContextID)
}

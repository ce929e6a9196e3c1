package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestContextIDDriftResult(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "context-id-drift:where=result,op=send"))
	m := message(wire.V10, "go", "quick", "")
	m["contextId"] = "ctx-1"
	a := r.sendTo(wire.V10, m)
	require.Zero(t, a.Code)
	assert.NotEqual(t, "ctx-1", a.Task.ContextID, "the answer names another context")
	assert.Regexp(t, uuidShape, a.Task.ContextID)
	// Out of scope (get-task): the stored context.
	assert.Equal(t, "ctx-1", r.get(wire.V10, a.Task.ID).Task.ContextID)
	assert.Equal(t, "ctx-1", r.get(wire.V03, a.Task.ID).Task.ContextID)
}

func TestContextIDDriftEvents(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "context-id-drift:where=events"))
	m := message(wire.V10, "go", "quick", "")
	m["contextId"] = "ctx-2"
	ctx, events := r.streamContexts(wire.V10, m)
	assert.Equal(t, "ctx-2", ctx, "the opening task keeps the context")
	require.Len(t, events, 3)
	for _, c := range events {
		assert.NotEqual(t, "ctx-2", c)
		assert.Equal(t, events[0], c, "one drifted context per request")
	}

	_, err := parseErr("context-id-drift:where=headers")
	require.ErrorContains(t, err, `"headers" is not events or result`)
}

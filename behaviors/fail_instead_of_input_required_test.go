package behaviors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestFailInsteadOfInputRequired(t *testing.T) {
	t.Parallel()
	r := newLifecycleRig(t, nil, parse(t, "fail-instead-of-input-required:message=no tenant given"))

	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		a := r.sendTo(d, message(d, "go", "ask", ""))
		assert.Equal(t, "failed", a.Task.State, d)
		assert.Equal(t, "no tenant given", a.Task.StatusMessage, d)
		// The task is terminal: the client's attempt to supply the input is
		// refused.
		c := r.sendTo(d, message(d, "the input", "ask", a.Task.ID))
		assert.Equal(t, -32004, c.Code, d)
	}
	obs, err := r.streamUpTo(wire.V10, message(wire.V10, "go", "ask", ""), 10)
	require.NoError(t, err)
	assert.Equal(t, "task:submitted status:working status:failed", kinds(obs))

	// A skill that never asks for input is untouched.
	q := r.sendTo(wire.V10, message(wire.V10, "go", "quick", ""))
	assert.Equal(t, "completed", q.Task.State)
}

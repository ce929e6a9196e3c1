package behaviors_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

// sendMsg sends msg with SendMessage and returns the answered task id.
func (r *rig) sendMsg(msg map[string]any) string {
	r.t.Helper()
	rep := r.rpc("SendMessage", map[string]any{"message": msg})
	require.Nil(r.t, rep.Error)
	var res struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	require.NoError(r.t, json.Unmarshal(rep.Result, &res))
	return res.Task.ID
}

func TestDuplicateOnRetry(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "duplicate-on-retry"))
	msg := message(wire.V10, "charge", "s1", "")
	first := r.sendMsg(msg)
	second := r.sendMsg(msg)
	assert.NotEqual(t, first, second, "the retry created a second task")
	third := r.sendMsg(message(wire.V10, "charge", "s1", ""))
	assert.NotEqual(t, second, third)

	// Streams too.
	sm := message(wire.V10, "stream", "s1", "")
	a, err := r.streamUpTo(wire.V10, sm, 10)
	require.NoError(t, err)
	b, err := r.streamUpTo(wire.V10, sm, 10)
	require.NoError(t, err)
	assert.NotEqual(t, a[0].TaskID, b[0].TaskID)
	assert.Equal(t, "task:submitted", b[0].String(), "played again from the start")
}

func TestDuplicateOnRetryOutOfScope(t *testing.T) {
	t.Parallel()
	// The honest agent: a retry gets the first task back.
	r := newRig(t, rigOptions{}, parse(t, "duplicate-on-retry:skill=s2"))
	msg := message(wire.V10, "charge", "s1", "")
	first := r.sendMsg(msg)
	assert.Equal(t, first, r.sendMsg(msg), "s1 is out of scope: the retry is recognised")
	a, err := r.streamUpTo(wire.V10, msg, 10)
	require.NoError(t, err)
	require.Len(t, a, 1, "a re-attached stream: the task as it stands, then the end")
	assert.Equal(t, first, a[0].TaskID)
	assert.Equal(t, "task:completed", a[0].String())

	m2 := message(wire.V10, "charge", "s2", "")
	assert.NotEqual(t, r.sendMsg(m2), r.sendMsg(m2), "s2 is in scope")
}

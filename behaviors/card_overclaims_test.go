package behaviors_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

func historyLen(t *testing.T, r *rig, id string) int {
	t.Helper()
	rep := r.rpc("tasks/get", map[string]any{"id": id})
	require.Nil(t, rep.Error)
	var task struct {
		History []json.RawMessage `json:"history"`
	}
	require.NoError(t, json.Unmarshal(rep.Result, &task))
	return len(task.History)
}

func TestCardOverclaims(t *testing.T) {
	t.Parallel()
	t.Run("claims everything, refuses everything", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{dialect: wire.V03, caps: &cards.Capabilities{}}, parse(t, "card-overclaims"))
		c := r.card()
		assert.True(t, c.Capabilities.Streaming)
		assert.True(t, c.Capabilities.PushNotifications)
		assert.True(t, c.Capabilities.StateTransitionHistory)

		assert.Equal(t, wire.CodeUnsupportedOperation, r.errorCode("message/stream", map[string]any{"message": message(wire.V03, "hi", "s1", "")}))
		id := r.send(wire.V03, "hi", "s1", false)
		assert.Equal(t, wire.CodePushNotSupported, r.errorCode("tasks/pushNotificationConfig/set",
			map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"url": "http://127.0.0.1:9/hook"}}))
		assert.Zero(t, historyLen(t, r, id), "stateTransitionHistory is claimed, yet there is no history")
	})
	t.Run("only the listed capabilities", func(t *testing.T) {
		t.Parallel()
		caps := &cards.Capabilities{Streaming: true, PushNotifications: true}
		r := newRig(t, rigOptions{dialect: wire.V03, caps: caps}, parse(t, "card-overclaims:capabilities=streaming,refuse-with=method-not-found"))
		c := r.card()
		assert.True(t, c.Capabilities.Streaming)
		assert.False(t, c.Capabilities.StateTransitionHistory)
		assert.Equal(t, wire.CodeMethodNotFound, r.errorCode("message/stream", map[string]any{"message": message(wire.V03, "hi", "s1", "")}))
		// Push and history are out of scope and honest.
		id := r.send(wire.V03, "hi", "s1", false)
		assert.Zero(t, r.errorCode("tasks/pushNotificationConfig/set",
			map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"url": "http://127.0.0.1:9/hook"}}))
		assert.Positive(t, historyLen(t, r, id))
	})
	t.Run("bad parameters", func(t *testing.T) {
		t.Parallel()
		_, err := behaviorsParse("card-overclaims:capabilities=telepathy")
		require.Error(t, err)
		_, err = behaviorsParse("card-overclaims:refuse-with=silence")
		require.Error(t, err)
	})
}

package behaviors_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

func TestCardUnderclaims(t *testing.T) {
	t.Parallel()
	caps := &cards.Capabilities{Streaming: true, PushNotifications: true}
	r := newRig(t, rigOptions{caps: caps}, parse(t, "card-underclaims:claims=streaming|pushNotifications"))
	c := r.card()
	assert.False(t, c.Capabilities.Streaming, "the served card denies streaming")
	assert.False(t, c.Capabilities.PushNotifications)
	// The server streams all the same.
	obs, err := r.streamMessage(wire.V10, "hi", "s1")
	require.NoError(t, err)
	assert.Equal(t, "completed", obs[len(obs)-1].State)
	id := r.send(wire.V10, "hi", "s1", false)
	rep := r.rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": "http://127.0.0.1:9/hook"})
	require.Nil(t, rep.Error, "push configs are served")
}

func TestCardUnderclaimsProtocolVersion(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		r := newRig(t, rigOptions{dialect: d}, parse(t, "card-underclaims:claims=protocol-version,version=9.9"))
		_, b := r.fetch("/.well-known/agent-card.json")
		var card map[string]any
		require.NoError(t, json.Unmarshal(b, &card))
		assert.Positive(t, strings.Count(string(b), `"protocolVersion":"9.9"`), "%s", b)
		assert.NotContains(t, string(b), `"protocolVersion":"1.0"`)
		assert.NotContains(t, string(b), `"protocolVersion":"0.3.0"`)
		assert.Equal(t, "completed", lastState(t, r, d), "the agent still speaks %s", d)
	}
}

func lastState(t *testing.T, r *rig, d wire.Dialect) string {
	t.Helper()
	obs, err := r.streamMessage(d, "hi", "s1")
	require.NoError(t, err)
	return obs[len(obs)-1].State
}

func TestCardUnderclaimsOnlyCards(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "card-underclaims:claims=streaming,call=1"))
	assert.False(t, r.card().Capabilities.Streaming)
	assert.True(t, r.card().Capabilities.Streaming, "the second fetch is out of scope")
	_, err := behaviorsParse("card-underclaims:claims=skills")
	assert.Error(t, err)
}
